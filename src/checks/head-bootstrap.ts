/**
 * HEAD-BOOTSTRAP (§4): HEAD /recruiter/bootstrap answers with a status and the §8 rate-limit headers
 * and no body (the spec), and (assumption head-bootstrap-free) does not consume the read quota: two
 * HEADs in a row inside one window report the same Remaining. A HEAD that counts breaks only the
 * assumption, and the verdict says so; a deployment that declares it (`"assumptions":
 * {"head-bootstrap-free": false}`) passes with one read counted per HEAD.
 */
import type { Observation } from '../observe/observation.ts';
import { describe, finding, headerProblem } from './finding.ts';
import type { Finding } from './types.ts';
import { sameFixedWindowByDate, windowEndOf } from './window-integrity.ts';

export interface HeadBootstrapOptions {
  /** The deployment declared that HEAD counts as a read (assumption head-bootstrap-free declared false). */
  readonly declaredCounting?: boolean;
}

export function headBootstrapVerdict(first: Observation, second: Observation, windowSeconds: number, options: HeadBootstrapOptions = {}): Finding {
  const evidence = [first.id, second.id];
  const declared = options.declaredCounting === true;
  const expected = declared
    ? 'a 2xx status, the three X-RateLimit headers and no body; a HEAD counts as at most one read (as declared)'
    : 'a 2xx status, the three X-RateLimit headers, no body, and Remaining unchanged by a second HEAD (assumption head-bootstrap-free)';
  for (const o of [first, second]) {
    if (o.status === null) {
      return finding('inconclusive', { expected, actual: `no response: ${describe(o)}`, evidence });
    }
  }
  const problems: string[] = [];
  for (const o of [first, second]) {
    if (o.status === null || o.status < 200 || o.status >= 300) problems.push(`${describe(o)} is not a success`);
    if (o.bodyBytes > 0) problems.push(`${describe(o)} carried a ${o.bodyBytes}-byte body`);
    for (const [name, value] of [
      ['X-RateLimit-Limit', o.rateLimit.limit],
      ['X-RateLimit-Remaining', o.rateLimit.remaining],
      ['X-RateLimit-Reset', o.rateLimit.reset],
    ] as const) {
      const problem = headerProblem(name, value);
      if (problem) problems.push(`${problem} on #${o.id}`);
    }
  }
  if (problems.length > 0) return finding('fail', { expected, actual: problems.join('; '), evidence });
  const before = first.rateLimit.remaining.value!;
  const after = second.rateLimit.remaining.value!;
  // Placed by Reset when both are epochs (seconds, or milliseconds: HDR-RESET judges the unit);
  // else (a delta or garbage) by Date.
  const resetBefore = windowEndOf(first, windowSeconds);
  const resetAfter = windowEndOf(second, windowSeconds);
  const oneWindow =
    resetBefore !== null && resetAfter !== null ? resetBefore === resetAfter : sameFixedWindowByDate(first, second, windowSeconds);
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
      notes: ['the HEADs could not be placed by Reset or Date; an unchanged Remaining below Limit − 1 shows one window and no quota used'],
    });
  }
  if (!oneWindow && after < before) return counted(expected, evidence, before, after, declared, ' (a rollover would have raised it)');
  if (!oneWindow) {
    return finding('inconclusive', {
      expected,
      actual: `Remaining ${before} then ${after}, but the two HEADs cannot be placed in one window (Reset ${first.rateLimit.reset.raw} then ${second.rateLimit.reset.raw}; Date ${first.date ?? 'absent'} then ${second.date ?? 'absent'})`,
      evidence,
    });
  }
  if (after < before) return counted(expected, evidence, before, after, declared, '');
  return finding('pass', { expected, actual: `status ${first.status}, headers present, no body, Remaining ${before} then ${after}`, evidence });
}

/** A HEAD that consumed quota: the spec is kept; the assumption is broken unless the deployment declared it. */
function counted(expected: string, evidence: readonly number[], before: number, after: number, declared: boolean, why: string): Finding {
  const fell = `Remaining fell from ${before} to ${after}${why}`;
  if (declared && before - after === 1) {
    return finding('pass', { expected, actual: `${fell}: HEAD counts as one read, as the deployment declares`, evidence });
  }
  if (declared) return finding('fail', { expected, actual: `${fell}: more than one read per HEAD`, evidence });
  return finding('fail', {
    expected,
    actual: `${fell}: HEAD consumed quota; the spec's part holds (status, headers, no body), the assumption head-bootstrap-free does not`,
    evidence,
    notes: [
      'assumption, not spec: §4 gives HEAD /recruiter/bootstrap no counting rule. If counting it is intended, declare "assumptions": {"head-bootstrap-free": false} in the config; the other checks already count it in their ledgers.',
    ],
  });
}
