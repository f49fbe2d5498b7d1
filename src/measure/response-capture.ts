/**
 * One response under load, captured as an Observation: an undici dispatch handler (no response
 * stream, no per-request closures) that takes the status and the rate-limit headers, counts the
 * body's bytes and keeps the first bytes of a rejection's body for readers. The sustained-load
 * driver makes one per request; it is the only per-request allocation besides the Observation.
 */
import type { Dispatcher } from 'undici';
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { headerValue, type Observation, type ObservationError } from './observation.ts';
import type { CheckTag, LoadPhaseName } from './tags.ts';

/** What every request of one stream in one phase shares. */
export interface CaptureTags {
  readonly check: CheckTag;
  readonly phase: LoadPhaseName;
  readonly tier: TierName | null;
  readonly org: string | null;
  /** Redacted key, or null when none is sent. */
  readonly key: string | null;
  readonly method: HttpMethod;
  readonly path: string;
  readonly names: HeaderNames;
  /** Run-relative monotonic ms. */
  readonly now: () => number;
}

export interface CaptureTiming {
  readonly id: number;
  readonly edge: string;
  readonly intendedAt: number;
  readonly sentAt: number;
  readonly sentWall: number;
}

type Headers = Record<string, string | string[] | undefined>;

const EXCERPT_BYTES = 512;
const NONE: Headers = {};

function single(headers: Headers, name: string): string | null {
  const v = headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

export class ResponseCapture<Owner> implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | null = null;
  #status: number | null = null;
  #headersAt: number | null = null;
  #headers: Headers = NONE;
  #bytes = 0;
  #excerpt: Buffer[] | null = null;
  #done = false;

  constructor(
    readonly owner: Owner,
    private readonly tags: CaptureTags,
    private readonly timing: CaptureTiming,
    private readonly onDone: (capture: ResponseCapture<Owner>, observation: Observation) => void,
  ) {}

  /** Abandon the request (the phase ended or the run was interrupted); it reports as an error. */
  abort(reason: string): void {
    this.#controller?.abort(new Error(reason));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Headers): void {
    this.#status = statusCode;
    this.#headersAt = this.tags.now();
    this.#headers = headers;
    // Bodies of admitted reads are not needed; a rejection's first bytes are kept for readers.
    if (statusCode < 200 || statusCode >= 300) this.#excerpt = [];
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#excerpt && this.#bytes < EXCERPT_BYTES) this.#excerpt.push(chunk);
    this.#bytes += chunk.length;
  }

  onResponseEnd(): void {
    this.#finish(null);
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.#status = null;
    this.#finish(transportError(error));
  }

  #finish(error: ObservationError | null): void {
    if (this.#done) return;
    this.#done = true;
    const { tags, timing } = this;
    const h = this.#headers;
    const names = tags.names;
    this.onDone(this, {
      id: timing.id,
      check: tags.check,
      phase: tags.phase,
      tier: tags.tier,
      org: tags.org,
      key: tags.key,
      edge: timing.edge,
      method: tags.method,
      path: tags.path,
      intendedAt: timing.intendedAt,
      sentAt: timing.sentAt,
      headersAt: this.#headersAt,
      doneAt: tags.now(),
      sentWall: timing.sentWall,
      status: this.#status,
      rateLimit: {
        limit: headerValue(h[names.limit]),
        remaining: headerValue(h[names.remaining]),
        reset: headerValue(h[names.reset]),
        retryAfter: headerValue(h[names.retryAfter]),
      },
      date: single(h, 'date'),
      edgeNode: single(h, names.edgeNode),
      contentType: single(h, 'content-type'),
      bodyBytes: this.#bytes,
      bodyExcerpt: this.#excerpt ? Buffer.concat(this.#excerpt).toString('utf8').slice(0, EXCERPT_BYTES) : '',
      body: null,
      error,
    });
  }
}

/** undici's failures as the stable codes observations use. */
export function transportError(error: Error): ObservationError {
  const raw = (error as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : 'REQUEST_FAILED';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { code: 'TIMEOUT', message: error.message };
  if (code === 'UND_ERR_SOCKET') return { code: 'ECONNRESET', message: error.message };
  if (code === 'UND_ERR_ABORTED') return { code: 'INTERRUPTED', message: error.message };
  return { code: code.replace(/^UND_ERR_/, ''), message: error.message };
}
