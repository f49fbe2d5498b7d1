/**
 * One response under load, captured as an Observation: a LoadPool handler (no response stream, no
 * object of all the headers, no per-request closures) that takes the status and the few headers an
 * Observation keeps, counts the body's bytes and keeps the first bytes of a rejection's body for
 * readers. The sustained-load driver makes one per request; with the Observation it is the only
 * per-request allocation of ours.
 */
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';
import { HeaderPicker } from './header-picker.ts';
import type { LoadHandler } from './load-pool.ts';
import { headerValue, type Observation, type ObservationError, type RateLimitHeaders } from './observation.ts';
import { rateLimitHeadersOf, SPEC_READER, type RateLimitReader } from './rate-limit-reading.ts';
import type { CheckTag, LoadPhaseName } from './tags.ts';

/** The headers an Observation keeps beside the rate-limit fields, in the first slots. */
const DATE = 0;
const CONTENT_TYPE = 1;
const EDGE_NODE = 2;
/** The first slot of the rate-limit fields. */
const RATE_LIMIT = 3;

/** Picked header values, in slot order. */
type PickedValues = readonly (string | null)[];

/** Which headers a load response's bytes are searched for, and how its rate-limit fields are read from them. */
export interface ResponseFields {
  readonly picker: HeaderPicker;
  readonly rateLimitOf: (values: PickedValues) => RateLimitHeaders;
}

/**
 * Under §8's triple the values are the figures, read in place as they always were; under another
 * declared dialect its own fields and Retry-After are picked and read by the reading every
 * Observation gets (rateLimitHeadersOf), so both drivers record the same figures for one response.
 */
export function responseFields(names: HeaderNames, reader: RateLimitReader = SPEC_READER): ResponseFields {
  const own = ['date', 'content-type', names.edgeNode];
  if (reader.dialect === 'x-ratelimit') {
    return {
      picker: new HeaderPicker([...own, names.limit, names.remaining, names.reset, names.retryAfter]),
      rateLimitOf: (h) => ({
        limit: headerValue(h[RATE_LIMIT]),
        remaining: headerValue(h[RATE_LIMIT + 1]),
        reset: headerValue(h[RATE_LIMIT + 2]),
        retryAfter: headerValue(h[RATE_LIMIT + 3]),
      }),
    };
  }
  // The picked fields by lower-case name, as rateLimitHeadersOf reads a response's headers.
  const read: HeaderNames = { ...names, retryAfter: names.retryAfter.toLowerCase() };
  const fields = [...RATE_LIMIT_DIALECTS[reader.dialect].fields, read.retryAfter];
  return {
    picker: new HeaderPicker([...own, ...fields]),
    rateLimitOf: (h) => {
      const received: Record<string, string> = {};
      fields.forEach((field, i) => {
        const value = h[RATE_LIMIT + i];
        if (value !== null && value !== undefined) received[field] = value;
      });
      return rateLimitHeadersOf(received, read, reader);
    },
  };
}

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
  /** Run-relative monotonic ms. */
  readonly now: () => number;
  /** The response's rate-limit fields from the values the picker found (ResponseFields). */
  readonly rateLimitOf: ResponseFields['rateLimitOf'];
}

/** An excerpt's length in characters, and the most bytes that many UTF-8 characters take. */
const EXCERPT_CHARS = 512;
const EXCERPT_BYTES = EXCERPT_CHARS * 4;
/** No header received (a request that failed before its response's head): every slot reads null. */
const NO_HEADERS: PickedValues = [];

export class ResponseCapture<Owner> implements LoadHandler {
  #status: number | null = null;
  #headersAt: number | null = null;
  #headers: PickedValues = NO_HEADERS;
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

  onHeaders(status: number, values: readonly (string | null)[]): void {
    this.#status = status;
    this.#headersAt = this.tags.now();
    this.#headers = values;
    // Bodies of admitted reads are not needed; a rejection's first bytes are kept for readers.
    if (status < 200 || status >= 300) this.#excerpt = [];
  }

  onData(chunk: Buffer): void {
    // The chunk is the socket's, valid for this call only: what is kept is copied.
    if (this.#excerpt && this.#bytes < EXCERPT_BYTES)
      this.#excerpt.push(Buffer.from(chunk.subarray(0, EXCERPT_BYTES - this.#bytes)));
    this.#bytes += chunk.length;
  }

  onComplete(): void {
    this.#finish(null);
  }

  onError(error: ObservationError): void {
    this.#status = null;
    this.#finish(error);
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
      rateLimit: tags.rateLimitOf(h),
      date: h[DATE] ?? null,
      edgeNode: h[EDGE_NODE] ?? null,
      contentType: h[CONTENT_TYPE] ?? null,
      bodyBytes: this.#bytes,
      bodyExcerpt: this.#excerpt ? Buffer.concat(this.#excerpt).toString('utf8').slice(0, EXCERPT_CHARS) : '',
      body: null,
      error,
    });
  }
}
