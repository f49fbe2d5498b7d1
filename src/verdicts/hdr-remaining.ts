/**
 * HDR-REMAINING (§8): over sequential counted requests in one window, X-RateLimit-Remaining goes
 * Limit−1, Limit−2, … by exactly one per admitted request, is never negative, and is 0 on a 429.
 * 429s consume nothing (`counted-requests`). A request whose counting is unknown (no response,
 * an unexpected status, no Remaining) widens the allowance of the steps after it until its count has
 * shown (it may reach the limiter after a later request), and makes a clean series inconclusive
 * rather than pass. A first Remaining other than Limit−1 is only noted when the series
 * then counts down by one to 0 exactly at the first 429: Remaining agrees with what the server
 * admitted, and the announced Limit (HDR-LIMIT's finding) or quota spent before the check's first
 * request explains the difference. An admission past Remaining 0 fails: it cannot decrement.
 * Under a dialect the config declares (observations carry it), Remaining is the dialect's (r), judged
 * the same; where no response announced a Limit (no policy: HDR-PRESENT's), a countdown that meets the
 * first 429 exactly is what the server admitted, and passes saying so.
 */
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, countOf, finding, isAdmitted, listSome, outcomeOf, atLeastOne } from './support/finding.ts';
import { announcedLimit } from './hdr-limit.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason, type ReasonFigures } from '../catalogue/reasons/index.ts';
import type { WindowContext } from '../measure/window.ts';
import { lostByRemaining, lostReason, type LostReading } from './support/lost-requests.ts';
import { withinOneWindow } from './support/window-integrity.ts';
import { spentBefore } from './support/quota-window.ts';
import { uncountedTogether, type ReleasedTogether } from './support/released-together.ts';
import { declaredDialectOf, fieldTitle, figureField, figureTitle, type DeclaredDialect } from './support/dialect.ts';

export interface SeriesPoint {
  /** 1-based request number in send order. */
  readonly n: number;
  readonly status: number | null;
  readonly remaining: number | null;
  readonly limit: number | null;
}

/** The countdown a walked series showed: the first and last admitted Remaining, the admissions, the 429s showing 0. */
export interface Countdown {
  readonly first: number;
  readonly last: number;
  readonly admitted: number;
  readonly zeroOn429: number;
}

/** `data` of HDR-REMAINING: the series the report charts, the Limit it agreed on, and the countdown walked (null: none). */
export type RemainingData = {
  readonly series: readonly SeriesPoint[];
  readonly limit: number | null;
  readonly countdown: Countdown | null;
};

export function seriesOf(obs: readonly Observation[]): SeriesPoint[] {
  return obs.map((o, i) => ({
    n: i + 1,
    status: o.status,
    remaining: o.rateLimit.remaining.value,
    limit: o.rateLimit.limit.value,
  }));
}

/** A problem in the series, with the responses that show it. */
type SeriesProblem = { reason: Reason; ids: number[] };

/** What walking the series in send order gathers: its problems, its unclear requests, and where the countdown stood. */
interface RemainingWalk {
  /** The Limit every response agreed on, else null; and every integer Limit announced. */
  readonly L: number | null;
  readonly limits: readonly number[];
  /** The harness's own requests counted in this window before the first. */
  readonly spent: number;
  /** The dialect the config declared, where one was. */
  readonly dialect: DeclaredDialect | null;
  /** Under a declared dialect, no Limit announced at all: the first admitted Remaining, forgiven if the countdown meets the 429. */
  startUnannounced: { readonly request: number; readonly first: number } | null;
  readonly problems: SeriesProblem[];
  /** Why the series cannot pass however the rest goes: requests of unknown counting, no Limit to start from. */
  readonly unclear: Reason[];
  prev: { n: number; remaining: number; id: number } | null;
  gaps: number;
  /**
   * Requests of unknown counting before the last admission whose count has not shown yet: one can
   * reach the limiter late (after a later request), so its decrement may come at any later step.
   */
  pending: number;
  admitted: number;
  first: { remaining: number; id: number } | null;
  readonly zeroOn429: number[];
  absentOn429: number;
  /** A first Remaining off the announced Limit; forgiven if the countdown matches what was admitted. */
  startProblem: { readonly figures: ReasonFigures<'remaining-start-off'>; readonly id: number } | null;
  /** Whether the last admission before the first 429 showed Remaining 0 (the countdown met the 429). */
  countdownMet429: boolean | null;
  /** Parts released together whose values of Remaining came more than once (a counter read apart from its decrement). */
  readonly repeated: Reason[];
}

/** The sentence HDR-REMAINING holds the series to, by the announced Limit where there is one. */
function remainingExpected(L: number | null, dialect: DeclaredDialect | null): string {
  const remaining = dialect === null ? 'Remaining' : `Remaining (${figureTitle(dialect, 'Remaining')})`;
  return L !== null
    ? `${remaining} ${L - 1}, ${L - 2}, … one less per admitted request (Limit ${L}), never negative, 0 on every 429`
    : `${remaining} Limit−1, Limit−2, … one less per admitted request, never negative, 0 on every 429`;
}

/** Walks the series in send order, judging each 429 and each admission's step from the one before. */
function walkRemaining(
  obs: readonly Observation[],
  limit: { readonly value: number | null; readonly values: readonly number[] },
  spent: number,
  lost: ReadonlyMap<number, LostReading>,
  together: readonly ReleasedTogether[],
): RemainingWalk {
  const w: RemainingWalk = {
    L: limit.value,
    limits: limit.values,
    spent,
    dialect: declaredDialectOf(obs),
    startUnannounced: null,
    problems: [],
    unclear: [],
    prev: null,
    gaps: 0,
    pending: 0,
    admitted: 0,
    first: null,
    zeroOn429: [],
    absentOn429: 0,
    startProblem: null,
    countdownMet429: null,
    repeated: [],
  };
  for (let i = 0; i < obs.length; i++) {
    const part = together.find((t) => t.from === i);
    if (part) {
      stepTogether(w, obs, part);
      i = part.to - 1;
      continue;
    }
    const o = obs[i]!;
    const n = i + 1;
    if (o.status === TOO_MANY_REQUESTS) judge429(w, o, n);
    else if (!isAdmitted(o)) {
      w.gaps += 1;
      if (!lost.has(i)) w.unclear.push(because('counting-unknown', { request: n, outcome: outcomeOf(o) }));
    } else stepAdmitted(w, o, n);
  }
  return w;
}

/** A 429 must show Remaining 0; the first one also says whether the countdown met it. */
function judge429(w: RemainingWalk, o: Observation, n: number): void {
  const r = o.rateLimit.remaining;
  if (w.countdownMet429 === null) w.countdownMet429 = w.prev !== null && w.prev.remaining === 0 && w.gaps === 0;
  if (r.raw === null) w.absentOn429 += 1;
  else if (r.value === null) w.problems.push(notInteger(o));
  else if (r.value !== 0)
    w.problems.push({ reason: because('remaining-not-zero-on-429', { request: n, remaining: r.value }), ids: [o.id] });
  else w.zeroOn429.push(o.id);
}

/** An admission: its Remaining is judged as the first of the series or as a step from the one before. */
function stepAdmitted(w: RemainingWalk, o: Observation, n: number): void {
  w.admitted += 1;
  const r = o.rateLimit.remaining;
  if (r.value === null) {
    w.gaps += 1;
    if (r.raw === null) w.unclear.push(because('remaining-unreadable', { request: n }));
    else w.problems.push(notInteger(o));
    return;
  }
  const v = r.value;
  if (w.prev === null) judgeFirstRemaining(w, v, n, o.id);
  else judgeStep(w, w.prev, v, o.id);
  w.prev = { n, remaining: v, id: o.id };
  w.gaps = 0;
}

/** The first admitted Remaining should be Limit − 1, less what was spent before (and any unclear requests). */
function judgeFirstRemaining(w: RemainingWalk, v: number, n: number, id: number): void {
  const { L, spent, gaps } = w;
  w.first = { remaining: v, id };
  if (L !== null && (v > L - 1 - spent || v < L - 1 - spent - gaps)) {
    w.startProblem = { figures: { request: n, first: v, expected: L - 1 - spent, limit: L, spent }, id };
  }
  if (L !== null) return;
  // Under a declared dialect with no Limit announced at all, the countdown may still meet the 429 (settleStart).
  if (w.dialect !== null && w.limits.length === 0) w.startUnannounced = { request: n, first: v };
  else w.unclear.push(because('no-consistent-limit', { limits: w.limits }));
}

/** One less than the admission before, allowing a decrement for each request of unknown counting since. */
function judgeStep(w: RemainingWalk, prev: { n: number; remaining: number; id: number }, v: number, id: number): void {
  const hi = prev.remaining - 1;
  const lo = prev.remaining - 1 - w.gaps - w.pending;
  // An admission past the Limit cannot decrement a Remaining of 0: "one less per counted request"
  // fails with it (as QUOTA-READ does).
  if (v < lo || v > hi) {
    const step = { after: prev.n, from: prev.remaining, to: v, unclear: w.gaps + w.pending };
    const reason =
      v >= prev.remaining ? because('remaining-not-decrementing', step) : because('remaining-skipped', step);
    w.problems.push({ reason, ids: [prev.id, id] });
  }
  w.pending = Math.max(0, w.pending + w.gaps - Math.max(0, hi - v));
}

/**
 * Requests released together, judged as one step: in any order among them, every admission takes a
 * value of Remaining from one below the count before them down to one per admission lower (wider by
 * the requests whose counting is unknown), each value once. A value given twice, within those bounds,
 * is a counter read apart from its decrement: what Remaining says is what remained when it was read
 * (§8), so it is a finding in the notes, and the count after them (the next step) still has to be
 * exact. A refusal with quota left among them is a cap's: it counted nothing and is not a quota 429.
 */
function stepTogether(w: RemainingWalk, obs: readonly Observation[], part: ReleasedTogether): void {
  const values: { v: number; id: number }[] = [];
  let unclear = 0;
  for (let i = part.from; i < part.to; i++) {
    const o = obs[i]!;
    if (uncountedTogether([part], o, i)) continue;
    if (o.status === TOO_MANY_REQUESTS) judge429(w, o, i + 1);
    else if (isAdmitted(o) && o.rateLimit.remaining.value !== null)
      values.push({ v: o.rateLimit.remaining.value, id: o.id });
    else {
      unclear += 1;
      if (isAdmitted(o) && o.rateLimit.remaining.raw !== null) w.problems.push(notInteger(o));
      else
        w.unclear.push(
          isAdmitted(o)
            ? because('remaining-unreadable', { request: i + 1 })
            : because('counting-unknown', { request: i + 1, outcome: outcomeOf(o) }),
        );
    }
  }
  const admitted =
    values.length +
    obs.slice(part.from, part.to).filter((o) => isAdmitted(o) && o.rateLimit.remaining.value === null).length;
  w.admitted += admitted;
  if (values.length === 0) {
    w.gaps += unclear + admitted;
    return;
  }
  const base = w.prev?.remaining ?? (w.L === null ? null : w.L - w.spent);
  const doubt = w.gaps + w.pending + unclear;
  if (base !== null) judgeTogetherValues(w, values, { base, admitted, doubt, part });
  const seen = new Set<number>();
  const twice = values.filter(({ v }) => seen.has(v) || !seen.add(v));
  if (twice.length > 0)
    w.repeated.push(
      because('remaining-repeated-together', {
        from: part.from + 1,
        to: part.to,
        repeats: twice.length,
        example: twice[0]!.v,
      }),
    );
  const lowest = Math.min(...values.map(({ v }) => v));
  const byCount = base === null ? lowest : base - admitted;
  w.first ??= { remaining: Math.max(...values.map(({ v }) => v)), id: values[0]!.id };
  w.prev = { n: part.to, remaining: Math.min(byCount, lowest), id: values.find(({ v }) => v === lowest)!.id };
  w.pending = Math.max(0, doubt - Math.max(0, byCount - lowest));
  w.gaps = 0;
}

/** Every value within one below `base` down to one per admission lower (and `doubt` more). */
function judgeTogetherValues(
  w: RemainingWalk,
  values: readonly { v: number; id: number }[],
  at: { readonly base: number; readonly admitted: number; readonly doubt: number; readonly part: ReleasedTogether },
): void {
  const [high, low] = [at.base - 1, at.base - at.admitted - at.doubt];
  const outside = values.filter(({ v }) => v > high || v < low);
  if (outside.length === 0) return;
  w.problems.push({
    reason: because('remaining-outside-together', {
      from: at.part.from + 1,
      to: at.part.to,
      values: outside.map(({ v }) => v),
      high,
      low,
      base: at.base,
    }),
    ids: outside.slice(0, 3).map(({ id }) => id),
  });
}

/** An admitted response or a 429 whose Remaining is no integer (under a declared dialect: gives none). */
function notInteger(o: Observation): SeriesProblem {
  const raw = o.rateLimit.remaining.raw ?? '';
  const dialect = o.rateLimit.dialect?.name;
  const reason =
    dialect === undefined
      ? because('header-not-integer', { header: 'Remaining', raw, request: o.id })
      : because('dialect-figure-unreadable', {
          field: fieldTitle(figureField(dialect, 'Remaining')),
          figure: figureTitle(dialect, 'Remaining'),
          raw,
          request: o.id,
        });
  return { reason, ids: [o.id] };
}

/**
 * Notes the 429s without Remaining, and forgives a first Remaining off the Limit when the countdown
 * met the first 429: returns the reason a result then rests on, else null.
 */
function settleStart(w: RemainingWalk, notes: string[]): Reason | null {
  if (w.absentOn429 > 0) notes.push(`${countOf(w.absentOn429, '429')} carried no Remaining (judged by HDR-PRESENT)`);
  if (w.startUnannounced !== null) {
    if (w.problems.length === 0 && w.countdownMet429 === true)
      return because('remaining-start-unannounced', w.startUnannounced);
    w.unclear.push(because('no-consistent-limit', { limits: w.limits }));
    return null;
  }
  if (w.startProblem === null) return null;
  const { figures, id } = w.startProblem;
  // Remaining that counts down by one to 0 exactly at the first 429 agrees with what the server
  // admitted: the odd one out is the announced Limit (HDR-LIMIT), or quota spent before the first request.
  if (w.problems.length === 0 && w.countdownMet429 === true) return because('remaining-start-explained', figures);
  w.problems.unshift({ reason: because('remaining-start-off', figures), ids: [id] });
  return null;
}

/** What HDR-REMAINING's finding is written from, besides the walk. */
interface RemainingCase {
  readonly obs: readonly Observation[];
  readonly expected: string;
  readonly notes: readonly string[];
  readonly data: RemainingData;
  readonly integrityNote: string;
  /** What a pass or an open result rests on besides the walk: a forgiven start, repeated values. */
  readonly restsOn: readonly Reason[];
}

/** The finding a walked series comes to: its problems, a missing header, unclear requests, or a pass. */
function concludeRemaining(c: RemainingCase, w: RemainingWalk): Finding<RemainingData> {
  const { obs, expected, notes, restsOn } = c;
  const { problems, unclear, prev, first, zeroOn429 } = w;
  const countdown =
    first === null || prev === null
      ? null
      : { first: first.remaining, last: prev.remaining, admitted: w.admitted, zeroOn429: zeroOn429.length };
  const data: RemainingData = { ...c.data, countdown };
  if (problems.length > 0) {
    const reasons = [...problems.map((p) => p.reason), ...restsOn];
    return finding('fail', {
      expected,
      actual: listSome(problems.map((p) => reasonText(p.reason))),
      evidence: problems.slice(0, 3).flatMap((p) => p.ids),
      notes,
      reasons: atLeastOne(reasons),
      data,
    });
  }
  const answered = obs.filter((o) => o.status !== null);
  if (prev === null && answered.length > 0 && answered.every((o) => o.rateLimit.remaining.raw === null)) {
    // §8: on every response. None at all is the header missing, not a lack of evidence.
    const absent = because('header-absent-everywhere', {
      header: w.dialect === null ? 'X-RateLimit-Remaining' : fieldTitle(figureField(w.dialect, 'Remaining')),
      responses: answered.length,
    });
    return finding('fail', {
      expected,
      actual: reasonText(absent),
      evidence: answered.slice(0, 3).map((o) => o.id),
      notes,
      reasons: [absent],
      data,
    });
  }
  if (unclear.length > 0 || prev === null || first === null || countdown === null) {
    const open = prev === null ? [because('no-admitted-remaining', { requests: obs.length })] : unclear;
    return finding('inconclusive', {
      expected,
      actual: listSome(open.map(reasonText)),
      evidence: [first?.id, prev?.id],
      notes,
      reasons: atLeastOne([...open, ...(prev === null ? unclear : []), ...restsOn]),
      data,
      measureAgain: obs.some((o) => o.status === null) && 'next-window',
    });
  }
  const on429 = countdown.zeroOn429 > 0 ? `; 0 on ${countOf(countdown.zeroOn429, '429')}` : '';
  return finding('pass', {
    expected,
    actual: `Remaining ${countdown.first} -> ${countdown.last} by one over ${countdown.admitted} admitted requests${on429}`,
    evidence: [first.id, prev.id, zeroOn429[0]],
    notes: [...notes, c.integrityNote],
    reasons: restsOn,
    data,
  });
}

export function remainingDecrementsVerdict(
  obs: readonly Observation[],
  window: WindowContext,
  together: readonly ReleasedTogether[] = [],
): Finding<RemainingData> {
  const limit = announcedLimit(obs);
  const L = limit.value;
  const expected = remainingExpected(L, declaredDialectOf(obs));
  const data: RemainingData = { series: seriesOf(obs), limit: L, countdown: null };
  const notes: string[] = limit.note ? [limit.note] : [];
  // The harness's own requests counted earlier in this window (the ledger) start the countdown lower.
  const spent = spentBefore(obs, window.prior, L).length;
  if (spent > 0)
    notes.push(`${countOf(spent, 'request')} of the harness's own counted in this window before the first`);

  const integrity = withinOneWindow(obs, window);
  if (!integrity.ok) {
    return finding('inconclusive', {
      expected,
      actual: integrity.note,
      notes,
      reasons: [because('series-spans-windows', { requests: obs.length }), integrity.reason],
      data,
      measureAgain: 'next-window',
    });
  }
  // A request without an answer between two admitted ones: the step across it says whether it counted,
  // and either is one less per counted request.
  const lost = lostByRemaining(obs, together);
  const lostReasons = [...lost].map(([i, reading]) => lostReason(i + 1, obs[i]!, reading));

  const walk = walkRemaining(obs, limit, spent, lost, together);
  const forgiven = settleStart(walk, notes);
  const restsOn = [...(forgiven ? [forgiven] : []), ...walk.repeated, ...lostReasons];
  return concludeRemaining({ obs, expected, notes, data, integrityNote: integrity.note, restsOn }, walk);
}
