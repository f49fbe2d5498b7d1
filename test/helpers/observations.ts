/**
 * Realistic Observations for verdict tests, so a test reads like the scenario it tests:
 *
 *   obs({ status: 429, remaining: 0, reset: T0 + 60, date: httpDate(T0 + 12) })
 *   const { obs, window } = sequentialQuota({ limit: 60, admitted: 59 })   // a 429 one request early
 *
 * Header fields take a number (sent as its digits), a string (sent verbatim, parsed as the prober
 * parses it), or null (absent); left undefined they get what a correct server would send. Ids and
 * the monotonic clock advance with every observation made; `resetObservations()` rewinds them.
 */
import type { WindowContext } from '../../src/measure/window.ts';
import type { HttpMethod, TierName } from '../../src/contract/types.ts';
import { headerValue, type Observation, type ObservationError } from '../../src/measure/observation.ts';
import type { CheckTag, PhaseTag } from '../../src/measure/tags.ts';

/** Mon, 24 Nov 2025 16:00:00 GMT: a multiple of 60, so a window boundary for 60 s windows. */
export const T0 = 1_764_000_000;
/** Default client wall clock at monotonic 0, epoch ms. */
export const CLIENT_WALL_AT_ZERO = T0 * 1000 + 1_000;

/** A header as a test states it: digits, verbatim text, or absent. */
export type HeaderInit = number | string | null;

export interface ObsInit {
  readonly id?: number;
  readonly check?: CheckTag;
  readonly phase?: PhaseTag;
  readonly tier?: TierName | null;
  readonly org?: string | null;
  readonly key?: string | null;
  readonly edge?: string;
  readonly method?: HttpMethod;
  readonly path?: string;
  readonly intendedAt?: number | null;
  /** Monotonic ms; default just after the previous observation finished. */
  readonly sentAt?: number;
  /** Round trip to the response headers, ms (default 4). */
  readonly latencyMs?: number;
  readonly headersAt?: number | null;
  readonly doneAt?: number;
  /** Client wall clock at send, epoch ms; default CLIENT_WALL_AT_ZERO + sentAt. */
  readonly sentWall?: number;
  /** Server clock minus client clock, ms, for the default Date (default 0). */
  readonly clockOffsetMs?: number;
  /** Server clock when it answered, epoch ms: sets Date. Default: client wall at mid-flight + offset. */
  readonly serverMs?: number;
  /** null = no response (transport failure). Default 200. */
  readonly status?: number | null;
  readonly limit?: HeaderInit;
  readonly remaining?: HeaderInit;
  readonly reset?: HeaderInit;
  readonly retryAfter?: HeaderInit;
  /** Raw Date header; null = absent. */
  readonly date?: string | null;
  readonly edgeNode?: string | null;
  readonly contentType?: string | null;
  /** JSON body (serialised for the excerpt); `undefined` = the default for the status. */
  readonly body?: unknown;
  /** A raw, non-JSON body (sets body to null). */
  readonly bodyText?: string;
  readonly bodyBytes?: number;
  /** An error code ('TIMEOUT') or a full error; default ECONNRESET when status is null. */
  readonly error?: ObservationError | string | null;
}

let nextId = 1;
let clock = 0;

/** Rewind ids and the monotonic clock (call in beforeEach for literal-id assertions). */
export function resetObservations(): void {
  nextId = 1;
  clock = 0;
}

/** "Mon, 24 Nov 2025 16:00:00 GMT" for epoch seconds, as servers send it (floored to the second). */
export function httpDate(epochS: number): string {
  return new Date(Math.floor(epochS) * 1000).toUTCString();
}

/** The end of the fixed window (length `windowS`) containing server time `serverS`. */
export function windowEndAt(serverS: number, windowS = 60): number {
  return (Math.floor(serverS / windowS) + 1) * windowS;
}

/** §7 body, as a correct server sends it. */
export function rateLimitBody(
  retryAfterSeconds: number,
  message = 'Rate limit exceeded; retry later',
): Record<string, unknown> {
  return { status: 'error', code: 'RATE_LIMIT_EXCEEDED', message, retry_after_seconds: retryAfterSeconds };
}

export function obs(init: ObsInit = {}): Observation {
  const id = init.id ?? nextId;
  nextId = Math.max(nextId, id + 1);
  const status = init.status === undefined ? 200 : init.status;
  const responded = status !== null;
  const latency = init.latencyMs ?? 4;
  const sentAt = init.sentAt ?? clock + 1;
  const headersAt = init.headersAt !== undefined ? init.headersAt : responded ? sentAt + latency : null;
  const doneAt = init.doneAt ?? (headersAt !== null ? headersAt + 1 : sentAt + latency);
  clock = Math.max(clock, doneAt);
  const sentWall = init.sentWall ?? CLIENT_WALL_AT_ZERO + sentAt;
  const serverMs = init.serverMs ?? sentWall + latency / 2 + (init.clockOffsetMs ?? 0);
  const serverS = Math.floor(serverMs / 1000);
  const method = init.method ?? 'GET';

  const defaultReset = windowEndAt(serverS);
  const limit = header(init.limit, responded ? 60 : null);
  const remaining = header(init.remaining, responded ? (status === 429 ? 0 : 59) : null);
  const reset = header(init.reset, responded ? defaultReset : null);
  const retryAfter = header(init.retryAfter, status === 429 ? Math.max(1, defaultReset - serverS) : null);
  const date = init.date !== undefined ? init.date : responded ? httpDate(serverS) : null;

  let body: unknown = null;
  let text = '';
  if (init.bodyText !== undefined) {
    text = init.bodyText;
  } else if (init.body !== undefined) {
    body = init.body;
    text = body === null ? '' : JSON.stringify(body);
  } else if (responded && method !== 'HEAD') {
    body = defaultBody(status, retryAfter.value);
    text = body === null ? '' : JSON.stringify(body);
  }
  const error: ObservationError | null =
    init.error === undefined
      ? responded
        ? null
        : { code: 'ECONNRESET', message: 'socket hang up' }
      : typeof init.error === 'string'
        ? { code: init.error, message: init.error }
        : init.error;

  return {
    id,
    check: init.check ?? 'QUOTA-READ',
    phase: init.phase ?? 'sequential',
    tier: init.tier === undefined ? 'starter' : init.tier,
    org: init.org === undefined ? 'starter-a' : init.org,
    key: init.key === undefined ? 'xh_test_…a1B2' : init.key,
    edge: init.edge ?? 'edge-0',
    method,
    path: init.path ?? (method === 'HEAD' ? '/recruiter/bootstrap' : '/recruiter/jobs'),
    intendedAt: init.intendedAt ?? null,
    sentAt,
    headersAt,
    doneAt,
    sentWall,
    status,
    rateLimit: { limit, remaining, reset, retryAfter },
    date,
    edgeNode: init.edgeNode !== undefined ? init.edgeNode : responded ? 'edge-0' : null,
    contentType:
      init.contentType !== undefined
        ? init.contentType
        : body !== null
          ? 'application/json; charset=utf-8'
          : text
            ? 'text/plain'
            : null,
    bodyBytes: init.bodyBytes ?? Buffer.byteLength(text),
    bodyExcerpt: text.slice(0, 512),
    body,
    error,
  };
}

function header(given: HeaderInit | undefined, fallback: number | null) {
  const raw = given === undefined ? fallback : given;
  return headerValue(raw === null ? null : String(raw));
}

function defaultBody(status: number, retryAfter: number | null): unknown {
  if (status === 429) return rateLimitBody(retryAfter ?? 1);
  if (status >= 200 && status < 300) return { status: 'success', data: [] };
  if (status === 401) return { status: 'error', code: 'UNAUTHENTICATED', message: 'missing or invalid API key' };
  if (status === 403) return { status: 'error', code: 'FORBIDDEN', message: 'the key lacks the required scope' };
  return { status: 'error', code: 'ERROR', message: `status ${status}` };
}

/** How a server renders X-RateLimit-Reset: correctly, or with one of the classic mistakes. */
export type ResetStyle = 'epoch' | 'millis' | 'delta';

export interface SequenceOptions {
  /** The Limit the server announces, and (by default) how many it admits per window. */
  readonly limit: number;
  /** Requests admitted per window before the 429s (faults: limit − 1 early, limit + 1 late). */
  readonly admitted?: number;
  /** Requests sent in all; default admitted + 1. */
  readonly sent?: number;
  readonly windowS?: number;
  /** Server clock at the first send, epoch ms; default T0 + 50 ms (50 ms into a window, for W dividing T0). */
  readonly serverStartMs?: number;
  /** Server clock minus client clock, ms. */
  readonly clockOffsetMs?: number;
  /** Time between one response and the next send, ms. */
  readonly gapMs?: number;
  readonly latencyMs?: number;
  readonly resetStyle?: ResetStyle;
  /** Remaining on the i-th admitted request of a window (1-based); default limit − i, floored at 0. */
  readonly remainingAt?: (i: number) => HeaderInit;
  /** Last word on each request (1-based n): override any field. */
  readonly tweak?: (n: number, init: ObsInit) => ObsInit;
  readonly check?: CheckTag;
  readonly phase?: PhaseTag;
  readonly org?: string;
  readonly method?: HttpMethod;
  readonly path?: string;
}

export interface Sequence {
  readonly obs: Observation[];
  /** The window the harness learned before the first send (as awaitFreshWindow reports it). */
  readonly window: WindowContext;
  /** Window end (epoch s) of the first request. */
  readonly windowEnd: number;
}

/**
 * Sequential requests against a fixed-window server: admitted ones count Remaining down, the rest
 * get 429 with Remaining 0, the §7 body and Retry-After; the window rolls over (Reset advances,
 * the count restarts) when the server clock passes the window's end.
 */
export function sequentialQuota(options: SequenceOptions): Sequence {
  const W = options.windowS ?? 60;
  const admitPerWindow = options.admitted ?? options.limit;
  const sent = options.sent ?? admitPerWindow + 1;
  const serverStartMs = options.serverStartMs ?? T0 * 1000 + 50;
  const offset = options.clockOffsetMs ?? 0;
  const gap = options.gapMs ?? 1;
  const latency = options.latencyMs ?? 4;
  const start = clock + 20;
  let windowEnd = windowEndAt(serverStartMs / 1000, W);
  const firstWindowEnd = windowEnd;
  let used = 0;
  const out: Observation[] = [];
  for (let n = 1; n <= sent; n++) {
    const sentAt = start + (n - 1) * (latency + 1 + gap);
    const serverMs = serverStartMs + (sentAt - start) + latency / 2;
    if (serverMs >= windowEnd * 1000) {
      windowEnd = windowEndAt(serverMs / 1000, W);
      used = 0;
    }
    const serverS = Math.floor(serverMs / 1000);
    const admit = used < admitPerWindow;
    if (admit) used += 1;
    const resetValue =
      options.resetStyle === 'millis'
        ? windowEnd * 1000
        : options.resetStyle === 'delta'
          ? windowEnd - serverS
          : windowEnd;
    const base: ObsInit = {
      check: options.check ?? 'QUOTA-READ',
      phase: options.phase ?? 'sequential',
      org: options.org ?? 'starter-a',
      method: options.method ?? 'GET',
      path: options.path ?? '/recruiter/jobs',
      sentAt,
      latencyMs: latency,
      sentWall: serverStartMs - offset + (sentAt - start),
      serverMs,
      status: admit ? 200 : 429,
      limit: options.limit,
      remaining: admit ? (options.remainingAt?.(used) ?? Math.max(0, options.limit - used)) : 0,
      reset: resetValue,
      ...(admit
        ? {}
        : { retryAfter: Math.max(1, windowEnd - serverS), body: rateLimitBody(Math.max(1, windowEnd - serverS)) }),
    };
    out.push(obs(options.tweak ? options.tweak(n, base) : base));
  }
  return {
    obs: out,
    windowEnd: firstWindowEnd,
    window: {
      openedAt: start - 10,
      openedUncertaintyMs: 8,
      lengthMs: W * 1000,
      resetEpochS: firstWindowEnd,
      opensAtFirstRequest: false,
      prior: [],
      placeBy: 'reset',
    },
  };
}

export interface BurstOptions {
  readonly limit: number;
  /** Released together; default 2 × limit. */
  readonly sent?: number;
  /** 1-based request numbers (send order) the server admitted; default the first `limit` to arrive. */
  readonly admittedIndices?: readonly number[];
  /** 1-based request numbers that got no response. */
  readonly failures?: readonly number[];
  /** 1-based request number -> another status (e.g. 503). */
  readonly statuses?: Readonly<Record<number, number>>;
  readonly batchSize?: number;
  readonly windowS?: number;
  readonly clockOffsetMs?: number;
  readonly resetStyle?: ResetStyle;
}

/**
 * 2 × Limit requests released in batches (all of a batch at one instant); responses arrive out of
 * send order. The server admits `admittedIndices`, answers 429 to the rest.
 */
export function burstQuota(options: BurstOptions): Sequence {
  const W = options.windowS ?? 60;
  const sent = options.sent ?? 2 * options.limit;
  const batch = options.batchSize ?? 4;
  const start = clock + 20;
  const serverStartMs = T0 * 1000 + 50;
  const windowEnd = T0 + W;
  const arrival = (n: number) => ((n * 7919) % 13) + 3;
  const order = Array.from({ length: sent }, (_, i) => i + 1);
  const byArrival = [...order].sort(
    (a, b) => batchOf(a, batch) - batchOf(b, batch) || arrival(a) - arrival(b) || a - b,
  );
  const admitted = new Set(options.admittedIndices ?? byArrival.slice(0, options.limit));
  const failures = new Set(options.failures ?? []);
  let count = 0;
  const remainingOf = new Map<number, number>();
  for (const n of byArrival) if (admitted.has(n)) remainingOf.set(n, Math.max(0, options.limit - ++count));
  return {
    obs: order.map((n) => {
      const sentAt = start + batchOf(n, batch) * 20;
      const latency = arrival(n);
      const serverMs = serverStartMs + (sentAt - start) + latency / 2;
      const serverS = Math.floor(serverMs / 1000);
      const status = failures.has(n) ? null : (options.statuses?.[n] ?? (admitted.has(n) ? 200 : 429));
      const reset =
        options.resetStyle === 'millis'
          ? windowEnd * 1000
          : options.resetStyle === 'delta'
            ? windowEnd - serverS
            : windowEnd;
      return obs({
        phase: 'burst',
        sentAt,
        latencyMs: latency,
        sentWall: serverStartMs - (options.clockOffsetMs ?? 0) + (sentAt - start),
        serverMs,
        status,
        limit: status === null ? null : options.limit,
        remaining: status === null ? null : status === 429 ? 0 : (remainingOf.get(n) ?? 0),
        reset: status === null ? null : reset,
        ...(status === null ? { error: 'TIMEOUT' } : {}),
      });
    }),
    windowEnd,
    window: {
      openedAt: start - 10,
      openedUncertaintyMs: 8,
      lengthMs: W * 1000,
      resetEpochS: windowEnd,
      opensAtFirstRequest: false,
      prior: [],
      placeBy: 'reset',
    },
  };
}

function batchOf(n: number, size: number): number {
  return Math.floor((n - 1) / size);
}

export interface ConcurrencyOptions {
  readonly cap: number;
  /** Status of each held request (1-based); default 200. null = no response. */
  readonly heldStatus?: (i: number) => number | null;
  /** Default 429. null = no response. */
  readonly extraStatus?: number | null;
  /** Default 200. */
  readonly controlStatus?: number | null;
  /** How long every upload takes, ms (default 200); `uploadMs(i)` for one (1-based). */
  readonly uploadMs?: number | ((i: number) => number);
  /** Each fast read's round trip, ms (default 1). */
  readonly roundTripMs?: number;
  /** The timed reads' round trips one by one, ms (default three of `roundTripMs`). */
  readonly roundTripsMs?: readonly number[];
  /** From the first uploads' send to the control's, and from the last upload's to the extra's, ms (default 40). */
  readonly marginMs?: number;
  /** From the first uploads' send to the control's alone, ms (default `marginMs`). */
  readonly controlMarginMs?: number;
  /** The extra's time to its answer, ms (default: one round trip). */
  readonly extraLatencyMs?: number;
  /** The control's time to its answer, ms (default: one round trip). */
  readonly controlLatencyMs?: number;
}

/** The CONCURRENCY-CAP traffic shape (tasks/concurrency.ts), every time as the options say. */
export interface HeldMeasurement {
  /** Fast reads one after another before anything was held. */
  readonly roundTrips: Observation[];
  /** cap − 1 uploads sent together, then the last one after the control was answered. */
  readonly held: Observation[];
  readonly control: Observation;
  readonly extra: Observation;
}

/**
 * Fast reads, then cap − 1 slow uploads, a margin later the control read, the last upload a round trip
 * after the control's answer, and a margin later the extra read: the CONCURRENCY-CAP traffic shape.
 */
export function heldMeasurement(options: ConcurrencyOptions): HeldMeasurement {
  const r = options.roundTripMs ?? 1;
  const margin = options.marginMs ?? 40;
  const uploadMs = (i: number) =>
    typeof options.uploadMs === 'function' ? options.uploadMs(i) : (options.uploadMs ?? 200);
  const tags = { check: 'CONCURRENCY-CAP', tier: 'starter', org: 'starter-a' } as const;
  const roundTrips = (options.roundTripsMs ?? [r, r, r]).map((latencyMs) =>
    obs({ ...tags, phase: 'round-trip', latencyMs, limit: 60, remaining: 50 }),
  );
  const start = clock + 5;
  const upload = (i: number, sentAt: number) => {
    const status = options.heldStatus ? options.heldStatus(i) : 200;
    return obs({
      ...tags,
      phase: 'hold',
      method: 'POST',
      path: '/recruiter/jobs/vendor/resume-analysis',
      sentAt,
      latencyMs: status === 429 ? r : uploadMs(i),
      status,
      limit: 10,
      remaining: status === 200 ? Math.max(0, 10 - i) : status === null ? null : 5,
    });
  };
  const first = Array.from({ length: options.cap - 1 }, (_, k) => upload(k + 1, start + k * 0.05));
  const read = (phase: 'control' | 'extra', sentAt: number, latencyMs: number, status: number | null) =>
    obs({
      ...tags,
      phase,
      sentAt,
      latencyMs,
      status,
      limit: 60,
      remaining: status === 200 ? 45 : status === null ? null : 45,
    });
  const control = read(
    'control',
    start + (options.controlMarginMs ?? margin),
    options.controlLatencyMs ?? r,
    options.controlStatus === undefined ? 200 : options.controlStatus,
  );
  const last = upload(options.cap, (control.headersAt ?? control.doneAt) + r);
  const extra = read(
    'extra',
    last.sentAt + margin,
    options.extraLatencyMs ?? r,
    options.extraStatus === undefined ? 429 : options.extraStatus,
  );
  return { roundTrips, held: [...first, last], control, extra };
}

/** A learned window for hand-built observations: opened just before `firstSentAt`. */
export function windowFrom(
  firstSentAt: number,
  options: { windowS?: number; resetEpochS?: number | null } = {},
): WindowContext {
  const W = options.windowS ?? 60;
  return {
    openedAt: firstSentAt - 10,
    openedUncertaintyMs: 8,
    lengthMs: W * 1000,
    resetEpochS: options.resetEpochS === undefined ? T0 + W : options.resetEpochS,
    opensAtFirstRequest: false,
    prior: [],
    placeBy: 'reset',
  };
}
