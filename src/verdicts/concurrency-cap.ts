/**
 * CONCURRENCY-CAP (§8, `concurrency-status`): with the cap of requests held in flight on a slow
 * endpoint, every held request is admitted and one more, sent while they are held, is rejected
 * (429 by assumption).
 *
 * Valid only if the extra was answered while every held request was still in flight: its
 * headersAt precedes every held request's headersAt. (Its send time proves nothing: a request can
 * wait in the client's connection pool, or at the server, until a held one finishes and frees a
 * slot. So an extra that is itself slow, like the held uploads, can show a rejection but never an
 * admission over the cap: send the extra to a fast endpoint the cap also applies to.) A held request
 * rejected is a fail even when that cannot be shown (the held ones alone never exceed the cap) —
 * unless it is the only one and the extra was admitted: the server may have seen the extra first.
 */
import type { Figure } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, describe, finding, isAdmitted, listSome, outcomeOf } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';

export interface ConcurrencyCapInput {
  /** The cap of requests, sent together to a slow endpoint. */
  readonly held: readonly Observation[];
  /** One more, sent while they were held. */
  readonly extra: Observation;
  readonly figure: Figure;
  /** The cap the harness tested where the figure is a minimum (Enterprise). */
  readonly capAnnounced?: number;
  /**
   * The server's own word that every held request was admitted before the extra was sent: a free
   * witness response whose ingest Remaining shows the held uploads counted. Without it, an extra
   * admitted may simply have overtaken held requests still on their way, and cannot fail the check.
   */
  readonly heldCounted?: Observation | null;
  /** Status expected for the extra request: the contract's `statuses.concurrencyCapped` (429 when absent). */
  readonly rejectedStatus?: number;
}

/** `data` of CONCURRENCY-CAP: the cap judged by, each held request's status, the extra's, and when each was answered. */
export type ConcurrencyCapData = {
  readonly cap: number;
  readonly held: readonly { readonly n: number; readonly status: number | null }[];
  readonly extraStatus: number | null;
  readonly timing: { readonly extraHeadersAt: number | null; readonly firstHeldHeadersAt: number | null };
};

export function concurrencyCapVerdict(input: ConcurrencyCapInput): Finding<ConcurrencyCapData> {
  const { held, extra, figure } = input;
  const rejectedStatus = input.rejectedStatus ?? TOO_MANY_REQUESTS;
  const notes: string[] = [];
  let cap: number;
  if (!figure.atLeast) {
    cap = figure.value;
    if (input.capAnnounced !== undefined && input.capAnnounced !== figure.value) {
      notes.push(`cap ${input.capAnnounced} was announced; judged against the published ${figure.value}`);
    }
  } else {
    cap = input.capAnnounced ?? held.length;
    if (cap < figure.value) notes.push(`cap ${cap} is below the published minimum ${figure.value}`);
    if (input.capAnnounced === undefined) notes.push(`the published cap is at least ${figure.value}; tested with ${held.length} held`);
  }

  const expected = `all ${cap} held requests admitted and the one sent while they were held rejected with ${rejectedStatus}`;
  const heldAdmitted = held.filter(isAdmitted);
  const heldRefused = held.filter((o) => o.status !== null && !isAdmitted(o));
  const heldLost = held.filter((o) => o.status === null);
  const extraAnswer = extra.headersAt;
  const firstHeldDone = Math.min(...held.map((o) => o.headersAt ?? o.doneAt));
  const timing = { extraHeadersAt: extraAnswer, firstHeldHeadersAt: Number.isFinite(firstHeldDone) ? firstHeldDone : null };
  const data: ConcurrencyCapData = {
    cap,
    held: held.map((o, i) => ({ n: i + 1, status: o.status })),
    extraStatus: extra.status,
    timing,
  };
  const heldTally = `${heldAdmitted.length} of ${held.length} held admitted`;

  if (held.length !== cap) {
    return finding('inconclusive', {
      expected,
      actual: `${held.length} requests were held, the cap is ${cap}`,
      evidence: [extra.id],
      notes: [...notes, 'the test needs exactly the cap in flight'],
      data,
    });
  }
  // Enterprise: with cap + 1 at most the published minimum in flight, the server must admit them all.
  const underMinimum = figure.atLeast && cap + 1 <= figure.value;
  if (underMinimum) return underMinimumVerdict(input, cap, { expected, notes, data, heldTally, heldRefused, heldLost });
  const [onlyRefused] = heldRefused;
  if (heldRefused.length === 1 && onlyRefused !== undefined && isAdmitted(extra)) {
    return finding('inconclusive', {
      expected,
      actual: `${heldTally}; ${describe(onlyRefused)}; the extra got ${extra.status}`,
      evidence: [onlyRefused.id, extra.id],
      notes: [...notes, 'exactly one of the cap + 1 was rejected, but not the extra: the server may have seen the extra first'],
      data,
    });
  }
  if (heldRefused.length > 0) {
    return finding('fail', {
      expected,
      actual: `cap admitted only ${heldAdmitted.length} of ${cap}: ${listSome(heldRefused.map(describe))}; extra got ${outcomeOf(extra)}`,
      evidence: [...heldRefused.slice(0, 3).map((o) => o.id), extra.id],
      notes,
      data,
    });
  }
  if (extra.status === null || extraAnswer === null) {
    return finding('inconclusive', {
      expected,
      actual: `${heldTally}; extra got no response (${outcomeOf(extra)})`,
      evidence: [extra.id],
      notes,
      data,
    });
  }
  if (!Number.isFinite(extraAnswer) || !Number.isFinite(firstHeldDone) || !Number.isFinite(extra.sentAt)) {
    return finding('inconclusive', {
      expected,
      actual: `${heldTally}; extra got ${extra.status}, but the order of the answers is unknown (times missing)`,
      evidence: [extra.id, ...held.slice(0, 3).map((o) => o.id)],
      notes: [...notes, 'cannot tell whether the held requests were still in flight when the extra was answered'],
      data,
    });
  }
  if (!(extraAnswer < firstHeldDone)) {
    return finding('inconclusive', {
      expected,
      actual: `${heldTally}; extra got ${extra.status}, answered ${Math.round(extraAnswer - firstHeldDone)} ms after the first held request finished`,
      evidence: [extra.id, ...held.filter((o) => (o.headersAt ?? o.doneAt) === firstHeldDone).map((o) => o.id)],
      notes: [...notes, 'held requests finished before the extra was answered; cannot tell'],
      data,
    });
  }
  if (isAdmitted(extra)) {
    if (heldLost.length > 0) {
      return finding('inconclusive', {
        expected,
        actual: `${heldTally}; ${listSome(heldLost.map(describe))}; extra got ${extra.status}`,
        evidence: [...heldLost.slice(0, 3).map((o) => o.id), extra.id],
        notes: [...notes, 'a held request without a response may never have been admitted: cap + 1 in flight is not shown'],
        data,
      });
    }
    const witness = input.heldCounted ?? null;
    if (witness === null) {
      return finding('inconclusive', {
        expected,
        actual: `${heldTally}; the extra got ${extra.status} while they were held, but the server gave no evidence that all ${cap} had arrived before it`,
        evidence: [extra.id, held[0]?.id],
        notes: [...notes, 'an extra admitted may have overtaken held requests still on their way to the server'],
        data,
      });
    }
    return finding('fail', {
      expected,
      actual: `admitted all ${cap + 1}: the extra got ${extra.status} after the server counted all ${cap} held (${describe(witness)}, Remaining ${witness.rateLimit.remaining.raw}), ${Math.round(firstHeldDone - extraAnswer)} ms before the first held one finished`,
      evidence: [extra.id, witness.id, held[0]?.id],
      notes,
      data,
    });
  }
  if (extra.status !== rejectedStatus) {
    return finding('fail', {
      expected,
      actual: `${heldTally}; extra got ${extra.status} instead of ${rejectedStatus}`,
      evidence: [extra.id],
      notes,
      data,
    });
  }
  if (heldLost.length > 0) {
    return finding('inconclusive', {
      expected,
      actual: `${heldTally}; ${listSome(heldLost.map(describe))}; extra got ${extra.status}`,
      evidence: [...heldLost.slice(0, 3).map((o) => o.id), extra.id],
      notes,
      data,
    });
  }
  return finding('pass', {
    expected,
    actual: `all ${cap} held admitted; the extra got ${extra.status} ${Math.round(firstHeldDone - extraAnswer)} ms before the first held one finished`,
    evidence: [extra.id, held[0]?.id],
    notes,
    data,
  });
}

interface UnderMinimumParts {
  readonly expected: string;
  readonly notes: readonly string[];
  readonly data: ConcurrencyCapData;
  readonly heldTally: string;
  readonly heldRefused: readonly Observation[];
  readonly heldLost: readonly Observation[];
}

/**
 * A cap below the published minimum was tested (Enterprise "100 or more"): cap + 1 in flight is still
 * within what the spec promises, so any rejection fails and every admission only shows the cap was
 * not reached.
 */
function underMinimumVerdict(input: ConcurrencyCapInput, cap: number, parts: UnderMinimumParts): Finding<ConcurrencyCapData> {
  const { extra, figure } = input;
  const { expected, notes, data, heldTally, heldRefused, heldLost } = parts;
  const minimum = `the published minimum is ${figure.value}`;
  const rejected = [...heldRefused, ...(extra.status !== null && !isAdmitted(extra) ? [extra] : [])];
  if (rejected.length > 0) {
    return finding('fail', {
      expected,
      actual: `rejected with only ${cap + 1} in flight (${minimum}): ${listSome(rejected.map(describe))}`,
      evidence: rejected.slice(0, 4).map((o) => o.id),
      notes,
      data,
    });
  }
  return finding('inconclusive', {
    expected,
    actual: `${heldTally}; extra got ${outcomeOf(extra)}; the cap was not reached with ${cap + 1} in flight (${minimum})`,
    evidence: [extra.id, ...heldLost.slice(0, 3).map((o) => o.id)],
    notes: [...notes, `test with at least ${figure.value} held to find the cap`],
    data,
  });
}
