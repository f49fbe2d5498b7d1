/**
 * The sustained-load driver: an open model at a constant arrival rate with even spacing (k6's
 * constant-arrival-rate, without its per-iteration VU cost). Request i of a stream is due at
 * `startAt + (i + ½) / rate`, whatever happened to the ones before; latency is measured from that
 * due time (LATENCY_POLICY), so a slow server or a busy client shows up as latency instead of as
 * fewer requests (no coordinated omission).
 *
 * Why not autocannon: its rate limit is per connection and per whole second (a counter reset by a
 * 1 s setInterval), so `overallRate: 1000` sends each second's requests as fast as the connections
 * allow and then idles, and it is a closed model (the next request waits for a response). At the
 * rates a tier's quota implies (1-80 req/s) that is a burst per second, not a rate; bench/load.ts
 * measures both. Over its own lean HTTP/1.1 connections (load-pool.ts) the driver keeps up with
 * autocannon while recording every response.
 *
 * Bounded in count (`maxRequests`, else rate × duration) and in time (nothing is sent later than
 * `overrunMs` past the end; what was due and not sent is counted `dropped`). Each stream keeps at
 * most `maxInFlight` requests open (stay under the concurrency cap); a request held back by it is
 * sent late and its latency says so. Loopback only. The driver records; it never judges.
 */
import { LoadPool, prepareRequest, type PreparedRequest } from './load-pool.ts';
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { redactKey } from '../contract/keys.ts';
import { TiergateError } from '../util/errors.ts';
import { LatencyHistogram } from './histogram.ts';
import type { Observation } from './observation.ts';
import type { CheckTag, LoadPhaseName } from './tags.ts';
import { ResponseCapture, responseFields, type CaptureTags, type ResponseFields } from './response-capture.ts';
import type { RateLimitReader } from './rate-limit-reading.ts';
import { isLoopbackUrl } from '../util/loopback.ts';
import type { Edge } from './http-prober.ts';

export interface ArrivalRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

/** One organization's traffic: its key, its rate, and its in-flight bound. */
export interface ArrivalStream {
  readonly org: string | null;
  readonly tier: TierName | null;
  /** The full key, sent as the API key header; only its redacted form is recorded. */
  readonly key: string | null;
  readonly ratePerS: number;
  readonly maxInFlight: number;
  /** The first requests of its schedule, sent already by someone else (a window's opener): skipped. */
  readonly sentAlready?: number;
}

export interface ArrivalPlan {
  readonly check: CheckTag;
  readonly phase: LoadPhaseName;
  readonly request: ArrivalRequest;
  readonly streams: readonly ArrivalStream[];
  /** Run-relative ms at which the schedule starts (may lie ahead: the driver waits). */
  readonly startAt: number;
  readonly durationMs: number;
  /** Hard cap on requests sent over all streams; default: the schedule's own count. */
  readonly maxRequests?: number;
  /** A request may still be sent this long after the schedule's end; later ones are dropped. Default 1000. */
  readonly overrunMs?: number;
  /** Every response, as an Observation (a recorder, an aggregator, or both). */
  readonly sink: (observation: Observation) => void;
}

export interface ArrivalRateOptions {
  readonly edges: readonly Edge[];
  readonly headers: HeaderNames;
  readonly connectionsPerEdge: number;
  readonly timeoutMs: number;
  /** Run-relative monotonic ms, and the wall clock (epoch ms). */
  readonly now: () => number;
  readonly wallNow: () => number;
  readonly nextId: () => number;
  readonly signal: AbortSignal;
  /** PEM of a private CA for https edges (LoadPoolOptions.ca). */
  readonly ca?: string;
  /** The rate-limit dialect declared and the policy read; default §8's X-RateLimit-* (SPEC_READER). */
  readonly rateLimitReader?: RateLimitReader;
}

export interface ArrivalRateStats {
  readonly scheduled: number;
  readonly sent: number;
  /** Responses with a status, and requests that got none (timeouts, resets). */
  readonly completed: number;
  readonly failed: number;
  /** Due, but not sent within the time bound (or interrupted). */
  readonly dropped: number;
  readonly startAt: number;
  readonly endedAt: number;
  /** Actual minus intended send time, ms. */
  readonly sendLag: LatencyHistogram;
}

const DEFAULT_OVERRUN_MS = 1000;

/** Requests a stream sends in `durationMs` at `ratePerS`, the first half an interval in. */
export function scheduledCount(ratePerS: number, durationMs: number): number {
  return ratePerS > 0 ? Math.floor((ratePerS * durationMs) / 1000 + 0.5) : 0;
}

/** When request i of a stream is due, ms after the schedule's start. */
export function dueOffsetMs(i: number, ratePerS: number): number {
  return ((i + 0.5) * 1000) / ratePerS;
}

interface StreamState {
  readonly stream: ArrivalStream;
  readonly tags: CaptureTags;
  /** The request to each edge, as bytes built once. */
  readonly requests: readonly PreparedRequest[];
  readonly count: number;
  next: number;
  inFlight: number;
}

/** Requests the plan sends over all its streams: their schedules' sum, capped by `maxRequests`. */
function scheduledTotal(states: readonly StreamState[], maxRequests: number | undefined): number {
  return Math.min(
    states.reduce((n, s) => n + s.count, 0),
    maxRequests ?? Number.POSITIVE_INFINITY,
  );
}

export class ArrivalRateDriver {
  readonly #options: ArrivalRateOptions;
  readonly #pools: LoadPool[];
  readonly #fields: ResponseFields;
  #edgeCursor = 0;

  constructor(options: ArrivalRateOptions) {
    if (options.edges.length === 0) throw new Error('arrival-rate driver: no edges');
    for (const edge of options.edges) {
      if (!isLoopbackUrl(edge.url))
        throw new TiergateError('TG_NOT_LOOPBACK', `load is sent to loopback only; edge ${edge.label} is ${edge.url}`);
    }
    this.#options = options;
    this.#fields = responseFields(options.headers, options.rateLimitReader);
    const { picker } = this.#fields;
    this.#pools = options.edges.map(
      (edge) =>
        new LoadPool(edge.url, {
          connections: options.connectionsPerEdge,
          timeoutMs: options.timeoutMs,
          picker,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        }),
    );
  }

  async run(plan: ArrivalPlan): Promise<ArrivalRateStats> {
    const { now, signal } = this.#options;
    const states = this.#streamStates(plan);
    const scheduled = scheduledTotal(states, plan.maxRequests);
    const deadline = plan.startAt + plan.durationMs + (plan.overrunMs ?? DEFAULT_OVERRUN_MS);
    const sendLag = new LatencyHistogram();
    let sent = 0;
    let completed = 0;
    let failed = 0;
    let endedAt = plan.startAt;
    let wake: (() => void) | null = null;
    let allBlocked = false;
    const due = (s: StreamState) => plan.startAt + dueOffsetMs(s.next, s.stream.ratePerS);
    const hasRoom = (s: StreamState) => s.next < s.count && s.inFlight < s.stream.maxInFlight;
    const exhausted = () => sent >= scheduled || states.every((s) => s.next >= s.count);

    const pump = () => {
      for (const s of states) {
        while (hasRoom(s) && sent < scheduled && !signal.aborted) {
          const intendedAt = due(s);
          const t = now();
          if (intendedAt > t || t > deadline) break;
          s.next += 1;
          s.inFlight += 1;
          sent += 1;
          sendLag.record(t - intendedAt);
          this.#fire(s, intendedAt, t, complete);
        }
      }
    };
    const complete = (capture: ResponseCapture<StreamState>, o: Observation) => {
      capture.owner.inFlight -= 1;
      if (o.status === null) failed += 1;
      else completed += 1;
      if (o.doneAt > endedAt) endedAt = o.doneAt;
      // What is due goes out before this response is folded in: the sink's work never delays a send.
      pump();
      plan.sink(o);
      // Wake the scheduler only when it sleeps on a full stream that now has room for a request not
      // yet due, or when all is sent; under saturation each completion refills its own slot.
      if (wake && (exhausted() || (allBlocked && states.some(hasRoom)))) wake();
    };

    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal.aborted && !exhausted() && now() <= deadline) {
        pump();
        if (exhausted()) break;
        let nextDue = Number.POSITIVE_INFINITY;
        for (const s of states) if (hasRoom(s)) nextDue = Math.min(nextDue, due(s));
        // Every stream held by its in-flight bound: a completion or the deadline wakes us.
        allBlocked = nextDue === Number.POSITIVE_INFINITY;
        const t = now();
        const waitMs = Math.min(nextDue - t, deadline - t + 1);
        await new Promise<void>((resolve) => {
          let timer: NodeJS.Timeout | null = null;
          const done = () => {
            if (wake !== done) return;
            wake = null;
            if (timer) clearTimeout(timer);
            resolve();
          };
          wake = done;
          // One timer to the next due time, never a spin: a driver that spins holds a core and, on a
          // machine busy with the target, is preempted for whole scheduler slices, worse than a
          // timer's millisecond. Between ticks, completions send what falls due (see `complete`).
          if (waitMs > 0) timer = setTimeout(done, Math.ceil(waitMs));
          else setImmediate(done);
        });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    await this.#drain(() => states.every((s) => s.inFlight === 0));
    return { scheduled, sent, completed, failed, dropped: scheduled - sent, startAt: plan.startAt, endedAt, sendLag };
  }

  /** Each stream's schedule state: its capture tags, its prepared requests, its count and cursor. */
  #streamStates(plan: ArrivalPlan): StreamState[] {
    const { now } = this.#options;
    return plan.streams.map((stream) => ({
      stream,
      tags: {
        check: plan.check,
        phase: plan.phase,
        tier: stream.tier,
        org: stream.org,
        key: stream.key === null ? null : redactKey(stream.key),
        method: plan.request.method,
        path: plan.request.path,
        now,
        rateLimitOf: this.#fields.rateLimitOf,
      },
      requests: this.#requestsFor(plan.request, stream.key),
      count: scheduledCount(stream.ratePerS, plan.durationMs),
      next: stream.sentAlready ?? 0,
      inFlight: 0,
    }));
  }

  /** A stream's request to each edge, built once: the key travels in it, never in an Observation. */
  #requestsFor(request: ArrivalRequest, key: string | null): PreparedRequest[] {
    const headers = { ...request.headers, ...(key === null ? {} : { [this.#options.headers.apiKey]: key }) };
    const body = request.body === undefined ? null : Buffer.from(request.body);
    return this.#options.edges.map((edge) => prepareRequest(edge.url, request.method, request.path, headers, body));
  }

  /** Wait for in-flight requests (bounded by the request timeout); what is left ends as interrupted. */
  async #drain(idle: () => boolean): Promise<void> {
    const limit = this.#options.now() + this.#options.timeoutMs + 1000;
    while (!idle() && this.#options.now() < limit && !this.#options.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const pool of this.#pools) pool.abortAll('load phase ended');
  }

  #fire(
    s: StreamState,
    intendedAt: number,
    sentAt: number,
    done: (c: ResponseCapture<StreamState>, o: Observation) => void,
  ): void {
    const edgeIndex = this.#edgeCursor++ % this.#pools.length;
    const capture = new ResponseCapture(
      s,
      s.tags,
      this.#options.nextId(),
      this.#options.edges[edgeIndex]!.label,
      intendedAt,
      sentAt,
      this.#options.wallNow(),
      done,
    );
    this.#pools[edgeIndex]!.send(s.requests[edgeIndex]!, capture);
  }

  async close(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.close()));
  }
}
