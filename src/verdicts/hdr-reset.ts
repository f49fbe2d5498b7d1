/**
 * HDR-RESET (§8): X-RateLimit-Reset is Unix epoch seconds — not milliseconds, not
 * seconds-until-reset — in (Date, Date + window] by the server's own clock, and one value per window:
 * it changes only when a new window begins (Remaining back up, or admission after a 429), and not
 * before the reset it announced has come. How windows start is left open (clock multiples or the
 * first request both keep this).
 *
 * The Date header is second-resolution and servers cache it (Node refreshes its cached Date on
 * a timer, which can fire late), so Date may read up to one second behind the instant Reset was
 * computed: the upper bound is Date + window + 1. And Date may be stamped after the request was
 * decided, by up to the answer's own lag (an admission just before a boundary answered just after
 * it, an upload parsed for seconds): the lower bound is Date less that lag.
 *
 * Under a dialect the config declares that writes the reset as seconds until the quota returns (t,
 * every IETF dialect), 0 ≤ t ≤ W, and each response's t names a span of the harness's own clock
 * (its send and answer, plus t, to a second of rounding): one end per window (the spans meet),
 * changing only when a new window begins and not before the one announced, and the quota really
 * back by then (no refusal sent after the span). Date + t is what the figures show a reader; the
 * judging does not rest on Date, which a busy server may serve a second or more stale.
 */
import type { Observation } from '../measure/observation.ts';
import { EPOCH_MS_FLOOR, EPOCH_S_FLOOR } from '../measure/reset-format.ts';
import { TOO_MANY_REQUESTS, countOf, finding, isAdmitted, listSome, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { WindowContext } from '../measure/window.ts';
import { answerLagS, resetNotBeforeRequest, serverDateSeconds } from './support/window-integrity.ts';
import { inServerOrder, type ReleasedTogether } from './support/released-together.ts';
import {
  declaredDialectOf,
  fieldTitle,
  figureField,
  figureTitle,
  resetInSecondsUntil,
  type DeclaredDialect,
} from './support/dialect.ts';

/** Tolerated staleness of a cached Date header, seconds. */
const DATE_STALENESS_S = 1;
const MAX_SAMPLES = 6;
/**
 * A new window may show up to this many seconds before the Reset the old one announced, by Date: the
 * announced Reset may be rounded up (a second) and Date served a second stale.
 */
const EARLY_TOLERANCE_S = 2;

/**
 * Whether a new window may have begun between two responses. Not when both were refused (the quota
 * stayed used up), nor when an admission follows an admission with Remaining lower (counting down),
 * nor when an admission is followed by a refusal. Anything else may be a new window.
 */
function newWindowBetween(a: Observation, b: Observation): boolean {
  const refused = (o: Observation) => o.status === TOO_MANY_REQUESTS;
  if (refused(a) && refused(b)) return false;
  if (isAdmitted(a) && refused(b)) return false;
  if (isAdmitted(a) && isAdmitted(b)) {
    const [ra, rb] = [a.rateLimit.remaining.value, b.rateLimit.remaining.value];
    return ra === null || rb === null || rb >= ra;
  }
  return true;
}

/** `data` of HDR-RESET: the window judged by, the Resets placed by a Date and their values, and a few (request number, Date, Reset) samples, the changes among them. */
export type ResetData = {
  readonly windowSeconds: number;
  /** Responses whose Reset was placed by their Date and passed on its own. */
  readonly placed: number;
  /** The distinct values of those Resets, in the order they came: one per window. */
  readonly resets: readonly number[];
  readonly samples: readonly { readonly n: number; readonly date: number | null; readonly reset: number }[];
};

interface Sample {
  readonly n: number;
  readonly date: number | null;
  readonly reset: number;
  readonly id: number;
}

/** A problem with Reset, with the responses that show it. */
type ResetProblem = { reason: Reason; ids: number[] };

/** Every response's Reset judged on its own; those placed by a Date header kept as samples. */
interface ResetReadings {
  readonly problems: ResetProblem[];
  readonly valid: Sample[];
  readonly responses: number;
  readonly absent: number;
  readonly noDate: number;
}

/**
 * Judges each response's Reset alone (an integer epoch in its Date's window; under a seconds-until
 * dialect, a t within the window, placed at Date + t), and keeps those that pass with a Date.
 */
function readResets(obs: readonly Observation[], W: number, secondsUntil: DeclaredDialect | null): ResetReadings {
  const problems: ResetProblem[] = [];
  const valid: Sample[] = [];
  let responses = 0;
  let absent = 0;
  let noDate = 0;

  for (const [i, o] of obs.entries()) {
    if (o.status === null) continue;
    responses += 1;
    const n = i + 1;
    const h = o.rateLimit.reset;
    if (h.raw === null) {
      absent += 1;
      continue;
    }
    const v = h.value;
    if (v === null) {
      problems.push({ reason: unreadableReset(o), ids: [o.id] });
      continue;
    }
    const date = serverDateSeconds(o);
    const problem =
      secondsUntil === null
        ? judgeOne({ request: n, reset: v, date }, W, o)
        : v > W
          ? because('reset-seconds-beyond-window', { request: n, seconds: v, window: W })
          : null;
    if (problem) {
      problems.push({ reason: problem, ids: [o.id] });
      continue;
    }
    if (date === null) noDate += 1;
    else valid.push({ n, date, reset: secondsUntil === null ? v : date + v, id: o.id });
  }
  return { problems, valid, responses, absent, noDate };
}

/** A Reset that gives no integer: as §8's header, or as the declared dialect's field. */
function unreadableReset(o: Observation): Reason {
  const raw = o.rateLimit.reset.raw ?? '';
  const dialect = o.rateLimit.dialect?.name;
  if (dialect === undefined) return because('header-not-integer', { header: 'Reset', raw, request: o.id });
  return because('dialect-figure-unreadable', {
    field: fieldTitle(figureField(dialect, 'Reset')),
    figure: figureTitle(dialect, 'Reset'),
    raw,
    request: o.id,
  });
}

/** The Resets' changes over the series, and the first that went back and the first that moved within a window. */
function judgeRollover(
  valid: readonly Sample[],
  obs: readonly Observation[],
  wobble: readonly [number, number] | null,
): { changes: Sample[]; problems: ResetProblem[] } {
  // Rollover: a Reset changes only with a new window, and not before the reset it announced.
  // Windows only advance: a Reset earlier than the one before it (edges or backends whose clocks
  // disagree) means two windows were in force at once.
  const changes: Sample[] = [];
  const problems: ResetProblem[] = [];
  let wentBack = false;
  let moved = false;
  for (const [i, s] of valid.entries()) {
    const before = valid[i - 1];
    if (before === undefined || s.reset === before.reset) continue;
    // A Reset computed as ceil(now + time left) from two clock reads flips by a second near a
    // whole second, and back: one window's end, rounded two ways.
    if (wobble && Math.abs(s.reset - before.reset) === 1) continue;
    changes.push(s);
    if (s.reset < before.reset && !wentBack) {
      wentBack = true;
      problems.push({
        reason: because('reset-went-back', {
          request: s.n,
          from: before.reset,
          to: s.reset,
          dateBefore: before.date,
          dateAfter: s.date,
        }),
        ids: [before.id, s.id],
      });
      continue;
    }
    if (moved) continue;
    const early = s.date !== null && s.date < before.reset - EARLY_TOLERANCE_S;
    const fresh = newWindowBetween(obs[before.n - 1]!, obs[s.n - 1]!);
    if (early || !fresh) {
      moved = true;
      const change = { request: s.n, from: before.reset, to: s.reset };
      const reason =
        !fresh || s.date === null
          ? because('reset-moved-mid-window', change)
          : because('reset-moved-early', { ...change, date: s.date });
      problems.push({ reason, ids: [before.id, s.id] });
    }
  }
  return { changes, problems };
}

/**
 * When, by the harness's monotonic clock, the quota returns as a response's t says: the server read
 * its clock between the request's send and its answer, and wrote the time left rounded to a whole
 * second (up or down, as servers differ), so the end lies within a second of that span plus t.
 * Unlike Date + t, this needs no Date, which is second-resolution and may be served stale by a busy
 * server.
 */
interface EndSpan {
  readonly lo: number;
  readonly hi: number;
}

function endSpanOf(o: Observation, t: number): EndSpan {
  return { lo: o.sentAt + (t - 1) * 1000, hi: (o.headersAt ?? o.doneAt) + (t + 1) * 1000 };
}

/**
 * The rollover of resets written as seconds until (a declared dialect's t). Responses that no new
 * window can separate (a countdown, refusals after it) must name one end: their spans meet, or the
 * reset moved mid-window. Where a new window may have begun, a span that meets the one before is
 * taken as the same end (nothing is proven), and one that does not is a change: it went back when
 * it ends before the other could, and came early when the server was in the new window before the
 * old could have ended. A refusal sent after the latest the quota could have returned shows it was
 * not back when t said. Date + t (the `reset` of a sample) is kept for the figures a reader sees.
 */
function judgeRolloverPlaced(
  valid: readonly Sample[],
  obs: readonly Observation[],
): { changes: Sample[]; problems: ResetProblem[]; windows: number[] } {
  const changes: Sample[] = [];
  const problems: ResetProblem[] = [];
  const windows: number[] = [];
  const flagged = new Set<string>();
  const flag = (code: string, reason: Reason, ids: number[]) => {
    if (flagged.has(code)) return;
    flagged.add(code);
    problems.push({ reason, ids });
  };
  let span: EndSpan | null = null;
  let anchor: Sample | undefined;
  for (const [i, s] of valid.entries()) {
    const before = valid[i - 1];
    const later = obs[s.n - 1]!;
    const own = endSpanOf(later, later.rateLimit.reset.value!);
    if (span === null || anchor === undefined || before === undefined) {
      [span, anchor] = [own, s];
      windows.push(s.reset);
      continue;
    }
    if (later.status === TOO_MANY_REQUESTS && later.sentAt > span.hi && s.date !== null)
      flag('not-back', because('reset-quota-not-back', { request: s.n, reset: anchor.reset, date: s.date }), [
        anchor.id,
        s.id,
      ]);
    const meets = Math.max(span.lo, own.lo) <= Math.min(span.hi, own.hi);
    const mayBeNew = newWindowBetween(obs[before.n - 1]!, later);
    if (meets) {
      // One end, narrowed; where a new window may have begun, its own span starts afresh.
      span = mayBeNew ? own : { lo: Math.max(span.lo, own.lo), hi: Math.min(span.hi, own.hi) };
      if (mayBeNew) anchor = s;
      continue;
    }
    changes.push(s);
    const change = { request: s.n, from: anchor.reset, to: s.reset };
    if (!mayBeNew) flag('moved', because('reset-moved-mid-window', change), [anchor.id, s.id]);
    else if (own.hi < span.lo)
      flag('back', because('reset-went-back', { ...change, dateBefore: anchor.date, dateAfter: s.date }), [
        anchor.id,
        s.id,
      ]);
    else if ((later.headersAt ?? later.doneAt) < span.lo && s.date !== null)
      flag('moved', because('reset-moved-early', { ...change, date: s.date }), [anchor.id, s.id]);
    [span, anchor] = [own, s];
    windows.push(s.reset);
  }
  return { changes, problems, windows };
}

/** What the verdict says alongside: responses without a Date, a learned window no response showed. */
function resetNotes(read: ResetReadings, window?: WindowContext): string[] {
  const { valid, noDate } = read;
  const base = valid[0];
  const notes: string[] = [];
  if (noDate > 0) notes.push(`${countOf(noDate, 'response')} without a Date header could not be placed in time`);
  if (
    window &&
    window.resetEpochS !== null &&
    base !== undefined &&
    !valid.some((s) => s.reset === window.resetEpochS)
  ) {
    notes.push(`the harness learned a window ending at ${window.resetEpochS}; no response showed that Reset`);
  }
  return notes;
}

/**
 * What each verdict rests on: two values a second apart, back and forth, taken as one window; and
 * responses without Reset, HDR-PRESENT's (none at all fails here).
 */
function resetRestsOn(read: ResetReadings, wobble: readonly [number, number] | null): Reason[] {
  const { absent, responses } = read;
  return [
    ...(wobble ? [because('reset-rounding-wobble', { low: wobble[0], high: wobble[1] })] : []),
    ...(absent > 0 && absent < responses
      ? [because('header-absent-on-some', { header: 'Reset', responses: absent })]
      : []),
  ];
}

/** §8: on every response. None at all is the header missing, not a lack of evidence. */
function absentEverywhere(
  read: ResetReadings,
  obs: readonly Observation[],
  dialect: DeclaredDialect | null,
): ResetProblem[] {
  const { responses, absent } = read;
  if (responses === 0 || absent < responses) return [];
  const header = dialect === null ? 'X-RateLimit-Reset' : fieldTitle(figureField(dialect, 'Reset'));
  const reason = because('header-absent-everywhere', { header, responses });
  return [{ reason, ids: obs.slice(0, 3).map((o) => o.id) }];
}

export function resetEpochVerdict(
  series: readonly Observation[],
  windowSeconds: number,
  window?: WindowContext,
  together: readonly ReleasedTogether[] = [],
): Finding<ResetData> {
  // Requests released together are read in an order the server may have taken them in.
  const obs = inServerOrder(series, together);
  const W = windowSeconds;
  const dialect = declaredDialectOf(obs);
  const placed = resetInSecondsUntil(dialect) ? dialect : null;
  const expected = resetExpected(W, placed);
  const read = readResets(obs, W, placed);
  const { valid, responses } = read;
  const wobble = placed === null ? roundingWobble(valid) : null;
  const rollover =
    placed === null ? { ...judgeRollover(valid, obs, wobble), windows: null } : judgeRolloverPlaced(valid, obs);
  const changes = rollover.changes;
  const problems = [...read.problems, ...rollover.problems, ...absentEverywhere(read, obs, dialect)];
  const base = valid[0];
  const samples = pickSamples(valid, changes).map(({ n, date, reset }) => ({ n, date, reset }));
  const resets = rollover.windows ?? [...new Set(valid.map((s) => s.reset))];
  const data: ResetData = { windowSeconds: W, placed: valid.length, resets, samples };
  const notes = resetNotes(read, window);
  const restsOn = resetRestsOn(read, wobble);

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: listSome(problems.map((p) => reasonText(p.reason))),
      evidence: problems.slice(0, 3).flatMap((p) => p.ids),
      notes,
      reasons: atLeastOne([...problems.map((p) => p.reason), ...restsOn]),
      data,
    });
  }
  if (valid.length === 0 || base === undefined) {
    const open =
      responses === 0
        ? because('no-answers-to-judge', { sent: obs.length })
        : because('reset-unplaceable', { responses });
    const evidence = obs.slice(0, 3).map((o) => o.id);
    return finding('inconclusive', {
      expected,
      actual: reasonText(open),
      evidence,
      notes,
      reasons: [open, ...restsOn],
      data,
    });
  }
  if (W > 1 && !secondsApartInOneWindow(valid, obs)) {
    // A Reset that moves with time (now + window) moves once a second: responses all within one
    // second of the server's clock would show it unmoved. The claim is untested, not kept.
    const untested = because('reset-within-one-second', {
      reset: base.reset,
      responses: valid.length,
      date: base.date,
    });
    return finding('inconclusive', {
      expected,
      actual: reasonText(untested),
      evidence: [base.id, valid.at(-1)!.id],
      notes,
      reasons: [untested, ...restsOn],
      data,
      measureAgain: 'next-window',
    });
  }
  const windows = resets.length === 1 ? `Reset ${base.reset}` : `${resets.length} windows (${resets.join(', ')})`;
  const within = placed === null ? `(Date, Date + ${data.windowSeconds} s]` : `t ≤ ${data.windowSeconds} s of its Date`;
  return finding('pass', {
    expected,
    actual: `${windows} over ${data.placed} responses, each within ${within}`,
    evidence: [base.id, ...changes.slice(0, 3).map((s) => s.id)],
    notes,
    reasons: restsOn,
    data,
  });
}

/** The sentence HDR-RESET holds the series to: §8's epoch, or a declared dialect's seconds until. */
function resetExpected(W: number, placed: DeclaredDialect | null): string {
  if (placed === null)
    return `Reset is integer epoch seconds in (Date, Date + ${W} s], one value per window, changing only when a new window begins`;
  return `${figureTitle(placed, 'Reset')} is the integer seconds until the quota returns, at most ${W}: placed at Date + t, one instant per window, changing only when a new window begins, and the quota back by then`;
}

/**
 * Whether two responses in one window (no new window possible between any two in turn) carry
 * different Date seconds: the evidence a moving Reset needs to show.
 */
function secondsApartInOneWindow(valid: readonly Sample[], obs: readonly Observation[]): boolean {
  let first = valid[0];
  for (const [i, s] of valid.entries()) {
    const before = valid[i - 1];
    if (before === undefined || first === undefined) continue;
    if (newWindowBetween(obs[before.n - 1]!, obs[s.n - 1]!)) first = s;
    else if (s.date !== first.date) return true;
  }
  return false;
}

/**
 * Two Reset values one second apart that the server went back and forth between (v, v+1, v): the
 * rounding of one end, not two windows. Null when the values do not flip back.
 */
function roundingWobble(valid: readonly Sample[]): readonly [number, number] | null {
  const values = [...new Set(valid.map((s) => s.reset))].sort((a, b) => a - b);
  if (values.length !== 2 || values[1]! - values[0]! !== 1) return null;
  const changes = valid.filter((s, i) => i > 0 && s.reset !== valid[i - 1]!.reset).length;
  return changes >= 2 ? [values[0]!, values[1]!] : null;
}

/** The first thing wrong with one Reset value (of request `request` in the series), or null. */
function judgeOne(
  at: { readonly request: number; readonly reset: number; readonly date: number | null },
  W: number,
  o: Observation,
): Reason | null {
  const { request, reset, date } = at;
  if (reset > EPOCH_MS_FLOOR) return because('reset-in-milliseconds', { request, reset });
  if (reset <= W * 2 || reset < EPOCH_S_FLOOR) return because('reset-looks-like-delta', { request, reset, date });
  if (date === null) return null;
  if (!resetNotBeforeRequest(reset, date, o)) {
    return because('reset-before-request', { request, reset, date, lagS: Math.round(answerLagS(o) * 10) / 10 });
  }
  if (reset > date + W + DATE_STALENESS_S) return because('reset-beyond-window', { request, reset, date, window: W });
  return null;
}

function pickSamples(valid: readonly Sample[], changes: readonly Sample[]): Sample[] {
  const picked = new Map<number, Sample>();
  const add = (s: Sample | undefined) => {
    if (s && picked.size < MAX_SAMPLES) picked.set(s.n, s);
  };
  add(valid[0]);
  for (const s of changes) add(s);
  add(valid.at(-1));
  return [...picked.values()].sort((a, b) => a.n - b.n);
}
