/**
 * The precise probe: one request, one Observation. One undici Pool per edge (keep-alive never pins
 * probes for one edge onto another), pipelining 1, no retries, a timeout on every request.
 */
import { setMaxListeners } from 'node:events';
import { errors as undiciErrors, type Pool } from 'undici';
import { measuringPool } from './pool.ts';
import type { Contract, HttpMethod, QuotaClass, TierName } from '../contract/types.ts';
import { redactKey } from '../contract/keys.ts';
import type { Clock } from '../util/io.ts';
import type { Observation, ObservationError } from './observation.ts';
import { rateLimitHeadersOf, type RateLimitReader } from './rate-limit-reading.ts';
import type { ObservationRecorder } from './recorder.ts';
import type { CheckTag, PhaseTag } from './tags.ts';
import { isLoopbackUrl } from '../util/loopback.ts';
import { keepsBody, shapeOf } from './body-shape.ts';
import { endpointById, quotaClassOfPath } from '../contract/lookup.ts';
import { messageOf, TiergateError } from '../util/errors.ts';
import { NetworkMeter } from './network.ts';

export interface Edge {
  readonly label: string;
  readonly url: string;
}

export interface ProbeRequest {
  readonly method: HttpMethod;
  readonly path: string;
  /** The full key to send; only its redacted form is ever recorded. */
  readonly key: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Keep the answer's body whatever the policy: it describes something the run created itself. */
  readonly keepAnswer?: boolean;
  /** An upload: how many resumes its body carries (recorded, for the run's footprint). */
  readonly resumes?: number;
  /**
   * Told the answer's header values as received, before the observation is recorded: for the few
   * requests that read every rate-limit dialect (the profile, doctor); observations keep only the
   * declared dialect's fields.
   */
  readonly onHeaders?: (headers: Readonly<Record<string, string | readonly string[] | undefined>>) => void;
}

export interface ProbeTags {
  readonly check: CheckTag;
  readonly phase: PhaseTag;
  readonly tier: TierName | null;
  readonly org: string | null;
  /** Open-model drivers: when the request was due (monotonic, run epoch). */
  readonly intendedAt?: number;
}

export interface ProberOptions {
  readonly edges: readonly Edge[];
  readonly contract: Contract;
  readonly clock: Clock;
  /** Monotonic time of the run's start: observation times are relative to it. */
  readonly epoch: number;
  readonly recorder: ObservationRecorder;
  readonly timeoutMs: number;
  /** Connections per edge; bursts need at least their batch size. */
  readonly connectionsPerEdge: number;
  readonly signal: AbortSignal;
  /** Permit non-loopback targets (external deployments named in a config). Load never does. */
  readonly allowRemote?: boolean;
  /** Keep every body as it came (`--keep-bodies`), data reads included; else their shape only. */
  readonly keepBodies?: boolean;
  /** Told the round trip of every request without a body sent while few others were in flight on its edge (QUIET_IN_FLIGHT); a meter of its own where none is given. */
  readonly network?: NetworkMeter;
  /** PEM of the CA(s) to trust besides Node's bundled roots (config `target.ca`); absent: Node's defaults. */
  readonly ca?: string;
  /** How rate-limit fields are read: the dialect the run declares (config `headers`, `run --declare-headers`) and its policies per quota class; absent: §8's X-RateLimit-*. */
  readonly rateLimitReader?: RateLimitReader;
}

const BODY_KEEP_BYTES = 64 * 1024;
/**
 * A request sent while fewer than this many others were in flight on its edge times the network:
 * a few lanes' series side by side, yes; a burst's answers, which wait behind each other on the
 * server, no (that is the server's work).
 */
const QUIET_IN_FLIGHT = 4;
/** Requests that open connections (the preflight's, a warm-up): their time holds a handshake, not a round trip. */
const OPENING: ReadonlySet<PhaseTag> = new Set<PhaseTag>(['reach', 'warm-up']);
const EXCERPT_CHARS = 512;
const JSON_PARSE_MAX_BYTES = 16 * 1024;

export class HttpProber {
  readonly #pools = new Map<string, Pool>();
  readonly #options: ProberOptions;
  /** The scope list's path: its body is kept, as SCOPE-LIST reads it (and it holds no customer data). */
  readonly #scopeListPath: string;
  /** Requests in flight per edge: a round trip is the network's only for one sent into a quiet edge. */
  readonly #inFlight = new Map<string, number>();
  readonly #network: NetworkMeter;
  /** Connections opened per edge so far: a request answered while one opened may have paid its handshake. */
  readonly #connected = new Map<string, number>();
  /** HEAD /recruiter/bootstrap without a key: the cheapest request, counted for no organization. */
  readonly #keylessHead: ProbeRequest;
  /** Per tier, the policy each quota class was learned to draw on (learnPolicies). */
  readonly #learnedPolicies = new Map<TierName, Readonly<Partial<Record<QuotaClass, string>>>>();

  constructor(options: ProberOptions) {
    this.#options = options;
    this.#scopeListPath = endpointById(options.contract, 'scope-list').path;
    this.#network = options.network ?? new NetworkMeter();
    const head = endpointById(options.contract, 'bootstrap-head');
    this.#keylessHead = { method: head.method, path: head.path, key: null };
    // Each request in flight listens on the run's signal (requestAbort); thousands may be in flight.
    setMaxListeners(0, options.signal);
    for (const edge of options.edges) {
      if (!options.allowRemote && !isLoopbackUrl(edge.url)) {
        throw new TiergateError('TG_NOT_LOOPBACK', `edge ${edge.label} (${edge.url}) is not a loopback address`);
      }
      const pool = measuringPool(edge.url, options.connectionsPerEdge, options.timeoutMs, { ca: options.ca });
      pool.on('connect', () => this.#connected.set(edge.label, (this.#connected.get(edge.label) ?? 0) + 1));
      this.#pools.set(edge.label, pool);
    }
  }

  get edges(): readonly Edge[] {
    return this.#options.edges;
  }

  /** The private CA its pools trust beside the public roots, where one is given: the load driver trusts it too. */
  get ca(): string | undefined {
    return this.#options.ca;
  }

  /** The round trips this prober measured, and the margins they call for. */
  get network(): NetworkMeter {
    return this.#network;
  }

  /**
   * Reads a tier's later answers by the policies its profile learned each quota class draws on
   * (profile/policy-classes.ts), where the declared reader names none for the class; replaces what
   * was learned for the tier before.
   */
  learnPolicies(tier: TierName, policies: Readonly<Partial<Record<QuotaClass, string>>>): void {
    this.#learnedPolicies.set(tier, { ...policies });
  }

  /** What learnPolicies was told for `tier`. */
  learnedPolicies(tier: TierName): Readonly<Partial<Record<QuotaClass, string>>> {
    return this.#learnedPolicies.get(tier) ?? {};
  }

  /** Requests one edge can have in flight without queueing. */
  get connectionsPerEdge(): number {
    return this.#options.connectionsPerEdge;
  }

  /** Monotonic ms since the run's epoch. */
  now(): number {
    return this.#options.clock.monotonic() - this.#options.epoch;
  }

  /**
   * Opens up to `connections` connections to `edge` (never more than the prober holds per edge), so
   * that the next series pays no handshake inside its measurement: that many keyless HEAD
   * /recruiter/bootstrap at once, which a server answers 401 and counts for no organization (§5.1).
   * They are recorded like every request, tagged CONNECT, which no check reads.
   */
  async warm(edge: Edge, connections: number): Promise<Observation[]> {
    const count = Math.max(0, Math.min(connections, this.#options.connectionsPerEdge));
    const tags: ProbeTags = { check: 'CONNECT', phase: 'warm-up', tier: null, org: null };
    const answers = await Promise.all(Array.from({ length: count }, () => this.send(edge, this.#keylessHead, tags)));
    // undici lends an answered connection again only a turn of the event loop later (in case the server
    // closes it anyway): a request sent before that opens another connection.
    await new Promise((resolve) => setImmediate(resolve));
    return answers;
  }

  /** One request, one observation; `timeoutMs` shortens the prober's own timeout for this request. */
  async send(
    edge: Edge,
    request: ProbeRequest,
    tags: ProbeTags,
    timeoutMs = this.#options.timeoutMs,
  ): Promise<Observation> {
    const { contract, clock, recorder } = this.#options;
    const pool = this.#pools.get(edge.label);
    if (!pool) throw new Error(`unknown edge ${edge.label}`);
    const headers: Record<string, string> = { ...request.headers };
    if (request.key !== null) headers[contract.headers.apiKey] = request.key;
    const id = recorder.nextId();
    const abort = requestAbort(timeoutMs, this.#options.signal);
    const timed = this.#timing(edge, request, tags);
    const sentWall = clock.now();
    const sentAt = this.now();
    let headersAt: number | null = null;
    let status: number | null = null;
    let responseHeaders: ResponseHeaders = {};
    let bodyText = '';
    let bodyBytes = 0;
    let error: ObservationError | null = null;
    try {
      const response = await pool.request({
        method: request.method,
        path: request.path,
        headers,
        body: request.body ?? null,
        signal: abort.signal,
        // undici closes the connection after every HEAD (in case a server sends a body anyway); a HEAD
        // has none (RFC 9110 §9.3.2), and a connect per probe would widen every revocation bracket.
        reset: false,
      });
      headersAt = this.now();
      status = response.statusCode;
      responseHeaders = response.headers;
      request.onHeaders?.(responseHeaders);
      bodyText = redactEcho(await readBody(response.body, (bytes) => (bodyBytes = bytes)), request.key);
    } catch (caught) {
      error = describeError(caught, abort.timedOut(), this.#options.signal.aborted);
    } finally {
      abort.release();
      timed.answered(headersAt === null ? null : headersAt - sentAt);
    }
    const doneAt = this.now();
    const contentType = singleHeader(responseHeaders, 'content-type');
    const kept = this.#keepsBody(status, request);
    const observation: Observation = {
      id,
      check: tags.check,
      phase: tags.phase,
      tier: tags.tier,
      org: tags.org,
      key: request.key === null ? null : redactKey(request.key),
      edge: edge.label,
      method: request.method,
      path: request.path,
      intendedAt: tags.intendedAt ?? null,
      sentAt,
      headersAt,
      doneAt,
      sentWall,
      status,
      rateLimit: this.#rateLimitOf(responseHeaders, request, tags.tier),
      date: singleHeader(responseHeaders, 'date'),
      edgeNode: singleHeader(responseHeaders, contract.headers.edgeNode),
      contentType,
      bodyBytes,
      bodyExcerpt: kept ? bodyText.slice(0, EXCERPT_CHARS) : '',
      body: kept ? parseJsonBody(contentType, bodyText, bodyBytes) : null,
      ...(kept ? {} : { bodyShape: shapeOf(contentType, bodyText, bodyBytes, JSON_PARSE_MAX_BYTES) }),
      ...(request.resumes === undefined ? {} : { resumes: request.resumes }),
      error,
    };
    recorder.record(observation);
    return observation;
  }

  /**
   * Counts a request in flight on its edge until `answered`, which tells the network meter its round
   * trip where it times the network: no body to send, few others in flight, and no connection opened
   * to the edge meanwhile (its TCP and TLS handshakes would be in the time).
   */
  #timing(edge: Edge, request: ProbeRequest, tags: ProbeTags): { answered(roundTripMs: number | null): void } {
    const inFlight = this.#inFlight.get(edge.label) ?? 0;
    const connected = this.#connected.get(edge.label) ?? 0;
    const timesNetwork = inFlight < QUIET_IN_FLIGHT && request.body === undefined && !OPENING.has(tags.phase);
    this.#inFlight.set(edge.label, inFlight + 1);
    return {
      answered: (roundTripMs) => {
        this.#inFlight.set(edge.label, (this.#inFlight.get(edge.label) ?? 1) - 1);
        const noHandshake = (this.#connected.get(edge.label) ?? 0) === connected;
        if (timesNetwork && noHandshake && roundTripMs !== null) this.#network.roundTrip(edge.label, roundTripMs);
      },
    };
  }

  /**
   * An answer's rate-limit fields, read as the run declares: under a dialect whose policies are
   * named, the quota of the request's class (its endpoint's, by path) is the one read: the policy the
   * config names for the class, else the one learned for the tier (learnPolicies), else the first reported.
   */
  #rateLimitOf(headers: ResponseHeaders, request: ProbeRequest, tier: TierName | null): Observation['rateLimit'] {
    const { contract, rateLimitReader: reader } = this.#options;
    if (reader === undefined || reader.dialect === 'x-ratelimit') return rateLimitHeadersOf(headers, contract.headers);
    const learned = tier === null ? {} : this.learnedPolicies(tier);
    const policies = { ...learned, ...reader.policies };
    return rateLimitHeadersOf(
      headers,
      contract.headers,
      { ...reader, policies },
      quotaClassOfPath(contract, request.path),
    );
  }

  /** Whether an answer's body is kept as it came (else only its shape is recorded). */
  #keepsBody(status: number | null, request: ProbeRequest): boolean {
    return keepsBody(
      status,
      request.path,
      this.#options.keepBodies === true || request.keepAnswer === true,
      this.#scopeListPath,
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((pool) => pool.destroy()));
  }
}

/**
 * One request's abort signal: its timeout, or the run's Ctrl-C. A controller, a timer and a listener
 * released when the request ends cost far less than AbortSignal.timeout + AbortSignal.any (weak
 * references the garbage collector must sweep), at a revocation probe every few ms per edge.
 */
function requestAbort(
  timeoutMs: number,
  run: AbortSignal,
): { readonly signal: AbortSignal; timedOut(): boolean; release(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  const interrupt = () => controller.abort(run.reason);
  if (run.aborted) interrupt();
  else run.addEventListener('abort', interrupt, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    release: () => {
      clearTimeout(timer);
      run.removeEventListener('abort', interrupt);
    },
  };
}

type ResponseHeaders = Record<string, string | string[] | undefined>;

/** An answer's body as text, its first BODY_KEEP_BYTES; `counted` is told the bytes read so far, so a body cut short still counts. */
async function readBody(body: AsyncIterable<unknown>, counted: (bytes: number) => void): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    counted(bytes);
    if (bytes <= BODY_KEEP_BYTES) chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A target echoing the key it was sent must not put it in the record (whatever its shape). */
function redactEcho(bodyText: string, key: string | null): string {
  return key !== null && key.length > 0 ? bodyText.split(key).join(redactKey(key)) : bodyText;
}

/** One response header as a single string (repeated values joined), null when absent. */
function singleHeader(headers: ResponseHeaders, name: string): string | null {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

function parseJsonBody(contentType: string | null, text: string, bytes: number): unknown {
  if (!contentType?.includes('json') || bytes > JSON_PARSE_MAX_BYTES || text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Map undici/socket failures to stable codes a reader can act on. */
function describeError(caught: unknown, timedOut: boolean, interrupted: boolean): ObservationError {
  const message = messageOf(caught);
  if (interrupted) return { code: 'INTERRUPTED', message: 'run interrupted before the response arrived' };
  if (
    timedOut ||
    caught instanceof undiciErrors.HeadersTimeoutError ||
    caught instanceof undiciErrors.BodyTimeoutError
  ) {
    return { code: 'TIMEOUT', message };
  }
  if (caught instanceof undiciErrors.ConnectTimeoutError) return { code: 'CONNECT_TIMEOUT', message };
  const code = (caught as { code?: unknown; cause?: { code?: unknown } }).code;
  const causeCode = (caught as { cause?: { code?: unknown } }).cause?.code;
  const raw = typeof causeCode === 'string' ? causeCode : typeof code === 'string' ? code : 'REQUEST_FAILED';
  if (raw.startsWith('HPE_')) return { code: 'MALFORMED_RESPONSE', message: `${raw}: ${message}` };
  if (raw === 'UND_ERR_SOCKET') return { code: 'ECONNRESET', message };
  return { code: raw.replace(/^UND_ERR_/, ''), message };
}
