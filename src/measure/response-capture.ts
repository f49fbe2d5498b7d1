/**
 * One response under load, captured as an Observation: a LoadPool handler (no response stream, no
 * object of all the headers, no per-request closures) that takes the status and the few headers an
 * Observation keeps, counts the body's bytes and keeps the first bytes of a rejection's body for
 * readers. The sustained-load driver makes one per request; with the Observation it is the only
 * per-request allocation of ours.
 */
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { HeaderPicker } from './header-picker.ts';
import type { LoadHandler } from './load-pool.ts';
import { headerValue, type Observation, type ObservationError } from './observation.ts';
import type { CheckTag, LoadPhaseName } from './tags.ts';

/** The response headers an Observation keeps, in pick order: the contract's names, or the header's own. */
const KEPT = ['limit', 'remaining', 'reset', 'retryAfter', 'date', 'edgeNode', 'contentType'] as const;
const OWN_NAMES = { date: 'date', contentType: 'content-type' } as const;
const SLOT = Object.fromEntries(KEPT.map((header, slot) => [header, slot])) as Record<(typeof KEPT)[number], number>;

export function responseHeaderPicker(names: HeaderNames): HeaderPicker {
  return new HeaderPicker(
    KEPT.map((header) => (header === 'date' || header === 'contentType' ? OWN_NAMES[header] : names[header])),
  );
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
}

/** An excerpt's length in characters, and the most bytes that many UTF-8 characters take. */
const EXCERPT_CHARS = 512;
const EXCERPT_BYTES = EXCERPT_CHARS * 4;
const NO_HEADERS: readonly (string | null)[] = KEPT.map(() => null);

export class ResponseCapture<Owner> implements LoadHandler {
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
      rateLimit: {
        limit: headerValue(h[SLOT.limit]),
        remaining: headerValue(h[SLOT.remaining]),
        reset: headerValue(h[SLOT.reset]),
        retryAfter: headerValue(h[SLOT.retryAfter]),
      },
      date: h[SLOT.date] ?? null,
      edgeNode: h[SLOT.edgeNode] ?? null,
      contentType: h[SLOT.contentType] ?? null,
      bodyBytes: this.#bytes,
      bodyExcerpt: this.#excerpt ? Buffer.concat(this.#excerpt).toString('utf8').slice(0, EXCERPT_CHARS) : '',
      body: null,
      error,
    });
  }
}
