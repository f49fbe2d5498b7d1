/**
 * Requests of a window's series that got no answer (a connection dropped, a timeout): whether the
 * server counted one is told by its own Remaining. Pure.
 *
 * - One after another: an admitted answer with a Remaining right before it and right after it. One
 *   fewer across the two is the later one's own count; two fewer, the lost one counted too. (Not
 *   among requests released together: there the one sent before is not the one counted before.)
 * - Any order (a burst): every admission takes one value of Remaining, Limit less one down to zero
 *   (less a unit each, for uploads of several resumes). Where the admitted answers carry distinct
 *   values, all of them, no lost request was admitted; where some are missing, each must have been
 *   taken by a lost request the server's order allows: those were admitted (their answers lost).
 */
import { because, type Reason } from '../../catalogue/reasons/index.ts';
import { isAdmitted, type Observation } from '../../measure/observation.ts';
import { TOO_MANY_REQUESTS } from './finding.ts';
import { wentTogether, type ReleasedTogether } from './released-together.ts';

/** `not-admitted`: refused, or never reached the server; either way not among the admissions. */
export type LostFate = 'counted' | 'not-counted' | 'not-admitted';

export type LostReading =
  | {
      readonly by: 'neighbours';
      readonly fate: 'counted' | 'not-counted';
      /** The admitted answers around it whose Remaining tells. */
      readonly before: Observation;
      readonly after: Observation;
    }
  | {
      readonly by: 'admissions';
      readonly fate: 'counted' | 'not-admitted';
      /** Admitted answers whose values were read, the values a full window's admissions take, the requests lost, the values none of those answers carries. */
      readonly admitted: number;
      readonly values: number;
      readonly lost: number;
      readonly missing: number;
      readonly limit: number;
    };

/**
 * For each request of `series` (0-based index) with no answer that sits alone between two admitted
 * answers carrying a Remaining (under one Limit and one Reset), how the server counted it. A fall of
 * anything but one or two tells nothing (another request, a boundary), and neither does a run of
 * several lost in a row.
 */
export function lostByRemaining(
  series: readonly Observation[],
  together: readonly ReleasedTogether[] = [],
): ReadonlyMap<number, LostReading> {
  const read = new Map<number, LostReading>();
  for (let i = 1; i + 1 < series.length; i++) {
    // Among requests released together, the one sent before is not the one counted before.
    if ([i - 1, i, i + 1].some((j) => wentTogether(together, j))) continue;
    const [before, lost, after] = [series[i - 1]!, series[i]!, series[i + 1]!];
    if (lost.status !== null || !isAdmitted(before) || !isAdmitted(after)) continue;
    const [a, b] = [before.rateLimit, after.rateLimit];
    if (
      a.remaining.value === null ||
      b.remaining.value === null ||
      a.limit.value !== b.limit.value ||
      a.reset.raw !== b.reset.raw
    )
      continue;
    const fall = a.remaining.value - b.remaining.value;
    // One fewer shows only that it had not counted yet: reaching the limiter after the next request,
    // it would show as one fall too many further on.
    if (fall === 2 || (fall === 1 && !countedLater(series, i + 1, together)))
      read.set(i, { by: 'neighbours', fate: fall === 2 ? 'counted' : 'not-counted', before, after });
  }
  return read;
}

/**
 * Whether, from `from` on, two admitted answers next to each other (nothing lost between them, one
 * Limit and Reset) show Remaining falling by other than one before the first refusal: a count that
 * came late, or that nothing here explains.
 */
function countedLater(series: readonly Observation[], from: number, together: readonly ReleasedTogether[]): boolean {
  for (let j = from; j + 1 < series.length; j++) {
    const [a, b] = [series[j]!, series[j + 1]!];
    if (wentTogether(together, j) || wentTogether(together, j + 1)) continue;
    // The first refusal: the count is done.
    if (b.status !== null && !isAdmitted(b)) return false;
    // A lost one between: its own reading speaks for it.
    if (!isAdmitted(a) || !isAdmitted(b)) continue;
    const [ra, rb] = [a.rateLimit, b.rateLimit];
    if (
      ra.remaining.value === null ||
      rb.remaining.value === null ||
      ra.limit.value !== rb.limit.value ||
      ra.reset.raw !== rb.reset.raw
    )
      return true;
    if (ra.remaining.value - rb.remaining.value !== 1) return true;
  }
  return false;
}

/**
 * For the requests of `series` with no answer that `known` does not read yet, whether they were
 * admitted, from the Remaining of every admission of the window at once (`ledger`: the harness's own
 * earlier admissions in it, on the series' route). Empty unless every admitted answer carries a
 * Remaining under Limit `limit`, the values are distinct and each is one an admission takes. Every
 * value taken: none was admitted. Some missing: each must be taken by a lost request the server's
 * order allows (takers); those were admitted, the others not.
 */
export function lostByAdmissions(
  series: readonly Observation[],
  ledger: readonly Observation[],
  limit: number | null,
  units: number,
  known: ReadonlyMap<number, LostReading>,
): ReadonlyMap<number, LostReading> {
  const lost = series.flatMap((o, i) => (o.status === null && !known.has(i) ? [i] : []));
  const countedLost = [...known.values()].filter((r) => r.fate === 'counted').length;
  if (lost.length === 0 || limit === null || units < 1) return new Map();
  const admitted = [...ledger, ...series].filter(isAdmitted);
  const values = admitted.map((o) => (o.rateLimit.limit.value === limit ? o.rateLimit.remaining.value : null));
  const taken = new Set(values);
  const slots = Math.floor(limit / units);
  const isSlot = (v: number | null) => v !== null && v >= 0 && v < limit && (limit - v) % units === 0;
  if (!values.every(isSlot) || taken.size !== values.length) return new Map();
  const missing = Array.from({ length: slots }, (_, k) => limit - (k + 1) * units).filter((v) => !taken.has(v));
  // A reading by neighbours of a lost one that counted leaves its value missing too: then say nothing more.
  if (countedLost > 0 && missing.length > 0) return new Map();
  const admittedLost = missing.length === 0 ? new Set<number>() : takers(lost, missing, admitted, series);
  if (admittedLost === null) return new Map();
  const reading = (fate: 'counted' | 'not-admitted'): LostReading => ({
    by: 'admissions',
    fate,
    admitted: admitted.length,
    values: slots,
    lost: lost.length,
    missing: missing.length,
    limit,
  });
  return new Map(lost.map((i) => [i, reading(admittedLost.has(i) ? 'counted' : 'not-admitted')]));
}

/**
 * Which lost requests took the missing values, or null where some value none could have taken. A
 * lost request can have taken a value below every value of an admission answered before it was sent,
 * above every value of an admission sent after its error came back (one at least: a value missing at
 * the end of the count is what a server refusing one too early shows), and only with no 429 answered
 * before it was sent (the quota was spent by then). Values are matched highest first, each to the
 * request whose range closes soonest (a greedy matching of points to intervals, the largest there is).
 */
function takers(
  lost: readonly number[],
  missing: readonly number[],
  admitted: readonly Observation[],
  series: readonly Observation[],
): Set<number> | null {
  const answeredBy = (o: Observation) => o.headersAt ?? o.doneAt;
  const ranges = lost.flatMap((i) => {
    const x = series[i]!;
    const after = admitted.filter((o) => o.sentAt > x.doneAt).map((o) => o.rateLimit.remaining.value!);
    const spent = series.some((o) => o.status === TOO_MANY_REQUESTS && answeredBy(o) < x.sentAt);
    if (spent || after.length === 0) return [];
    const before = admitted.filter((o) => answeredBy(o) < x.sentAt).map((o) => o.rateLimit.remaining.value!);
    return [{ i, above: Math.max(...after), below: before.length === 0 ? Infinity : Math.min(...before) }];
  });
  const chosen = new Set<number>();
  for (const v of [...missing].sort((a, b) => b - a)) {
    const open = ranges.filter((r) => !chosen.has(r.i) && r.above < v && v < r.below);
    if (open.length === 0) return null;
    chosen.add(open.reduce((best, r) => (r.above > best.above ? r : best)).i);
  }
  return chosen;
}

/** What a lost request's reading says, as a reason: "ECONNRESET at request 58: Remaining 3 → 1 across it, so it counted". */
export function lostReason(n: number, lost: Observation, reading: LostReading): Reason {
  const error = lost.error?.code ?? 'no answer';
  if (reading.by === 'admissions') {
    const { admitted, values, lost: lostCount, missing, limit } = reading;
    const figures = { atRequest: n, error, admitted, values, lost: lostCount, missing, limit };
    return because(reading.fate === 'counted' ? 'lost-request-admitted' : 'lost-request-not-admitted', figures);
  }
  const figures = {
    atRequest: n,
    error,
    remainingBefore: reading.before.rateLimit.remaining.value!,
    remainingAfter: reading.after.rateLimit.remaining.value!,
  };
  return because(reading.fate === 'counted' ? 'lost-request-counted' : 'lost-request-not-counted', figures);
}
