/**
 * How one response writes X-RateLimit-Reset, and when (by our monotonic clock) the window it
 * announces ends. Servers write epoch seconds (§8), epoch milliseconds, or seconds until the reset
 * (the IETF RateLimit draft's style); any of them tells when the window ends, so scheduling can use
 * all of them while HDR-RESET still judges the format against §8.
 */
import { TOO_MANY_REQUESTS } from '../contract/types.ts';
import { isAdmitted, type Observation } from './observation.ts';

/** How X-RateLimit-Reset is written. Only `epoch-seconds` is what §8 specifies. */
export const RESET_FORMATS = ['epoch-seconds', 'epoch-millis', 'seconds-until', 'absent', 'unreadable'] as const;
export type ResetFormat = (typeof RESET_FORMATS)[number];

/** Below this a value cannot be a current epoch in seconds (2001-09-09). */
export const EPOCH_S_FLOOR = 1e9;
/** Above this a value is epoch milliseconds (1e11 s is the year 5138). */
export const EPOCH_MS_FLOOR = 1e11;

/** When a response arrived (its headers, else its end), monotonic ms. */
const arrivalOf = (o: Observation): number => o.headersAt ?? o.doneAt;

/** The server's clock at the response, epoch ms: its Date header (second resolution), else ours. */
function serverNowMs(o: Observation, clockOffsetMs: number): number {
  const date = o.date === null ? NaN : Date.parse(o.date);
  if (Number.isFinite(date)) return date;
  return o.sentWall + clockOffsetMs + (arrivalOf(o) - o.sentAt);
}

/**
 * The format of one response's Reset. A value fits epoch seconds (or ms) when it lies within a
 * window (plus two seconds of rounding and Date staleness) of the server's clock; a small value
 * no larger than the window (plus one) is seconds-until.
 */
export function resetFormatOf(o: Observation, windowMs: number, clockOffsetMs = 0): ResetFormat {
  const { raw, value } = o.rateLimit.reset;
  if (raw === null) return 'absent';
  if (value === null) return 'unreadable';
  const now = serverNowMs(o, clockOffsetMs);
  const fits = (endMs: number) => endMs >= now - 2000 && endMs <= now + windowMs + 2000;
  if (value >= EPOCH_MS_FLOOR) return fits(value) ? 'epoch-millis' : 'unreadable';
  if (value >= EPOCH_S_FLOOR) return fits(value * 1000) ? 'epoch-seconds' : 'unreadable';
  return value * 1000 <= windowMs + 1000 ? 'seconds-until' : 'unreadable';
}

/** When a window ends, by the harness's monotonic clock, as an interval (the headers are coarse). */
export interface EndEstimate {
  readonly earliest: number;
  readonly latest: number;
}

/**
 * The end of the window a response reports, from its Reset in `format`, in monotonic ms. Epoch
 * seconds may be rounded up (express-rate-limit) or exact: the end lies in the second before it.
 * Seconds-until may be rounded either way: within a second of receipt + value.
 */
export function endEstimateOf(
  o: Observation,
  format: ResetFormat,
  clockOffsetMs: number,
  offsetUncertaintyMs = 0,
): EndEstimate | null {
  const value = o.rateLimit.reset.value;
  if (value === null || o.headersAt === null) return null;
  // Monotonic time of a server epoch instant: our send time plus how far it lies after our send wall clock.
  const local = (serverMs: number) => o.sentAt + (serverMs - clockOffsetMs - o.sentWall);
  switch (format) {
    case 'epoch-seconds':
      return {
        earliest: local(value * 1000 - 1000) - offsetUncertaintyMs,
        latest: local(value * 1000) + offsetUncertaintyMs,
      };
    case 'epoch-millis':
      return { earliest: local(value) - offsetUncertaintyMs, latest: local(value) + offsetUncertaintyMs };
    case 'seconds-until':
      return { earliest: o.sentAt + (value - 1) * 1000, latest: o.headersAt + (value + 1) * 1000 };
    default:
      return null;
  }
}

/** The wait a 429 announces (Retry-After header, else the body's retry_after_seconds), seconds. */
export function announcedWaitS(o: Observation): number | null {
  const header = o.rateLimit.retryAfter.value;
  if (header !== null) return header;
  const raw = o.rateLimit.retryAfter.raw?.trim();
  // A fractional Retry-After (rate-limiter-flexible's example writes ms / 1000) still tells the wait.
  if (raw && /^\d+(\.\d+)?$/.test(raw)) return Number(raw);
  const body = o.body as { retry_after_seconds?: unknown } | null;
  return typeof body?.retry_after_seconds === 'number' &&
    Number.isFinite(body.retry_after_seconds) &&
    body.retry_after_seconds >= 0
    ? body.retry_after_seconds
    : null;
}

/** Two consecutive responses of one window, between which Reset moved. */
export interface ResetMovement {
  readonly before: Observation;
  readonly after: Observation;
}

/** What responses of one window showed of their Reset. */
export interface ResetMovementSeen {
  /** Ends more than a second apart: it moves. */
  readonly moved: ResetMovement | null;
  /** The first change of a second only: rounding, or a Reset that moves once a second (not told apart). */
  readonly rounded: ResetMovement | null;
  /** The span over which it held still (to a second), ms, and in how many comparisons. */
  readonly comparedMs: number;
  readonly compared: number;
}

/** Allowance for our estimate of the server clock when an epoch Reset is turned into our time, ms. */
export const CLOCK_SLACK_MS = 250;

/**
 * An announced end is read as rounded up (Retry-After's delay-seconds; an epoch Reset at or after the
 * end). A server that rounds to nearest or down ends its windows up to a second later than that. Where
 * a schedule rests on such an end, this much later is allowed for: a tenth of the window, at most the
 * second (at a few seconds' windows the whole second would leave too little of each to measure in).
 */
export function roundingAllowanceMs(windowMs: number): number {
  return Math.min(1000, windowMs / 10);
}

/** How to tell when a response's announced end has come: our estimate of the server clock. */
export interface EndPlacing {
  readonly windowMs: number;
  readonly clockOffsetMs: number;
  /** ± bound on that estimate, ms. */
  readonly slackMs: number;
}

/**
 * Where Reset moved within a window, and over how long a span it was seen to hold still otherwise.
 * Each response is compared with the one answered last before it was sent: only that order is known
 * to be the server's (two requests in flight together may be handled in either order, and a read
 * handled just after a boundary can be answered before one handled just before it). Two responses
 * belong to one window when both were refused (the quota stayed used up; the caller passes refusals
 * of one window only), or both admitted with Remaining counting down. With `placing`, two admissions
 * whose Reset changed once the first's announced end may have passed are not taken as a move: a
 * boundary can fall between them without Remaining rising (the old window had counted one request),
 * and a Reset that changes at a boundary has not moved.
 *
 * An epoch Reset moves when the values one window announced lie more than a second apart: one
 * second is rounding (rate-limiter-flexible's example writes ceil((now + msBeforeNext) / 1000), whose
 * `now` is read a little after the limiter's, so an end just before a whole second is announced as
 * either second).
 */
export function resetMovement(sequence: readonly Observation[], placing?: EndPlacing): ResetMovementSeen {
  const refused = (o: Observation) => o.status === TOO_MANY_REQUESTS;
  const withReset = sequence.filter((o) => o.rateLimit.reset.raw !== null);
  const byArrival = [...withReset].sort((x, y) => arrivalOf(x) - arrivalOf(y));
  const spans: (readonly [number, number])[] = [];
  let rounded: ResetMovement | null = null;
  /** The lowest and highest epoch Reset announced in the window each response is known to share. */
  const announcedIn = new Map<Observation, { readonly low: Observation; readonly high: Observation }>();
  for (const b of [...withReset].sort((x, y) => x.sentAt - y.sentAt)) {
    announcedIn.set(b, { low: b, high: b });
    const a = answeredLastBefore(byArrival, b.sentAt);
    if (!a) continue;
    const [ra, rb] = [a.rateLimit.remaining.value, b.rateLimit.remaining.value];
    const bothRefused = refused(a) && refused(b);
    const countingDown = isAdmitted(a) && isAdmitted(b) && ra !== null && rb !== null && rb < ra;
    if (!bothRefused && !countingDown) continue;
    // Two refusals are one window (a new one would have admitted the second); two admissions whose
    // Reset changed may straddle a boundary, if the second came once the first's end may have passed.
    const changed = resetMoved(a, b);
    if (changed && countingDown && placing && mayBeAtEnd(a, b, placing)) continue;
    const window = announcedIn.get(a)!;
    const endMs = epochMsOf(b);
    const apart =
      endMs === null
        ? changed
          ? a
          : undefined
        : [window.low, window.high].find((o) => Math.abs(endMs - (epochMsOf(o) ?? endMs)) > 1000);
    if (apart)
      return { moved: { before: apart, after: b }, rounded, comparedMs: coveredMs(spans), compared: spans.length };
    if (rounded === null && endMs !== null && changed) rounded = { before: a, after: b };
    announcedIn.set(b, { low: earlierEnd(window.low, b), high: laterEnd(window.high, b) });
    spans.push([a.sentAt, b.sentAt]);
  }
  return { moved: null, rounded, comparedMs: coveredMs(spans), compared: spans.length };
}

/** Of two responses, the one announcing the earlier (later) epoch end; the first where the second has none. */
function earlierEnd(x: Observation, y: Observation): Observation {
  return (epochMsOf(y) ?? Infinity) < (epochMsOf(x) ?? Infinity) ? y : x;
}
function laterEnd(x: Observation, y: Observation): Observation {
  return (epochMsOf(y) ?? -Infinity) > (epochMsOf(x) ?? -Infinity) ? y : x;
}

/** An epoch Reset in ms (seconds or milliseconds as written); null for a countdown or none. */
function epochMsOf(o: Observation): number | null {
  const value = o.rateLimit.reset.value;
  if (value === null || value < EPOCH_S_FLOOR) return null;
  return value >= EPOCH_MS_FLOOR ? value : value * 1000;
}

/** The response answered last at or before `at`, from responses sorted by arrival. */
function answeredLastBefore(byArrival: readonly Observation[], at: number): Observation | null {
  let [low, high] = [0, byArrival.length];
  while (low < high) {
    const mid = (low + high) >> 1;
    if (arrivalOf(byArrival[mid]!) <= at) low = mid + 1;
    else high = mid;
  }
  return low === 0 ? null : byArrival[low - 1]!;
}

/** How much time the spans cover together, ms: responses sent together share a predecessor, and their spans overlap. */
function coveredMs(spans: readonly (readonly [number, number])[]): number {
  let covered = 0;
  let reached = -Infinity;
  for (const [from, to] of [...spans].sort((x, y) => x[0] - y[0])) {
    const start = Math.max(from, reached);
    if (to > start) covered += to - start;
    reached = Math.max(reached, to);
  }
  return covered;
}

/** Whether `b` was answered once the end `a` announced may have come. */
function mayBeAtEnd(a: Observation, b: Observation, placing: EndPlacing): boolean {
  const end = endEstimateOf(
    a,
    resetFormatOf(a, placing.windowMs, placing.clockOffsetMs),
    placing.clockOffsetMs,
    placing.slackMs,
  );
  return end !== null && arrivalOf(b) >= end.earliest;
}

/**
 * Whether a window may have turned between two responses of one class: Remaining back up (under the
 * same Limit), or the end it announced moved (which a boundary does, even where Remaining cannot show
 * it: a window that had counted only one request).
 */
export function windowMayHaveTurned(a: Observation, b: Observation): boolean {
  const [ra, rb] = [a.rateLimit.remaining.value, b.rateLimit.remaining.value];
  if (ra !== null && rb !== null && rb > ra) return true;
  return a.rateLimit.reset.raw !== null && b.rateLimit.reset.raw !== null && resetMoved(a, b);
}

/**
 * Whether Reset moved between two responses of one window: an epoch that changed, or a countdown
 * (seconds-until) that went up or fell by more than the time between them (a second of rounding).
 */
export function resetMoved(a: Observation, b: Observation): boolean {
  const [va, vb] = [a.rateLimit.reset.value, b.rateLimit.reset.value];
  if (va === null || vb === null || va >= EPOCH_S_FLOOR || vb >= EPOCH_S_FLOOR)
    return a.rateLimit.reset.raw !== b.rateLimit.reset.raw;
  const elapsedS = (arrivalOf(b) - a.sentAt) / 1000;
  return vb > va || va - vb > elapsedS + 1;
}

/**
 * One more 429 of the same window narrows where it ends: its countdown (Retry-After, or a
 * seconds-until Reset) rounded up to whole seconds puts the end in (T + n − 1, T + n] for the
 * instant T the server answered, between our send and our receipt. Null when it tells nothing.
 */
export function narrowedEnd(end: EndEstimate, o: Observation, windowMs: number, clockOffsetMs = 0): EndEstimate | null {
  if (o.headersAt === null) return null;
  const reset = resetFormatOf(o, windowMs, clockOffsetMs) === 'seconds-until' ? o.rateLimit.reset.value : null;
  const n = reset ?? announcedWaitS(o);
  if (n === null) return null;
  const whole = Math.ceil(n);
  const earliest = Math.max(end.earliest, o.sentAt + (whole - 1) * 1000);
  const latest = Math.min(end.latest, o.headersAt + whole * 1000);
  return earliest <= latest ? { earliest, latest } : null;
}

/**
 * Which of a 429's headers may place its window's end: its Reset (any format), else its Retry-After;
 * or, where Reset was seen moving within a window (it then says nothing of where one ends), its
 * Retry-After alone.
 */
export type EndSource = 'reset-or-wait' | 'wait-only';

/** Retry-After alone where Reset was seen moving among `sequence` (one window's reads), else either. */
export function endSourceOf(sequence: readonly Observation[], placing: EndPlacing): EndSource {
  return resetMovement(sequence, placing).moved === null ? 'reset-or-wait' : 'wait-only';
}

/** When the window a 429 belongs to ends, from the headers `source` allows. */
export function announcedEnd(
  rejected: Observation,
  windowMs: number,
  clockOffsetMs: number,
  clockSlackMs = 0,
  source: EndSource = 'reset-or-wait',
): EndEstimate | null {
  const fromReset =
    source === 'reset-or-wait'
      ? endEstimateOf(rejected, resetFormatOf(rejected, windowMs, clockOffsetMs), clockOffsetMs, clockSlackMs)
      : null;
  if (fromReset) return fromReset;
  const wait = announcedWaitS(rejected);
  // A wait beyond two windows is no schedule (RETRY-AFTER judges it): it would only stall the harness.
  if (wait === null || rejected.headersAt === null || wait * 1000 > 2 * windowMs) return null;
  // Retry-After is rounded up to whole seconds: the end lies in the second before it.
  return {
    earliest: rejected.sentAt + (Math.ceil(wait) - 1) * 1000,
    latest: rejected.headersAt + Math.ceil(wait) * 1000,
  };
}
