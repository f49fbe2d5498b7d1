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
import {
  declaredDialectOf,
  fieldTitle,
  figureField,
  figureTitle,
  placedResetOf,
  resetInSecondsUntil,
  type DeclaredDialect,
  type RateLimitFigure,
} from './support/dialect.ts';
import { RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';

/**
 * How the two HEADs were placed in one window: by their Resets, or their Dates; by Remaining
 * (unchanged below Limit − 1, or fallen, where a rollover would have raised it); or not at all.
 */
export type HeadPlacement = 'reset' | 'date' | 'remaining' | 'unplaced';

/** `data` of HEAD-BOOTSTRAP, once both HEADs were answered well: the first's status, Remaining before and after, how they were placed, what was declared. */
export type HeadBootstrapData = {
  readonly status: number;
  readonly remainingBefore: number;
  readonly remainingAfter: number;
  readonly placedBy: HeadPlacement;
  /** Assumption head-bootstrap-free as the deployment declared it (null: not declared). */
  readonly declaredFree: boolean | null;
};

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
): Finding<HeadBootstrapData> | null {
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

/**
 * A HEAD's figures in a declared dialect: Remaining and Reset, and Limit where a field other than the
 * policy's carries it; each field named once, absent or giving no figure.
 */
function dialectFieldProblems(o: Observation, dialect: DeclaredDialect): Reason[] {
  const problems: Reason[] = [];
  const named = new Set<string>();
  const policyField = RATE_LIMIT_DIALECTS[dialect].policyField;
  const figures: readonly (readonly [RateLimitFigure, Observation['rateLimit']['limit']])[] = [
    ['Limit', o.rateLimit.limit],
    ['Remaining', o.rateLimit.remaining],
    ['Reset', o.rateLimit.reset],
  ];
  for (const [figure, value] of figures) {
    const field = figureField(dialect, figure);
    if (field === policyField || named.has(field)) continue;
    const header = fieldTitle(field);
    if (value.raw === null) {
      named.add(field);
      problems.push(because('header-absent', { header, request: o.id }));
    } else if (value.value === null)
      problems.push(
        because('dialect-figure-unreadable', {
          field: header,
          figure: figureTitle(dialect, figure),
          raw: value.raw,
          request: o.id,
        }),
      );
  }
  return problems;
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
    const dialect = o.rateLimit.dialect?.name;
    if (dialect !== undefined) {
      problems.push(...dialectFieldProblems(o, dialect));
      continue;
    }
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

/** What shows the two HEADs fell in one quota window: Reset where it can be, else Date; null when neither does. */
function oneWindowBy(first: Observation, second: Observation, windowSeconds: number): 'reset' | 'date' | null {
  // Seconds until the quota returns, placed at Date + t: one window where both name one instant.
  if (resetInSecondsUntil(declaredDialectOf([first, second]))) {
    const [before, after] = [placedResetOf(first), placedResetOf(second)];
    if (before !== null && before === after) return 'reset';
    return sameFixedWindowByDate(first, second, windowSeconds) ? 'date' : null;
  }
  // Placed by Reset when both are epochs (seconds, or milliseconds: HDR-RESET judges the unit);
  // else (a delta or garbage) by Date.
  const resetBefore = windowEndOf(first, windowSeconds);
  const resetAfter = windowEndOf(second, windowSeconds);
  if (resetBefore !== null && resetAfter !== null) return resetBefore === resetAfter ? 'reset' : null;
  return sameFixedWindowByDate(first, second, windowSeconds) ? 'date' : null;
}

export function headBootstrapVerdict(
  first: Observation,
  second: Observation,
  windowSeconds: number,
  options: HeadBootstrapOptions = {},
): Finding<HeadBootstrapData> {
  const evidence = [first.id, second.id];
  const requiredFree = options.declaredFree === true;
  const dialect = declaredDialectOf([first, second]);
  const headers = dialect === null ? 'the three X-RateLimit headers' : `the declared ${dialect} fields`;
  const expected = requiredFree
    ? `a 2xx status, ${headers}, no body, and Remaining unchanged by a second HEAD (HEAD declared free)`
    : `a 2xx status, ${headers} and no body; a HEAD consumes at most one read request`;
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
  // Without a placement, Remaining still tells: within a window a counted HEAD lowers it, and a
  // rollover raises it to Limit (or Limit − 1 if the HEAD counted). So an unchanged Remaining below
  // Limit − 1 can only be one window in which the HEAD was free.
  const limit = second.rateLimit.limit.value!;
  const unchangedMidWindow = after === before && before < limit - 1;
  const placedBy: HeadPlacement =
    oneWindowBy(first, second, windowSeconds) ?? (unchangedMidWindow || after < before ? 'remaining' : 'unplaced');
  const data: HeadBootstrapData = {
    status: first.status!,
    remainingBefore: before,
    remainingAfter: after,
    placedBy,
    declaredFree: options.declaredFree ?? null,
  };
  if (placedBy === 'unplaced') {
    const unplaced = because('head-windows-unplaceable', {
      before,
      after,
      resetBefore: first.rateLimit.reset.raw,
      resetAfter: second.rateLimit.reset.raw,
      dateBefore: first.date,
      dateAfter: second.date,
    });
    return finding('inconclusive', { expected, actual: reasonText(unplaced), evidence, reasons: [unplaced], data });
  }
  if (after < before) return counted(expected, evidence, data);
  const unchanged = `status ${data.status}, headers present, no body, Remaining ${before} then ${after}`;
  return finding('pass', {
    expected,
    actual: unchanged,
    evidence,
    ...(placedBy === 'remaining' ? { reasons: [because('head-placed-by-remaining', { before, after, limit })] } : {}),
    data,
  });
}

/**
 * A HEAD that consumed quota. One read per HEAD keeps the spec (it names no counting rule): a pass
 * that says the assumption does not hold, unless the deployment declared HEAD free. More than one
 * read per HEAD is wrong however it is declared.
 */
function counted(expected: string, evidence: readonly number[], data: HeadBootstrapData): Finding<HeadBootstrapData> {
  const { remainingBefore: before, remainingAfter: after, declaredFree } = data;
  const why = data.placedBy === 'remaining' ? ' (a rollover would have raised it)' : '';
  const fell = `Remaining fell from ${before} to ${after}${why}`;
  if (before - after > 1) {
    return finding('fail', {
      expected,
      actual: `${fell}: one HEAD consumed ${before - after} read requests`,
      evidence,
      reasons: [because('head-costs-several-reads', { before, after })],
      data,
    });
  }
  if (declaredFree === true) {
    return finding('fail', {
      expected,
      actual: `${fell}: HEAD consumed a read request, though the deployment declares it free`,
      evidence,
      reasons: [because('head-counted-though-declared-free', { before, after })],
      data,
    });
  }
  const declared = declaredFree === false ? ', as the deployment declares' : '';
  return finding('pass', {
    expected,
    actual: `status 2xx, headers present, no body; ${fell}: HEAD counts as one read${declared}`,
    evidence,
    ...(declaredFree === false ? {} : { reasons: [because('head-counts-as-read', { before, after })] }),
    data,
  });
}
