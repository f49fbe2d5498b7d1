/**
 * Waits for a fresh quota window, learning the boundary from the server (DESIGN "Measuring honestly").
 * It polls HEAD /recruiter/bootstrap (free, by assumption head-bootstrap-free): when X-RateLimit-Reset
 * is a plausible epoch, the window opened when Reset advanced; otherwise (a broken Reset) when the
 * server's Date crossed a multiple of the window length (assumption fixed-windows). Polling is sparse
 * until shortly before the predicted boundary, then dense, so a 60 s wait costs tens of requests.
 */
import type { WindowContext } from '../checks/window.ts';
import { plausibleReset } from '../observe/plausible-reset.ts';
import type { Observation } from '../observe/observation.ts';
import type { Edge, HttpProber, ProbeTags } from './http-prober.ts';

export interface WindowSyncOptions {
  readonly windowMs: number;
  /** Offset of the server clock from ours (ms), when known. */
  readonly clockOffsetMs: number;
  readonly densePollMs: number;
  readonly signal: AbortSignal;
}

export type WindowSyncResult =
  | { readonly ok: true; readonly window: WindowContext; readonly polls: readonly Observation[] }
  | { readonly ok: false; readonly reason: string; readonly polls: readonly Observation[] };

const DENSE_LEAD_MS = 400;

export async function awaitFreshWindow(
  prober: HttpProber,
  edge: Edge,
  key: string,
  tags: Omit<ProbeTags, 'phase'>,
  options: WindowSyncOptions,
): Promise<WindowSyncResult> {
  const polls: Observation[] = [];
  const windowS = options.windowMs / 1000;
  const deadline = prober.now() + options.windowMs * 2 + 2000;
  const head = async () => {
    const o = await prober.send(edge, { method: 'HEAD', path: '/recruiter/bootstrap', key }, { ...tags, phase: 'window-sync' });
    polls.push(o);
    return o;
  };
  let previous = await head();
  if (previous.status === null) return { ok: false, reason: `window sync failed: ${previous.error?.code}`, polls };
  while (prober.now() < deadline && !options.signal.aborted) {
    const untilBoundary = msUntilBoundary(previous, windowS, options.clockOffsetMs, prober.now());
    const pause = untilBoundary > DENSE_LEAD_MS ? untilBoundary - DENSE_LEAD_MS : options.densePollMs;
    await sleep(Math.min(pause, options.windowMs), options.signal);
    const current = await head();
    if (current.status === null) return { ok: false, reason: `window sync failed: ${current.error?.code}`, polls };
    if (boundaryBetween(previous, current, windowS)) {
      const reset = plausibleReset(current, windowS);
      return {
        ok: true,
        polls,
        window: {
          openedAt: current.headersAt ?? current.doneAt,
          openedUncertaintyMs: (current.headersAt ?? current.doneAt) - previous.sentAt,
          lengthMs: options.windowMs,
          resetEpochS: reset,
        },
      };
    }
    previous = current;
  }
  return {
    ok: false,
    reason: options.signal.aborted ? 'interrupted' : `no window boundary seen within ${Math.round((options.windowMs * 2 + 2000) / 1000)} s`,
    polls,
  };
}

/** A window boundary fell between two consecutive responses. */
export function boundaryBetween(previous: Observation, current: Observation, windowS: number): boolean {
  const before = plausibleReset(previous, windowS);
  const after = plausibleReset(current, windowS);
  if (before !== null && after !== null) return after > before;
  const d0 = previous.date ? Date.parse(previous.date) / 1000 : NaN;
  const d1 = current.date ? Date.parse(current.date) / 1000 : NaN;
  if (!Number.isFinite(d0) || !Number.isFinite(d1)) return false;
  return Math.floor(d1 / windowS) > Math.floor(d0 / windowS);
}

/** Predicted ms until the next boundary, from a plausible Reset or from Date; 0 when unknown. */
function msUntilBoundary(o: Observation, windowS: number, offsetMs: number, nowRun: number): number {
  const elapsed = nowRun - (o.headersAt ?? o.doneAt);
  const reset = plausibleReset(o, windowS);
  const dateS = o.date ? Date.parse(o.date) / 1000 : NaN;
  if (reset !== null) {
    const serverNowMs = o.sentWall + offsetMs + (o.headersAt ?? o.doneAt) - o.sentAt + elapsed;
    return Math.max(0, reset * 1000 - serverNowMs);
  }
  if (Number.isFinite(dateS)) {
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
