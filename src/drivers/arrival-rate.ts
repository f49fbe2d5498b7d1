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
 * measures both. Over undici's `dispatch` (no response streams) the driver keeps up with autocannon.
 *
 * Bounded in count (`maxRequests`, else rate × duration) and in time (nothing is sent later than
 * `overrunMs` past the end; what was due and not sent is counted `dropped`). Each stream keeps at
 * most `maxInFlight` requests open (stay under the concurrency cap); a request held back by it is
 * sent late and its latency says so. Loopback only. The driver records; it never judges.
 */
import { Pool, type Dispatcher } from 'undici';
import type { HeaderNames, HttpMethod, TierName } from '../contract/types.ts';
import { redactKey } from '../contract/keys.ts';
import { TiergateError } from '../errors.ts';
import { LatencyHistogram } from '../load/histogram.ts';
import { headerValue, type Observation } from '../observe/observation.ts';
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
}

export interface ArrivalPlan {
  readonly check: string;
  readonly phase: string;
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

const EXCERPT_BYTES = 512;
const DEFAULT_OVERRUN_MS = 1000;
/** Sleep with a timer until this close to the next due time, then yield with setImmediate. */
const SPIN_LEAD_MS = 1.5;

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
  readonly redacted: string | null;
  readonly headers: Record<string, string>;
  readonly count: number;
  next: number;
  inFlight: number;
}

export class ArrivalRateDriver {
  readonly #options: ArrivalRateOptions;
  readonly #pools: Pool[];
  #edgeCursor = 0;

  constructor(options: ArrivalRateOptions) {
    if (options.edges.length === 0) throw new Error('arrival-rate driver: no edges');
    for (const edge of options.edges) {
      if (!isLoopbackUrl(edge.url)) throw new TiergateError('TG_NOT_LOOPBACK', `load is sent to loopback only; edge ${edge.label} is ${edge.url}`);
    }
    this.#options = options;
    this.#pools = options.edges.map(
      (edge) =>
        new Pool(edge.url, {
          connections: options.connectionsPerEdge,
          pipelining: 1,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          connectTimeout: options.timeoutMs,
        }),
    );
  }

  async run(plan: ArrivalPlan): Promise<ArrivalRateStats> {
    const { now, signal } = this.#options;
    const states: StreamState[] = plan.streams.map((stream) => ({
      stream,
      redacted: stream.key === null ? null : redactKey(stream.key),
      headers: { ...plan.request.headers, ...(stream.key === null ? {} : { [this.#options.headers.apiKey]: stream.key }) },
      count: scheduledCount(stream.ratePerS, plan.durationMs),
      next: 0,
      inFlight: 0,
    }));
    const scheduled = Math.min(
      states.reduce((n, s) => n + s.count, 0),
      plan.maxRequests ?? Number.POSITIVE_INFINITY,
    );
    const deadline = plan.startAt + plan.durationMs + (plan.overrunMs ?? DEFAULT_OVERRUN_MS);
    const sendLag = new LatencyHistogram();
    let sent = 0;
    let completed = 0;
    let failed = 0;
    let endedAt = plan.startAt;
    let wake: (() => void) | null = null;
    let allBlocked = false;
    const open = new Set<Dispatcher.DispatchController>();
    const due = (s: StreamState) => plan.startAt + dueOffsetMs(s.next, s.stream.ratePerS);
    const exhausted = () => sent >= scheduled || states.every((s) => s.next >= s.count);

    const pump = () => {
      for (const s of states) {
        while (s.next < s.count && sent < scheduled && s.inFlight < s.stream.maxInFlight && !signal.aborted) {
          const intendedAt = due(s);
          const t = now();
          if (intendedAt > t || t > deadline) break;
          s.next += 1;
          s.inFlight += 1;
          sent += 1;
          sendLag.record(t - intendedAt);
          this.#fire(plan, s, intendedAt, t, open, (o) => {
            s.inFlight -= 1;
            if (o.status === null) failed += 1;
            else completed += 1;
            endedAt = Math.max(endedAt, o.doneAt);
            plan.sink(o);
            pump();
            if (allBlocked && wake) wake();
          });
        }
      }
    };

    while (!signal.aborted && !exhausted() && now() <= deadline) {
      pump();
      if (exhausted()) break;
      const ready = states.filter((s) => s.next < s.count && s.inFlight < s.stream.maxInFlight);
      const nextDue = ready.length === 0 ? null : Math.min(...ready.map(due));
      allBlocked = nextDue === null;
      const waitMs = nextDue === null ? deadline - now() + 1 : nextDue - now();
      await new Promise<void>((resolve) => {
        let timer: NodeJS.Timeout | null = null;
        const done = () => {
          if (wake !== done) return;
          wake = null;
          if (timer) clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        wake = done;
        signal.addEventListener('abort', done, { once: true });
        // Every stream blocked by its in-flight bound (nextDue null): a completion or the deadline wakes us.
        if (waitMs > SPIN_LEAD_MS) timer = setTimeout(done, Math.min(waitMs, deadline - now() + 1) - SPIN_LEAD_MS + 0.5);
        else setImmediate(done);
      });
    }
    await this.#drain(open, () => states.every((s) => s.inFlight === 0));
    return { scheduled, sent, completed, failed, dropped: scheduled - sent, startAt: plan.startAt, endedAt, sendLag };
  }

  /** Wait for in-flight requests (bounded by the request timeout); abort what is left. */
  async #drain(open: Set<Dispatcher.DispatchController>, idle: () => boolean): Promise<void> {
    const limit = this.#options.now() + this.#options.timeoutMs + 1000;
    while (!idle() && this.#options.now() < limit && !this.#options.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const controller of open) controller.abort(new Error('load phase ended'));
    // Aborted requests report through onResponseError on the next turns.
    for (let i = 0; i < 100 && !idle(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  #fire(plan: ArrivalPlan, s: StreamState, intendedAt: number, sentAt: number, open: Set<Dispatcher.DispatchController>, done: (o: Observation) => void): void {
    const { headers: names, now, wallNow, nextId } = this.#options;
    const edgeIndex = this.#edgeCursor++ % this.#pools.length;
    const edge = this.#options.edges[edgeIndex]!;
    const id = nextId();
    const sentWall = wallNow();
    let controller: Dispatcher.DispatchController | null = null;
    let status: number | null = null;
    let headersAt: number | null = null;
    let headers: Record<string, string | string[] | undefined> = {};
    let bytes = 0;
    let excerpt: Buffer[] | null = null;
    const finish = (error: Observation['error']) => {
      if (controller) open.delete(controller);
      const single = (name: string): string | null => {
        const v = headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      };
      done({
        id,
        check: plan.check,
        phase: plan.phase,
        tier: s.stream.tier,
        org: s.stream.org,
        key: s.redacted,
        edge: edge.label,
        method: plan.request.method,
        path: plan.request.path,
        intendedAt,
        sentAt,
        headersAt,
        doneAt: now(),
        sentWall,
        status,
        rateLimit: {
          limit: headerValue(headers[names.limit]),
          remaining: headerValue(headers[names.remaining]),
          reset: headerValue(headers[names.reset]),
          retryAfter: headerValue(headers[names.retryAfter]),
        },
        date: single('date'),
        edgeNode: single(names.edgeNode),
        contentType: single('content-type'),
        bodyBytes: bytes,
        bodyExcerpt: excerpt ? Buffer.concat(excerpt).toString('utf8').slice(0, EXCERPT_BYTES) : '',
        body: null,
        error,
      });
    };
    this.#pools[edgeIndex]!.dispatch(
      { origin: edge.url, method: plan.request.method, path: plan.request.path, headers: s.headers, body: plan.request.body ?? null },
      {
        onRequestStart: (c) => {
          controller = c;
          open.add(c);
        },
        onResponseStart: (_c, statusCode, responseHeaders) => {
          status = statusCode;
          headersAt = now();
          headers = responseHeaders as Record<string, string | string[] | undefined>;
          // Bodies of admitted reads are not needed; a rejection's first bytes are kept for readers.
          if (statusCode < 200 || statusCode >= 300) excerpt = [];
        },
        onResponseData: (_c, chunk) => {
          if (excerpt && bytes < EXCERPT_BYTES) excerpt.push(chunk);
          bytes += chunk.length;
        },
        onResponseEnd: () => finish(null),
        onResponseError: (_c, error) => {
          status = null;
          finish(transportError(error));
        },
      },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.destroy()));
  }
}

function transportError(error: Error): NonNullable<Observation['error']> {
  const raw = (error as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : 'REQUEST_FAILED';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { code: 'TIMEOUT', message: error.message };
  if (code === 'UND_ERR_SOCKET') return { code: 'ECONNRESET', message: error.message };
  if (code === 'UND_ERR_ABORTED') return { code: 'INTERRUPTED', message: error.message };
  return { code: code.replace(/^UND_ERR_/, ''), message: error.message };
}
