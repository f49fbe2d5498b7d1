/**
 * ORG-SHARED and ORG-ISOLATED (§1, §8): limits apply per organization. Two keys of one organization
 * draw on one quota; exhausting one organization leaves another of the same tier untouched.
 * Both need every deciding response inside one window, judged by the server's Reset.
 */
import type { Observation } from '../observe/observation.ts';
import { TOO_MANY_REQUESTS, describe, finding, isAdmitted } from './finding.ts';
import type { Finding } from './types.ts';
import type { WindowContext } from './window.ts';
import { readReset, withinOneWindow } from './window-integrity.ts';

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
  /**
   * The window the check ran in. With it, responses whose Reset is not an epoch are placed by
   * timing (as for ORG-SHARED); without it, only by Reset.
   */
  readonly window?: WindowContext;
}

export function orgIsolatedVerdict(input: OrgIsolatedInput): Finding {
  const { exhausted, other, otherLimit } = input;
  const expected = `the other organization is admitted with Remaining ${otherLimit - 1} (its own, untouched quota)`;
  const rejected = exhausted.find((o) => o.status === TOO_MANY_REQUESTS);
  if (!rejected) {
    return finding('inconclusive', { expected, actual: 'the first organization was never rejected, so its quota was not shown exhausted', evidence: exhausted.slice(-1).map((o) => o.id) });
  }
  const evidence = [rejected.id, other.id];
  // A rollover between the rejection and the probe would let a shared quota pass for isolated ones.
  const placed = placeIsolated(exhausted, other, input.window);
  if (!placed.ok) {
    return finding('inconclusive', { expected, actual: describe(other), evidence, notes: [placed.note] });
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

/**
 * Both organizations' responses in one window (windows are aligned to the server clock, assumption
 * fixed-windows). With the learned window: as withinOneWindow judges it. Without: every epoch Reset
 * agrees, and a Reset that is not an epoch (a delta ticks every second) is compared raw only between
 * the rejection and the probe, sent back to back.
 */
function placeIsolated(exhausted: readonly Observation[], other: Observation, window: WindowContext | undefined): { ok: boolean; note: string } {
  if (window) return withinOneWindow([...exhausted, other], window);
  const responses = [...exhausted, other].filter((o) => o.status !== null);
  const readings = responses.map((o) => readReset(o, DAY_S).reset);
  const epochs = new Set(readings.filter((r): r is number => r !== null));
  if (epochs.size > 1) {
    return { ok: false, note: `responses carry ${epochs.size} different Reset values (${[...epochs].join(', ')}): a window rolled over mid-check` };
  }
  if (readings.every((r) => r !== null)) return { ok: true, note: `all ${responses.length} responses share Reset ${[...epochs][0]}` };
  const rejected = exhausted.find((o) => o.status === TOO_MANY_REQUESTS);
  if (rejected && rejected.rateLimit.reset.raw !== null && rejected.rateLimit.reset.raw === other.rateLimit.reset.raw) {
    return { ok: true, note: `Reset is not an epoch; the rejection and the probe both carry Reset ${other.rateLimit.reset.raw}` };
  }
  return { ok: false, note: 'Reset is not an epoch and the rejection and the probe disagree on it: cannot place them in one window' };
}

/** Plausibility bound for a Reset when the window length is not known. */
const DAY_S = 86_400;
