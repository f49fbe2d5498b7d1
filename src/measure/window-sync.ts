/**
 * Waits for the next boundary of a clock-aligned window, learning it from the server (README "How
 * it measures"). It polls with a request that reports the quota class (HEAD
 * /recruiter/bootstrap for reads, an empty bulk upload for ingest) and takes any signal the server
 * gives: the announced end advancing (Reset as epoch seconds, milliseconds or seconds-until),
 * Remaining jumping back up, or, with neither, the server's Date crossing a multiple of the window
 * length. Polling is sparse until shortly before the predicted boundary, then dense, so a 60 s wait
 * costs tens of requests. The poll that shows the new window is returned: if the server counts it,
 * it belongs to the new window's ledger.
 */
import type { WindowContext } from './window.ts';
import type { Observation } from './observation.ts';
import { resetFormatOf, endEstimateOf } from './reset-format.ts';
import type { Edge, HttpProber, ProbeRequest, ProbeTags } from './http-prober.ts';

export interface WindowSyncOptions {
  readonly windowMs: number;
  /** Offset of the server clock from ours (ms), when known. */
  readonly clockOffsetMs: number;
  readonly densePollMs: number;
  readonly signal: AbortSignal;
  /** What to poll with: a request answered with the quota class's headers. */
  readonly request: ProbeRequest;
  /** Whether the server counts the poll, as far as the limiter profile knows (null: unknown). */
  readonly pollCounts: boolean | null;
  /** Whether Reset holds still within a window; a Reset that drifts shows no boundary. */
  readonly resetHoldsStill: boolean;
}

export type WindowSyncResult =
  | { readonly ok: true; readonly window: WindowContext; readonly polls: readonly Observation[] }
  | { readonly ok: false; readonly reason: string; readonly polls: readonly Observation[] };

const DENSE_LEAD_MS = 400;
/**
 * How late a Date header may turn over after the second it names begins: servers cache it and
 * refresh it on a timer (Node), which fires late by the event loop's lag.
 */
const DATE_STALENESS_MS = 250;

export async function awaitFreshWindow(
  prober: HttpProber,
  edge: Edge,
  tags: Omit<ProbeTags, 'phase'>,
  options: WindowSyncOptions,
): Promise<WindowSyncResult> {
  const polls: Observation[] = [];
  const deadline = prober.now() + options.windowMs * 2 + 2000;
  const head = async () => {
    const o = await prober.send(edge, options.request, { ...tags, phase: 'window-sync' });
    polls.push(o);
    return o;
  };
  let previous = await head();
  if (previous.status === null) return { ok: false, reason: `window sync failed: ${previous.error?.code}`, polls };
  while (prober.now() < deadline && !options.signal.aborted) {
    const untilBoundary = msUntilBoundary(previous, options.windowMs, options.clockOffsetMs, prober.now(), options.resetHoldsStill);
    const pause = untilBoundary > DENSE_LEAD_MS ? untilBoundary - DENSE_LEAD_MS : options.densePollMs;
    await sleep(Math.min(pause, options.windowMs), options.signal);
    const current = await head();
    if (current.status === null) return { ok: false, reason: `window sync failed: ${current.error?.code}`, polls };
    const window = windowOpenedBetween(previous, current, options);
    if (window !== null) return { ok: true, polls, window };
    previous = current;
  }
  return {
    ok: false,
    reason: options.signal.aborted ? 'interrupted' : `no window boundary seen within ${Math.round((options.windowMs * 2 + 2000) / 1000)} s`,
    polls,
  };
}

/**
 * The window `current` shows opened since `previous` (consecutive responses of one quota class), with
 * `current` in its ledger if the server counted it; null when nothing shows a boundary between them.
 */
export function windowOpenedBetween(
  previous: Observation,
  current: Observation,
  options: Pick<WindowSyncOptions, 'windowMs' | 'clockOffsetMs' | 'pollCounts' | 'resetHoldsStill'>,
): WindowContext | null {
  const signal = boundarySignal(previous, current, options.windowMs / 1000, options.clockOffsetMs, options.resetHoldsStill);
  if (signal === null) return null;
  const format = resetFormatOf(current, options.windowMs, options.clockOffsetMs);
  // Date is floored to the second and may be served a second stale: a crossing it shows may
  // have happened up to a second before the previous poll.
  const stale = signal === 'date' ? DATE_STALENESS_MS : 0;
  return {
    openedAt: current.headersAt ?? current.doneAt,
    openedUncertaintyMs: (current.headersAt ?? current.doneAt) - previous.sentAt + stale,
    lengthMs: options.windowMs,
    resetEpochS: format === 'epoch-seconds' ? current.rateLimit.reset.value : null,
    opensAtFirstRequest: false,
    prior: countedByServer(current, options.pollCounts) ? [current] : [],
    placeBy: options.resetHoldsStill ? 'reset' : 'timing',
  };
}

/**
 * Whether the server counted a poll: by its own Remaining (Limit: free; less: counted), else by what
 * the profile learned of such requests (unknown: taken as free, and the checks' own evidence decides).
 */
function countedByServer(o: Observation, pollCounts: boolean | null): boolean {
  const { limit, remaining } = o.rateLimit;
  if (limit.value !== null && remaining.value !== null) return remaining.value < limit.value;
  return pollCounts === true;
}

/** A window boundary fell between two consecutive responses of one quota class. */
export function boundaryBetween(previous: Observation, current: Observation, windowS: number, clockOffsetMs = 0, useReset = true): boolean {
  return boundarySignal(previous, current, windowS, clockOffsetMs, useReset) !== null;
}

/** What shows a boundary between two consecutive responses of one quota class, if anything does. */
export function boundarySignal(
  previous: Observation,
  current: Observation,
  windowS: number,
  clockOffsetMs = 0,
  useReset = true,
): 'remaining' | 'reset' | 'date' | null {
  // Remaining jumping back up: a new window (a bucket refilling is not aligned, and is not polled for).
  const [r0, r1] = [previous.rateLimit.remaining.value, current.rateLimit.remaining.value];
  if (r0 !== null && r1 !== null && r1 > r0 && previous.rateLimit.limit.value === current.rateLimit.limit.value) return 'remaining';
  // The announced end advancing: epochs advance with a new window; a countdown (seconds-until,
  // rounded either way) never rises within one. Both compare as the server wrote them (our
  // estimate of its clock moves as it narrows).
  const windowMs = windowS * 1000;
  const formats = [resetFormatOf(previous, windowMs, clockOffsetMs), resetFormatOf(current, windowMs, clockOffsetMs)] as const;
  const usable = useReset && formats[0] === formats[1] && ['epoch-seconds', 'epoch-millis', 'seconds-until'].includes(formats[0]);
  if (usable) return current.rateLimit.reset.value! > previous.rateLimit.reset.value! ? 'reset' : null;
  const d0 = previous.date ? Date.parse(previous.date) / 1000 : NaN;
  const d1 = current.date ? Date.parse(current.date) / 1000 : NaN;
  if (!Number.isFinite(d0) || !Number.isFinite(d1)) return null;
  return Math.floor(d1 / windowS) > Math.floor(d0 / windowS) ? 'date' : null;
}

/** Predicted ms until the next boundary, from the announced end or from Date; 0 when unknown. */
function msUntilBoundary(o: Observation, windowMs: number, offsetMs: number, nowRun: number, useReset: boolean): number {
  const end = useReset ? endEstimateOf(o, resetFormatOf(o, windowMs, offsetMs), offsetMs) : null;
  if (end !== null) return Math.max(0, end.earliest - nowRun);
  const windowS = windowMs / 1000;
  const dateS = o.date ? Date.parse(o.date) / 1000 : NaN;
  if (Number.isFinite(dateS)) {
    const elapsed = nowRun - (o.headersAt ?? o.doneAt);
    const boundaryS = (Math.floor(dateS / windowS) + 1) * windowS;
    // Date is floored to the second: the boundary is at most this far away, and up to 1 s nearer.
    return Math.max(0, (boundaryS - dateS - 1) * 1000 - elapsed);
  }
  return 0;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
