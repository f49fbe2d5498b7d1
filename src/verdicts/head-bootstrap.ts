/**
 * HEAD-BOOTSTRAP (§4): HEAD /recruiter/bootstrap answers with a status and the §8 rate-limit headers
 * and no body. Whether it consumes a read request the spec does not say (assumption
 * head-bootstrap-free): two HEADs in a row inside one window show it by Remaining. A HEAD that counts
 * one read keeps the spec, and the verdict passes saying so (the other checks keep it in their
 * ledgers); it fails only where the deployment declared HEAD free (`"assumptions":
 * {"head-bootstrap-free": true}`), or when one HEAD costs more than one read.
 */
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, describe, finding, outcomeOf, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { sameFixedWindowByDate, windowEndOf } from './support/window-integrity.ts';

export interface HeadBootstrapOptions {
  /** What the deployment declared of assumption head-bootstrap-free: true (HEAD must be free), false (it counts), null (not declared). */
  readonly declaredFree?: boolean | null;
}

/** An inconclusive finding when either HEAD got no answer or was refused for quota, else null. */
function refusedOrUnanswered(
  first: Observation,
  second: Observation,
  expected: string,
  evidence: number[],
): Finding | null {
  for (const o of [first, second]) {
    if (o.status === null) {
      return finding('inconclusive', {
        expected,
        actual: `no response: ${describe(o)}`,
        evidence,
        reasons: [because('head-unanswered', { request: o.id, outcome: outcomeOf(o) })],
      });
    }
    // A HEAD that counts is refused like any read once the quota is used up (§8 rule 1): no fault.
    if (o.status === TOO_MANY_REQUESTS) {
      return finding('inconclusive', {
        expected,
        actual: describe(o),
        evidence,
        reasons: [because('head-refused-for-quota', { request: o.id })],
      });
    }
  }
  return null;
}

/** What either HEAD got wrong of §4: a status other than 2xx, a body, a missing or malformed rate-limit header. */
function headProblems(first: Observation, second: Observation): Reason[] {
  const problems: Reason[] = [];
  for (const o of [first, second]) {
    const request = o.id;
    // Both HEADs were answered (refusedOrUnanswered).
    const status = o.status ?? 0;
    if (status < 200 || status >= 300) problems.push(because('head-not-success', { request, status }));
    if (o.bodyBytes > 0) problems.push(because('head-has-body', { request, bytes: o.bodyBytes }));
    for (const [header, value] of [
      ['X-RateLimit-Limit', o.rateLimit.limit],
      ['X-RateLimit-Remaining', o.rateLimit.remaining],
      ['X-RateLimit-Reset', o.rateLimit.reset],
    ] as const) {
      if (value.raw === null) problems.push(because('header-absent', { header, request }));
      else if (value.value === null) problems.push(because('header-not-integer', { header, raw: value.raw, request }));
    }
  }
  return problems;
}

/** Whether the two HEADs fell in one quota window, placed by Reset where it can be, else by Date. */
function inOneWindow(first: Observation, second: Observation, windowSeconds: number): boolean {
  // Placed by Reset when both are epochs (seconds, or milliseconds: HDR-RESET judges the unit);
  // else (a delta or garbage) by Date.
  const resetBefore = windowEndOf(first, windowSeconds);
  const resetAfter = windowEndOf(second, windowSeconds);
  return resetBefore !== null && resetAfter !== null
    ? resetBefore === resetAfter
    : sameFixedWindowByDate(first, second, windowSeconds);
}

export function headBootstrapVerdict(
  first: Observation,
  second: Observation,
  windowSeconds: number,
  options: HeadBootstrapOptions = {},
): Finding {
  const evidence = [first.id, second.id];
  const requiredFree = options.declaredFree === true;
  const expected = requiredFree
    ? 'a 2xx status, the three X-RateLimit headers, no body, and Remaining unchanged by a second HEAD (HEAD declared free)'
    : 'a 2xx status, the three X-RateLimit headers and no body; a HEAD consumes at most one read request';
  const unjudgeable = refusedOrUnanswered(first, second, expected, evidence);
  if (unjudgeable) return unjudgeable;
  const problems = headProblems(first, second);
  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: problems.map(reasonText).join('; '),
      evidence,
      reasons: atLeastOne(problems),
    });
  }
  const before = first.rateLimit.remaining.value!;
  const after = second.rateLimit.remaining.value!;
  const oneWindow = inOneWindow(first, second, windowSeconds);
  // Without a placement, Remaining still tells: within a window a counted HEAD lowers it, and a
  // rollover raises it to Limit (or Limit − 1 if the HEAD counted). So an unchanged Remaining below
  // Limit − 1 can only be one window in which the HEAD was free.
  const limit = second.rateLimit.limit.value!;
  const unchangedMidWindow = after === before && before < limit - 1;
  if (!oneWindow && unchangedMidWindow) {
    return finding('pass', {
      expected,
      actual: `status ${first.status}, headers present, no body, Remaining ${before} then ${after}`,
      evidence,
      reasons: [because('head-placed-by-remaining', { before, after, limit })],
    });
  }
  if (!oneWindow && after < before)
    return counted(
      expected,
      evidence,
      before,
      after,
      options.declaredFree ?? null,
      ' (a rollover would have raised it)',
    );
  if (!oneWindow) {
    const unplaced = because('head-windows-unplaceable', {
      before,
      after,
      resetBefore: first.rateLimit.reset.raw,
      resetAfter: second.rateLimit.reset.raw,
      dateBefore: first.date,
      dateAfter: second.date,
    });
    return finding('inconclusive', { expected, actual: reasonText(unplaced), evidence, reasons: [unplaced] });
  }
  if (after < before) return counted(expected, evidence, before, after, options.declaredFree ?? null, '');
  return finding('pass', {
    expected,
    actual: `status ${first.status}, headers present, no body, Remaining ${before} then ${after}`,
    evidence,
  });
}

/**
 * A HEAD that consumed quota. One read per HEAD keeps the spec (it names no counting rule): a pass
 * that says the assumption does not hold, unless the deployment declared HEAD free. More than one
 * read per HEAD is wrong however it is declared.
 */
function counted(
  expected: string,
  evidence: readonly number[],
  before: number,
  after: number,
  declaredFree: boolean | null,
  why: string,
): Finding {
  const fell = `Remaining fell from ${before} to ${after}${why}`;
  if (before - after > 1) {
    return finding('fail', {
      expected,
      actual: `${fell}: one HEAD consumed ${before - after} read requests`,
      evidence,
      reasons: [because('head-costs-several-reads', { before, after })],
    });
  }
  if (declaredFree === true) {
    return finding('fail', {
      expected,
      actual: `${fell}: HEAD consumed a read request, though the deployment declares it free`,
      evidence,
      reasons: [because('head-counted-though-declared-free', { before, after })],
    });
  }
  const declared = declaredFree === false ? ', as the deployment declares' : '';
  return finding('pass', {
    expected,
    actual: `status 2xx, headers present, no body; ${fell}: HEAD counts as one read${declared}`,
    evidence,
    ...(declaredFree === false ? {} : { reasons: [because('head-counts-as-read', { before, after })] }),
  });
}
