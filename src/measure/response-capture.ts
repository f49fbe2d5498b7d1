/**
 * One response under load, captured as an Observation: an undici dispatch handler on the raw-header
 * interface (onConnect/onHeaders/onData/onComplete/onError): no response stream, no object of all
 * the headers, no per-request closures. It takes the status and the few headers an Observation
 * keeps straight from the raw buffers, counts the body's bytes and keeps the first bytes of a
 * rejection's body for readers. The sustained-load driver makes one per request; with the
 * Observation it is the only per-request allocation of ours.
 */
import type { Dispatcher } from 'undici';
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { headerValue, type Observation, type ObservationError } from './observation.ts';
import { RawHeaderPicker } from './raw-headers.ts';
import type { CheckTag, LoadPhaseName } from './tags.ts';

/** The response headers an Observation keeps, in pick order (the slots below). */
export function responseHeaderPicker(names: HeaderNames): RawHeaderPicker {
  return new RawHeaderPicker([names.limit, names.remaining, names.reset, names.retryAfter, 'date', names.edgeNode, 'content-type']);
}
const LIMIT = 0;
const REMAINING = 1;
const RESET = 2;
const RETRY_AFTER = 3;
const DATE = 4;
const EDGE_NODE = 5;
const CONTENT_TYPE = 6;

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
  /** responseHeaderPicker of the contract's header names. */
  readonly headers: RawHeaderPicker;
  /** Run-relative monotonic ms. */
  readonly now: () => number;
}

const EXCERPT_BYTES = 512;
const NO_HEADERS: readonly (string | null)[] = [null, null, null, null, null, null, null];

export class ResponseCapture<Owner> implements Dispatcher.DispatchHandler {
  #abort: ((error: Error) => void) | null = null;
  #status: number | null = null;
  #headersAt: number | null = null;
  #headers: readonly (string | null)[] = NO_HEADERS;
  #bytes = 0;
  #excerpt: Buffer[] | null = null;
  #done = false;

  constructor(
    readonly owner: Owner,
    private readonly tags: CaptureTags,
    private readonly id: number,
    private readonly edge: string,
    private readonly intendedAt: number,
    private readonly sentAt: number,
    private readonly sentWall: number,
    private readonly onDone: (capture: ResponseCapture<Owner>, observation: Observation) => void,
  ) {}

  /** Abandon the request (the phase ended or the run was interrupted); it reports as an error. */
  abort(reason: string): void {
    this.#abort?.(new Error(reason));
  }

  onConnect(abort: (error: Error) => void): void {
    this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.#status = statusCode;
    this.#headersAt = this.tags.now();
    this.#headers = this.tags.headers.pick(rawHeaders);
    // Bodies of admitted reads are not needed; a rejection's first bytes are kept for readers.
    if (statusCode < 200 || statusCode >= 300) this.#excerpt = [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#excerpt && this.#bytes < EXCERPT_BYTES) this.#excerpt.push(chunk);
    this.#bytes += chunk.length;
    return true;
  }

  onComplete(): void {
    this.#finish(null);
  }

  onError(error: Error): void {
    this.#status = null;
    this.#finish(transportError(error));
  }

  #finish(error: ObservationError | null): void {
    if (this.#done) return;
    this.#done = true;
    const { tags } = this;
    const h = this.#headers;
    this.onDone(this, {
      id: this.id,
      check: tags.check,
      phase: tags.phase,
      tier: tags.tier,
      org: tags.org,
      key: tags.key,
      edge: this.edge,
      method: tags.method,
      path: tags.path,
      intendedAt: this.intendedAt,
      sentAt: this.sentAt,
      headersAt: this.#headersAt,
      doneAt: tags.now(),
      sentWall: this.sentWall,
      status: this.#status,
      rateLimit: {
        limit: headerValue(h[LIMIT]),
        remaining: headerValue(h[REMAINING]),
        reset: headerValue(h[RESET]),
        retryAfter: headerValue(h[RETRY_AFTER]),
      },
      date: h[DATE] ?? null,
      edgeNode: h[EDGE_NODE] ?? null,
      contentType: h[CONTENT_TYPE] ?? null,
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
