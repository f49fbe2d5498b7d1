/** Types of request-splitter.mjs, for the flaky proxy (flaky-proxy.ts). */

/** A request as the splitter numbers it: `next()` makes it, the splitter fills in method and path once it has read its head. */
export interface SplitRequest {
  readonly n: number;
  readonly drop: boolean;
  method: string;
  path: string;
}

/** A piece of a chunk and the request it belongs to (null before the first), or the mark right after a request's last byte. */
export type Split<R extends SplitRequest> =
  | { readonly buf: Buffer; readonly request: R | null; readonly end?: undefined }
  | { readonly end: R; readonly buf?: undefined; readonly request?: undefined };

export declare class RequestSplitter<R extends SplitRequest> {
  constructor(options: { next(): R });
  /** The chunk's slices in stream order, each with its request, and an end mark after each request's last byte. */
  push(chunk: Buffer): Split<R>[];
}
