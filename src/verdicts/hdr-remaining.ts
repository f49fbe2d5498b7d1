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
 */
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  countOf,
  finding,
  headerProblem,
  isAdmitted,
  listSome,
  outcomeOf,
} from './support/finding.ts';
import { announcedLimit } from './hdr-limit.ts';
import type { Finding } from '../catalogue/types.ts';
import type { WindowContext } from '../measure/window.ts';
import { lostByRemaining, lostNote } from './support/lost-requests.ts';
import { withinOneWindow } from './support/window-integrity.ts';
import { spentBefore } from './support/quota-window.ts';

export interface SeriesPoint {
  /** 1-based request number in send order. */
  readonly n: number;
  readonly status: number | null;
  readonly remaining: number | null;
  readonly limit: number | null;
}

/** `data` of HDR-REMAINING: the series the report charts. */
export type RemainingData = { readonly series: readonly SeriesPoint[] };

export function seriesOf(obs: readonly Observation[]): SeriesPoint[] {
  return obs.map((o, i) => ({
    n: i + 1,
    status: o.status,
    remaining: o.rateLimit.remaining.value,
    limit: o.rateLimit.limit.value,
  }));
}

export function remainingDecrementsVerdict(obs: readonly Observation[], window: WindowContext): Finding<RemainingData> {
  const limit = announcedLimit(obs);
  const L = limit.value;
  const expected =
    L !== null
      ? `Remaining ${L - 1}, ${L - 2}, … one less per admitted request (Limit ${L}), never negative, 0 on every 429`
      : 'Remaining Limit−1, Limit−2, … one less per admitted request, never negative, 0 on every 429';
  const data: RemainingData = { series: seriesOf(obs) };
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
      notes: [...notes, 'not within one window'],
      data,
      measureAgain: true,
    });
  }
  // A request without an answer between two admitted ones: the step across it says whether it counted,
  // and either is one less per counted request.
  const lost = lostByRemaining(obs);
  for (const [i, reading] of lost) notes.push(lostNote(i + 1, obs[i]!, reading));

  const problems: { text: string; ids: number[] }[] = [];
  const unclear: string[] = [];
  let prev: { n: number; remaining: number; id: number } | null = null;
  let gaps = 0;
  /**
   * Requests of unknown counting before the last admission whose count has not shown yet: one can
   * reach the limiter late (after a later request), so its decrement may come at any later step.
   */
  let pending = 0;
  let admitted = 0;
  let first: { remaining: number; id: number } | null = null;
  const zeroOn429: number[] = [];
  let absentOn429 = 0;
  /** A first Remaining off the announced Limit; forgiven if the countdown matches what was admitted. */
  let startProblem: { text: string; ids: number[] } | null = null;
  /** Whether the last admission before the first 429 showed Remaining 0 (the countdown met the 429). */
  let countdownMet429: boolean | null = null;

  for (const [i, o] of obs.entries()) {
    const n = i + 1;
    const r = o.rateLimit.remaining;
    if (o.status === TOO_MANY_REQUESTS) {
      if (countdownMet429 === null) countdownMet429 = prev !== null && prev.remaining === 0 && gaps === 0;
      if (r.raw === null) absentOn429 += 1;
      else if (r.value === null)
        problems.push({ text: `429 at request ${n}: ${headerProblem('Remaining', r)}`, ids: [o.id] });
      else if (r.value !== 0)
        problems.push({ text: `429 at request ${n} showed Remaining ${r.value}, not 0`, ids: [o.id] });
      else zeroOn429.push(o.id);
      continue;
    }
    if (!isAdmitted(o)) {
      gaps += 1;
      if (!lost.has(i)) unclear.push(`request ${n}: ${outcomeOf(o)} (may or may not have counted)`);
      continue;
    }
    admitted += 1;
    if (r.value === null) {
      gaps += 1;
      if (r.raw === null) unclear.push(`request ${n}: no Remaining header`);
      else problems.push({ text: `request ${n}: ${headerProblem('Remaining', r)}`, ids: [o.id] });
      continue;
    }
    const v = r.value;
    if (prev === null) {
      first = { remaining: v, id: o.id };
      if (L !== null && (v > L - 1 - spent || v < L - 1 - spent - gaps)) {
        startProblem = {
          text: `first admitted response (request ${n}) showed Remaining ${v}, expected ${L - 1 - spent} (Limit ${L}${spent > 0 ? `, ${spent} spent before` : ''})`,
          ids: [o.id],
        };
      }
      if (L === null) unclear.push('no consistent Limit: the first Remaining could not be checked');
    } else {
      const hi = prev.remaining - 1;
      const lo = prev.remaining - 1 - gaps - pending;
      // An admission past the Limit cannot decrement a Remaining of 0: "one less per counted request"
      // fails with it (as QUOTA-READ does).
      if (v < lo || v > hi) {
        const how = v === prev.remaining ? ' (stalled)' : v > prev.remaining ? ' (rose)' : ' (skipped)';
        const unclearBefore = gaps + pending;
        const between = unclearBefore > 0 ? ` across ${countOf(unclearBefore, 'unclear request')}` : '';
        problems.push({
          text: `after request ${prev.n} Remaining went ${prev.remaining} -> ${v}${how}${between}`,
          ids: [prev.id, o.id],
        });
      }
      pending = Math.max(0, pending + gaps - Math.max(0, hi - v));
    }
    prev = { n, remaining: v, id: o.id };
    gaps = 0;
  }

  if (absentOn429 > 0) notes.push(`${countOf(absentOn429, '429')} carried no Remaining (judged by HDR-PRESENT)`);
  if (startProblem !== null) {
    // Remaining that counts down by one to 0 exactly at the first 429 agrees with what the server
    // admitted: the odd one out is the announced Limit (HDR-LIMIT), or quota spent before the first request.
    if (problems.length === 0 && countdownMet429 === true) {
      notes.push(
        `${startProblem.text}; but it counts down by one to 0 at the first 429, as the server admitted: the difference lies with the announced Limit (HDR-LIMIT) or with quota spent before this check's first request`,
      );
    } else problems.unshift(startProblem);
  }

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: listSome(problems.map((p) => p.text)),
      evidence: problems.slice(0, 3).flatMap((p) => p.ids),
      notes: [...notes, ...(problems.length > 3 ? problems.slice(3).map((p) => p.text) : [])],
      data,
    });
  }
  const answered = obs.filter((o) => o.status !== null);
  if (prev === null && answered.length > 0 && answered.every((o) => o.rateLimit.remaining.raw === null)) {
    // §8: on every response. None at all is the header missing, not a lack of evidence.
    return finding('fail', {
      expected,
      actual: `none of ${answered.length} responses carried X-RateLimit-Remaining`,
      evidence: answered.slice(0, 3).map((o) => o.id),
      notes,
      data,
    });
  }
  if (unclear.length > 0 || prev === null || first === null) {
    return finding('inconclusive', {
      expected,
      actual: prev === null ? `no admitted response with Remaining among ${obs.length} requests` : listSome(unclear),
      evidence: [first?.id, prev?.id],
      notes: [...notes, ...unclear],
      data,
      measureAgain: obs.some((o) => o.status === null),
    });
  }
  const on429 = zeroOn429.length > 0 ? `; 0 on ${countOf(zeroOn429.length, '429')}` : '';
  return finding('pass', {
    expected,
    actual: `Remaining ${first.remaining} -> ${prev.remaining} by one over ${admitted} admitted requests${on429}`,
    evidence: [first.id, prev.id, zeroOn429[0]],
    notes: [...notes, integrity.note],
    data,
  });
}
