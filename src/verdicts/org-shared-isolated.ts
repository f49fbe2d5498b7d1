/**
 * ORG-SHARED and ORG-ISOLATED (§1, §8): limits apply per organization. Two keys of one organization
 * draw on one quota; exhausting one organization leaves another of the same tier untouched. An
 * admission decides only while the first party's window is shown still in force: the first party
 * rejected again right after (the bracket), one epoch Reset, or timing inside the learned window.
 */
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, describe, finding, isAdmitted, outcomeOf, atLeastOne } from './support/finding.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { Finding } from '../catalogue/types.ts';
import type { WindowContext } from '../measure/window.ts';
import {
  integrityGrounds,
  notInOneWindow,
  readReset,
  withinOneWindow,
  type WindowIntegrity,
} from './support/window-integrity.ts';
import { windowSafeEnd } from '../measure/window.ts';

export interface OrgSharedInput {
  /** The first key's requests, up to and past the quota. */
  readonly keyA: readonly Observation[];
  /** One request with a second key of the same organization, after the first key was rejected. */
  readonly keyB: Observation;
  /** The first key again, right after the second key's request: still rejected, the window had not rolled over. */
  readonly keyAAgain?: Observation | null;
  readonly limit: number;
  readonly window: WindowContext;
  /** The limiter profile found quota coming back during a window (a bucket): an admission may be a refill. */
  readonly refilling?: boolean;
}

/**
 * `data` of ORG-SHARED and ORG-ISOLATED: the Limit the probe's party has, the first party's first 429,
 * and the probe (the second key, or the other organization): its status (null: no answer) and the
 * Remaining it carried (null: none).
 */
export type OrgQuotaData = {
  readonly limit: number;
  readonly refusedId: number;
  readonly probeId: number;
  readonly probeStatus: number | null;
  readonly probeRemaining: number | null;
};

function orgQuotaData(limit: number, refused: Observation, probe: Observation): OrgQuotaData {
  return {
    limit,
    refusedId: refused.id,
    probeId: probe.id,
    probeStatus: probe.status,
    probeRemaining: probe.rateLimit.remaining.value,
  };
}

/**
 * Where the window could have rolled over between the first key's 429 and the second key's request,
 * the proof that it did not (stillExhausted): the first key rejected again right after (the bracket),
 * the rejection and the second key sharing one epoch Reset, or the second key answered before the
 * window's safe end. A second key admitted on a counter the first already used (a refill) decides
 * nothing.
 */
export function orgSharedVerdict(input: OrgSharedInput): Finding<OrgQuotaData> {
  const { keyA, keyB, limit, window } = input;
  const expected = `after the first key used the organization's ${limit} requests, the second key of the same organization gets 429`;
  const exhaustedBy = keyA.find((o) => o.status === TOO_MANY_REQUESTS);
  if (!exhaustedBy) return neverRejected(expected, 'the first key was never rejected', keyA, window);
  const evidence = [exhaustedBy.id, keyB.id, input.keyAAgain?.id];
  const data = orgQuotaData(limit, exhaustedBy, keyB);
  if (keyB.status === TOO_MANY_REQUESTS) {
    return finding('pass', {
      expected,
      actual: `second key: ${describe(keyB)}, right after ${describe(exhaustedBy)}`,
      evidence,
      data,
    });
  }
  if (!isAdmitted(keyB)) return neitherAdmittedNorRefused(expected, 'second key', keyB, evidence, data);
  // A per-key quota gives the second key a fresh counter; Remaining far below that is the
  // organization's own counter, given back a little (a refill), not a quota of the key's own.
  const remainingB = keyB.rateLimit.remaining.value;
  if (remainingB !== null && remainingB < limit - 1) {
    return finding('inconclusive', {
      expected,
      actual: `second key admitted (${describe(keyB)})`,
      evidence,
      reasons: [because('admitted-on-used-counter', { remaining: remainingB })],
      data,
    });
  }
  if (input.refilling) {
    return finding('inconclusive', {
      expected,
      actual: `second key admitted (${describe(keyB)})`,
      evidence,
      reasons: [because('refilling-limiter', {})],
      data,
    });
  }
  const still = stillExhausted(keyA, exhaustedBy, keyB, input.keyAAgain ?? null, window);
  if (!still.ok) {
    return finding('inconclusive', {
      expected,
      actual: `second key admitted (${describe(keyB)})`,
      evidence,
      reasons: [still.reason],
      data,
      measureAgain: 'next-window',
    });
  }
  const shown = integrityGrounds(still);
  return finding('fail', {
    expected,
    actual: `second key admitted (${describe(keyB)})`,
    evidence,
    notes: shown.notes,
    reasons: [because('quota-per-key', { remaining: keyB.rateLimit.remaining.raw }), ...shown.reasons],
    data,
  });
}

/**
 * Proof that the window the first party used up was still in force when `probe` was answered, so an
 * admission of the probe came from another counter, tried in this order: the first party rejected
 * again right after the probe (the bracket); where Reset places windows, the rejection and the probe
 * sharing one epoch Reset (two that differ are a rollover, and no proof); the probe answered before
 * the window's safe end, or the whole series within one window (the check's own timing); a Reset
 * that is no epoch reading the same on the rejection and the probe. Without one, why not.
 */
function stillExhausted(
  series: readonly Observation[],
  rejected: Observation,
  probe: Observation,
  again: Observation | null,
  window: WindowContext | undefined,
): WindowIntegrity {
  if (again && again.status === TOO_MANY_REQUESTS) {
    const bracket = because('first-party-refused-again', { requestId: again.id });
    return { ok: true, note: reasonText(bracket), reason: bracket };
  }
  // The server's own word first, where its Reset places windows: two epochs that differ are a rollover.
  if (!window || window.placeBy === 'reset') {
    const seconds = window ? Math.max(1, Math.ceil(window.lengthMs / 1000)) : DAY_S;
    const [a, b] = [readReset(rejected, seconds).reset, readReset(probe, seconds).reset];
    if (a !== null && b !== null) {
      return a === b
        ? { ok: true, note: `the rejection and the request share Reset ${a}` }
        : notInOneWindow(because('window-rolled-over-between', { refusalReset: a, requestReset: b }));
    }
  }
  if (window) {
    const safeEnd = windowSafeEnd(window, series[0]);
    if ((probe.headersAt ?? probe.doneAt) < safeEnd) {
      return {
        ok: true,
        note: `answered ${Math.round(safeEnd - (probe.headersAt ?? probe.doneAt))} ms before the window's safe end`,
      };
    }
    const integrity = withinOneWindow([...series, probe], window);
    if (integrity.ok) return integrity;
  }
  // A Reset that is no epoch (a countdown) still places two responses sent back to back when it reads the same.
  if (rejected.rateLimit.reset.raw !== null && rejected.rateLimit.reset.raw === probe.rateLimit.reset.raw) {
    return {
      ok: true,
      note: `Reset is not an epoch; the rejection and the request both carry Reset ${probe.rateLimit.reset.raw}`,
    };
  }
  return notInOneWindow(because('window-not-shown-in-force', { refusedId: rejected.id, requestId: probe.id }));
}

/** Plausibility bound for a Reset when the window length is not known. */
const DAY_S = 86_400;

export interface OrgIsolatedInput {
  /** One organization's requests, up to and past its quota. */
  readonly exhausted: readonly Observation[];
  /** One request by another organization of the same tier, right after. */
  readonly other: Observation;
  /** The first organization again, right after the other's request. */
  readonly exhaustedAgain?: Observation | null;
  /** The other organization's Limit. */
  readonly otherLimit: number;
  /** The window the check ran in (fresh on both organizations). */
  readonly window?: WindowContext;
}

/**
 * The other organization's request must be admitted, with its own untouched Remaining when it sends
 * one, while the first organization's quota is shown still used up (the bracket, Reset, or timing). A 429
 * for the other organization, whose window was fresh, is a shared quota whatever the timing.
 */
export function orgIsolatedVerdict(input: OrgIsolatedInput): Finding<OrgQuotaData> {
  const { exhausted, other, otherLimit } = input;
  const expected = `the other organization is admitted with Remaining ${otherLimit - 1} (its own, untouched quota)`;
  const rejected = exhausted.find((o) => o.status === TOO_MANY_REQUESTS);
  if (!rejected) return neverRejected(expected, 'the first organization was never rejected', exhausted, input.window);
  const evidence = [rejected.id, other.id, input.exhaustedAgain?.id];
  const data = orgQuotaData(otherLimit, rejected, other);
  if (other.status === TOO_MANY_REQUESTS) {
    return finding('fail', {
      expected,
      actual: `other organization: ${describe(other)}, right after ${describe(rejected)}`,
      evidence,
      reasons: [because('quota-shared-across-orgs', {})],
      data,
    });
  }
  if (!isAdmitted(other)) return neitherAdmittedNorRefused(expected, 'other organization', other, evidence, data);
  const remaining = data.probeRemaining;
  if (remaining !== null && remaining < otherLimit - 1) {
    const spent = because('other-org-quota-spent', { remaining, spent: otherLimit - 1 - remaining });
    return finding('fail', { expected, actual: reasonText(spent), evidence, reasons: [spent], data });
  }
  const still = stillExhausted(exhausted, rejected, other, input.exhaustedAgain ?? null, input.window);
  if (!still.ok) {
    return finding('inconclusive', {
      expected,
      actual: `other organization admitted (${describe(other)})`,
      evidence,
      reasons: [still.reason],
      data,
      measureAgain: 'next-window',
    });
  }
  const shownRemaining = remaining !== null ? `Remaining ${remaining}` : 'no Remaining header; admitted';
  const grounds = integrityGrounds(still);
  return finding('pass', {
    expected,
    actual: `other organization admitted (${shownRemaining}) while the first organization's quota was used up`,
    evidence,
    ...grounds,
    data,
  });
}

/** The request that decides the check got no answer, or one neither admitted nor 429: measured again where it got none. */
function neitherAdmittedNorRefused(
  expected: string,
  party: string,
  probe: Observation,
  evidence: readonly (number | undefined)[],
  data: OrgQuotaData,
): Finding<OrgQuotaData> {
  const why = because('neither-admitted-nor-refused', { party, outcome: outcomeOf(probe), requestId: probe.id });
  return finding('inconclusive', {
    expected,
    actual: reasonText(why),
    evidence,
    reasons: [why],
    data,
    measureAgain: probe.status === null && 'next-window',
  });
}

/**
 * The first party's requests met no 429. Where they ran past their window (its Reset moved on, or
 * past its safe end), that is why too: a spoiled measurement, measured again in the next window.
 */
function neverRejected(
  expected: string,
  actual: string,
  requests: readonly Observation[],
  window: WindowContext | undefined,
): Finding<OrgQuotaData> {
  const evidence = requests.slice(-1).map((o) => o.id);
  const never = because('never-refused', { sent: requests.length });
  const integrity = window === undefined ? null : withinOneWindow(requests, window);
  if (integrity === null || integrity.ok)
    return finding('inconclusive', { expected, actual, evidence, reasons: [never] });
  const reasons: Reason[] = [never, integrity.reason];
  return finding('inconclusive', {
    expected,
    actual,
    evidence,
    reasons: atLeastOne(reasons),
    measureAgain: 'next-window',
  });
}
