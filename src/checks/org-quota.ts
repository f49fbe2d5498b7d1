/**
 * ORG-SHARED and ORG-ISOLATED (§1, §8): limits apply per organization. Two keys of one organization
 * draw on one quota; exhausting one organization leaves another of the same tier untouched.
 * Both need every deciding response inside one window, judged by the server's Reset.
 */
import type { Observation } from '../observe/observation.ts';
import { TOO_MANY_REQUESTS, describe, finding, isAdmitted } from './finding.ts';
import type { Finding } from './types.ts';
import type { WindowContext } from './window.ts';
import { withinOneWindow } from './window-integrity.ts';

export interface OrgSharedInput {
  /** The first key's requests, up to and past the quota. */
  readonly keyA: readonly Observation[];
  /** One request with a second key of the same organization, after the first key was rejected. */
  readonly keyB: Observation;
  readonly limit: number;
  readonly window: WindowContext;
}

export function orgSharedVerdict(input: OrgSharedInput): Finding {
  const { keyA, keyB, limit, window } = input;
  const expected = `after the first key used the organization's ${limit} requests, the second key of the same organization gets 429`;
  const exhaustedBy = keyA.find((o) => o.status === TOO_MANY_REQUESTS);
  if (!exhaustedBy) {
    return finding('inconclusive', { expected, actual: 'the first key was never rejected, so the quota was not shown exhausted', evidence: keyA.slice(-1).map((o) => o.id) });
  }
  const integrity = withinOneWindow([...keyA, keyB], window);
  if (!integrity.ok) {
    return finding('inconclusive', { expected, actual: describe(keyB), evidence: [exhaustedBy.id, keyB.id], notes: [integrity.note] });
  }
  if (keyB.status === TOO_MANY_REQUESTS) {
    return finding('pass', { expected, actual: `second key: ${describe(keyB)}, in the same window as ${describe(exhaustedBy)}`, evidence: [exhaustedBy.id, keyB.id] });
  }
  if (isAdmitted(keyB)) {
    return finding('fail', {
      expected,
      actual: `second key admitted (${describe(keyB)}, Remaining ${keyB.rateLimit.remaining.raw ?? 'absent'}) after the first key was rejected: the quota is per key, not per organization`,
      evidence: [exhaustedBy.id, keyB.id],
    });
  }
  return finding('inconclusive', { expected, actual: `second key got ${describe(keyB)}, neither admitted nor 429`, evidence: [exhaustedBy.id, keyB.id] });
}

export interface OrgIsolatedInput {
  /** One organization's requests, up to and past its quota. */
  readonly exhausted: readonly Observation[];
  /** One request by another organization of the same tier, right after. */
  readonly other: Observation;
  /** The other organization's Limit. */
  readonly otherLimit: number;
}

export function orgIsolatedVerdict(input: OrgIsolatedInput): Finding {
  const { exhausted, other, otherLimit } = input;
  const expected = `the other organization is admitted with Remaining ${otherLimit - 1} (its own, untouched quota)`;
  const rejected = exhausted.find((o) => o.status === TOO_MANY_REQUESTS);
  if (!rejected) {
    return finding('inconclusive', { expected, actual: 'the first organization was never rejected, so its quota was not shown exhausted', evidence: exhausted.slice(-1).map((o) => o.id) });
  }
  const evidence = [rejected.id, other.id];
  const resets = new Set([...exhausted, other].filter((o) => o.status !== null).map((o) => o.rateLimit.reset.raw));
  if (resets.size > 1) {
    return finding('inconclusive', { expected, actual: describe(other), evidence, notes: [`responses carry ${resets.size} different Reset values: a window rolled over mid-check`] });
  }
  if (other.status === TOO_MANY_REQUESTS) {
    return finding('fail', { expected, actual: `other organization rejected: ${describe(other)}; the quota is shared across organizations`, evidence });
  }
  if (!isAdmitted(other)) {
    return finding('inconclusive', { expected, actual: `other organization got ${describe(other)}`, evidence });
  }
  const remaining = other.rateLimit.remaining.value;
  if (remaining !== null && remaining < otherLimit - 1) {
    return finding('fail', {
      expected,
      actual: `other organization admitted with Remaining ${remaining}: ${otherLimit - 1 - remaining} of its requests were spent by the first organization`,
      evidence,
    });
  }
  return finding('pass', { expected, actual: `other organization admitted, Remaining ${other.rateLimit.remaining.raw ?? 'absent'}`, evidence });
}
