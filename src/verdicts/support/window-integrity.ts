/**
 * Did a check's requests all fall inside one quota window? (README "How it measures".)
 * Judged from the server's own clock — X-RateLimit-Reset against the Date header — except where
 * the harness's learned window timing decides: a window the check's first request opened, windows
 * placed by timing (a Reset that moves), and a server that gives no usable Reset.
 * Quota-type verdicts turn "not within one window" into inconclusive.
 */
import { because, reasonText, type Reason } from '../../catalogue/reasons/index.ts';
import type { Placement } from '../../catalogue/reasons/quota.ts';
import type { Observation } from '../../measure/observation.ts';
import { EPOCH_S_FLOOR } from '../../measure/reset-format.ts';
import { windowSafeEnd, windowStart, type WindowContext } from '../../measure/window.ts';

/** Below this an epoch in seconds is still "now-ish" (up to 2286; the floor is EPOCH_S_FLOOR); used only when Date is absent. */
const EPOCH_S_MAX = 1e10;
/** Client/server clock skew tolerated when only the client clock is available. */
const SKEW_TOLERANCE_S = 86_400;

/** The response's Date header as epoch seconds (the header has second resolution), or null. */
export function serverDateSeconds(o: Observation): number | null {
  if (o.date === null) return null;
  const ms = Date.parse(o.date);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export interface ResetReading {
  /** The Reset value when it is a plausible epoch in seconds, else null. */
  readonly reset: number | null;
  /** What it was judged against: the server's Date header, or (no Date) the client's wall clock. */
  readonly basis: 'date' | 'client-clock' | null;
  readonly note: string;
}

/**
 * Seconds the server may have taken between deciding a request and stamping its Date: at most the
 * response's own round trip. A window that was in force when the request was decided can have ended
 * by the time Date was written (an admission just before a boundary, answered just after it, or an
 * upload parsed for seconds), so its Reset may lie that far before Date and still be the truth.
 */
export function answerLagS(o: Observation): number {
  const lag = (o.headersAt ?? o.doneAt) - o.sentAt;
  return Number.isFinite(lag) && lag > 0 ? lag / 1000 : 0;
}

/**
 * Whether an epoch-seconds Reset names a window that had not ended before the request was decided:
 * later than the response's Date less the answer's lag (Date is floored to the second, Reset is whole
 * seconds: a Reset equal to a Date stamped just after the boundary is still the request's window).
 */
export function resetNotBeforeRequest(reset: number, date: number, o: Observation): boolean {
  return reset + answerLagS(o) > date;
}

/** Reads X-RateLimit-Reset and says whether it is a plausible epoch, and on what basis. */
export function readReset(o: Observation, windowSeconds: number): ResetReading {
  const { raw, value } = o.rateLimit.reset;
  if (value === null) {
    return {
      reset: null,
      basis: null,
      note: raw === null ? 'no X-RateLimit-Reset' : `Reset '${raw}' is not an integer`,
    };
  }
  const date = serverDateSeconds(o);
  if (date !== null) {
    const ok = resetNotBeforeRequest(value, date, o) && value <= date + windowSeconds + 1;
    return ok
      ? { reset: value, basis: 'date', note: `Reset ${value} within [Date, Date + ${windowSeconds + 1} s]` }
      : { reset: null, basis: 'date', note: `Reset ${value} not within [Date ${date}, Date + ${windowSeconds + 1} s]` };
  }
  const client = o.sentWall / 1000;
  const ok =
    value >= EPOCH_S_FLOOR && value <= EPOCH_S_MAX && Math.abs(value - client) <= windowSeconds + SKEW_TOLERANCE_S;
  return ok
    ? {
        reset: value,
        basis: 'client-clock',
        note: `no Date header; Reset ${value} judged against the client clock (±1 day)`,
      }
    : {
        reset: null,
        basis: 'client-clock',
        note: `no Date header; Reset ${value} is not an epoch near the client clock`,
      };
}

/**
 * The end of the window a response belongs to, epoch seconds, for placing responses in windows (not
 * for judging the header, which HDR-RESET does): its Reset read as epoch seconds, or else as epoch
 * milliseconds, when plausible against its Date. Null for a delta, garbage, or no Date.
 */
export function windowEndOf(o: Observation, windowSeconds: number): number | null {
  const reading = readReset(o, windowSeconds);
  if (reading.reset !== null) return reading.reset;
  const value = o.rateLimit.reset.value;
  const date = serverDateSeconds(o);
  if (value === null || date === null) return null;
  const seconds = value / 1000;
  return date <= seconds && seconds <= date + windowSeconds + 1 ? seconds : null;
}

/**
 * Whether two responses provably fall in one fixed window (assumption fixed-windows: whole-second
 * windows aligned to the epoch) by their Date headers alone, for servers whose Reset is unusable.
 * Date is floored to the second and may be served up to a second stale, so a response dated D was
 * answered in [D, D + 2): no window boundary may lie in (earlier D, later D + 1].
 */
export function sameFixedWindowByDate(a: Observation, b: Observation, windowSeconds: number): boolean {
  const da = serverDateSeconds(a);
  const db = serverDateSeconds(b);
  if (da === null || db === null || !Number.isInteger(windowSeconds) || windowSeconds < 1) return false;
  const [early, late] = da <= db ? [da, db] : [db, da];
  return Math.floor(early / windowSeconds) === Math.floor((late + 1) / windowSeconds);
}

/**
 * Whether a series fell in one window: where it did, how that is known (a note, or a reason where the
 * result rests on it as a caveat: placed by timing); where it did not, why (a reason). A reason is
 * rendered into `note` for the verdicts that quote it.
 */
export type WindowIntegrity =
  | { readonly ok: true; readonly note: string; readonly reason?: Reason }
  | { readonly ok: false; readonly reason: Reason; readonly note: string };

/** What a result that stands on a window shown whole says of it: its reason where it has one, else its note. */
export function integrityGrounds(integrity: Extract<WindowIntegrity, { ok: true }>): {
  notes: string[];
  reasons: Reason[];
} {
  return integrity.reason ? { notes: [], reasons: [integrity.reason] } : { notes: [integrity.note], reasons: [] };
}

/** A series not shown in one window, for `reason`. */
export function notInOneWindow(reason: Reason): WindowIntegrity {
  return { ok: false, reason, note: reasonText(reason) };
}

/**
 * By timing alone where the window opened with the check's first request or is placed by timing;
 * else true when (a) every response carries a plausible Reset and all are equal, or (b) some Resets
 * are implausible or absent and every request was sent after the window opened and finished before
 * it could have closed (`openedAt + lengthMs - openedUncertaintyMs`). Plausible Resets that
 * differ mean the window rolled over mid-check: not ok. Transport failures carry no Reset; under
 * (a) they sit among responses of one window and are not judged, by timing they are timed too.
 */
export function withinOneWindow(obs: readonly Observation[], window: WindowContext): WindowIntegrity {
  if (obs.length === 0) return notInOneWindow(because('nothing-to-place', {}));
  const windowSeconds = Math.max(1, Math.ceil(window.lengthMs / 1000));
  // A window the check's first request opened lasts a full length from it, whatever Reset says; and a
  // Reset that moves within a window places nothing (HDR-RESET's finding): judged by timing alone.
  if (window.opensAtFirstRequest)
    return byTiming(obs, window, { placedBy: 'first-request', lackingReset: 0, responses: obs.length });
  if (window.placeBy === 'timing')
    return byTiming(obs, window, { placedBy: 'timing', lackingReset: 0, responses: obs.length });

  let previous: number | null = null;
  let plausible = 0;
  let responses = 0;
  let basis: ResetReading['basis'] = null;
  for (const [i, o] of obs.entries()) {
    if (o.status === null) continue;
    responses += 1;
    const reading = readReset(o, windowSeconds);
    if (reading.reset === null) continue;
    plausible += 1;
    if (reading.basis === 'client-clock' || basis === null) basis = reading.basis;
    if (previous !== null && reading.reset !== previous) {
      return notInOneWindow(because('window-rolled-over', { from: previous, to: reading.reset, atRequest: i + 1 }));
    }
    previous = reading.reset;
  }

  if (responses > 0 && plausible === responses && previous !== null) {
    const where = basis === 'client-clock' ? ' (no Date header: Resets judged against the client clock)' : '';
    const learned =
      window.resetEpochS !== null && window.resetEpochS !== previous
        ? `; note: the window the harness learned ends at ${window.resetEpochS}`
        : '';
    return { ok: true, note: `all ${responses} responses share Reset ${previous}${where}${learned}` };
  }

  return byTiming(obs, window, { placedBy: 'reset', lackingReset: responses - plausible, responses });
}

/** Every request sent after the window opened and finished before its safe end. */
function byTiming(obs: readonly Observation[], window: WindowContext, placement: Placement): WindowIntegrity {
  const start = windowStart(window, obs[0]);
  const safeEnd = windowSafeEnd(window, obs[0]);
  if (![start.at, window.lengthMs, start.uncertaintyMs].every(Number.isFinite)) {
    return notInOneWindow(because('window-timing-unknown', placement));
  }
  for (const [i, o] of obs.entries()) {
    const atRequest = i + 1;
    // NaN compares false with everything: it would pass both tests below.
    if (!Number.isFinite(o.sentAt) || !Number.isFinite(o.doneAt)) {
      return notInOneWindow(because('request-time-unusable', { ...placement, atRequest }));
    }
    if (o.sentAt < start.at) {
      return notInOneWindow(
        because('sent-before-window', { ...placement, atRequest, earlyMs: Math.round(start.at - o.sentAt) }),
      );
    }
    if (o.doneAt > safeEnd) {
      return notInOneWindow(
        because('finished-after-safe-end', {
          ...placement,
          atRequest,
          lateMs: Math.round(o.doneAt - safeEnd),
          windowMs: window.lengthMs,
          uncertaintyMs: start.uncertaintyMs,
        }),
      );
    }
  }
  const inside = because('inside-window-by-timing', {
    ...placement,
    requests: obs.length,
    windowMs: window.lengthMs,
    uncertaintyMs: start.uncertaintyMs,
  });
  return { ok: true, note: reasonText(inside), reason: inside };
}
