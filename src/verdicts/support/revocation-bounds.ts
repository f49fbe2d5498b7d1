/**
 * The bracket in which an edge began rejecting a revoked key (README "How it measures"): per
 * edge and trial, lower bound = send time of the last admitted probe before the first rejection,
 * upper bound = receive time of the first rejected probe, both from the revoke call on the monotonic
 * clock. A probe that is neither admitted nor rejected (429, another status, no response) is
 * unusable: it narrows nothing, and is counted. Pure.
 */
import { TOO_MANY_REQUESTS, isAdmittedStatus } from './finding.ts';
import type { ProbeRecord, RevocationProbeRun } from '../../measure/revocation-records.ts';

export interface UnusableCounts {
  /** 429: a quota or concurrency rejection says nothing about the key. */
  readonly rateLimited: number;
  /** No HTTP response (timeout, reset). */
  readonly transport: number;
  /** Any other status (neither 2xx nor the rejection status). */
  readonly otherStatus: number;
}

export interface EdgeBounds {
  readonly trial: number;
  readonly edge: string;
  /** The node that answered (edge-node header), when the edge named one. */
  readonly edgeNode: string | null;
  /**
   * ms from the revoke call; never below 0, since no edge can act on a revocation before it is
   * requested. null when the revoke call was never made.
   */
  readonly lowerMs: number | null;
  /** ms from the revoke call; null when no rejection was seen. */
  readonly upperMs: number | null;
  readonly widthMs: number | null;
  readonly lastAdmitted: ProbeRecord | null;
  readonly firstRejected: ProbeRecord | null;
  /** Probes sent on this edge in the dense loop. */
  readonly probes: number;
  readonly unusable: UnusableCounts;
  readonly unusableProbes: number;
  /** How long the revoke hook took, ms; null when it never returned. */
  readonly revokeCallMs: number | null;
}

export function unusableCounts(probes: readonly ProbeRecord[], rejectStatus: number): UnusableCounts {
  let rateLimited = 0;
  let transport = 0;
  let otherStatus = 0;
  for (const p of probes) {
    if (p.status === null) transport += 1;
    else if (p.status === TOO_MANY_REQUESTS) rateLimited += 1;
    else if (!isAdmittedStatus(p.status) && p.status !== rejectStatus) otherStatus += 1;
  }
  return { rateLimited, transport, otherStatus };
}

const bySend = (a: ProbeRecord, b: ProbeRecord) => a.sentAt - b.sentAt || a.id - b.id;

/** The dense-loop probes of one edge, in send order. */
export function edgeProbes(run: RevocationProbeRun, edge: string): ProbeRecord[] {
  return run.probes.filter((p) => p.edge === edge && p.phase === 'probe').sort(bySend);
}

export function edgeBounds(run: RevocationProbeRun, rejectStatus: number): EdgeBounds[] {
  const revokeAt = run.revokeStartedAt;
  const revokeCallMs = revokeAt !== null && run.revokeReturnedAt !== null ? run.revokeReturnedAt - revokeAt : null;
  return run.edges.map((edge): EdgeBounds => {
    const probes = edgeProbes(run, edge);
    // A rejection answered before the revoke call began cannot be the revocation (a transient 401):
    // it never closes the bracket, or a key an edge never revoked could pass on it.
    const firstRejected =
      probes.find(
        (p) => p.status === rejectStatus && p.headersAt !== null && revokeAt !== null && p.headersAt >= revokeAt,
      ) ?? null;
    const before = firstRejected ? probes.filter((p) => bySend(p, firstRejected) < 0) : probes;
    const lastAdmitted = before.filter((p) => isAdmittedStatus(p.status)).at(-1) ?? null;
    const lowerMs = revokeAt === null ? null : Math.max(0, lastAdmitted ? lastAdmitted.sentAt - revokeAt : 0);
    const upperMs = revokeAt === null || !firstRejected ? null : firstRejected.headersAt! - revokeAt;
    const unusable = unusableCounts(probes, rejectStatus);
    const named =
      firstRejected?.edgeNode ?? lastAdmitted?.edgeNode ?? probes.find((p) => p.edgeNode !== null)?.edgeNode ?? null;
    return {
      trial: run.trial,
      edge,
      edgeNode: named,
      lowerMs,
      upperMs,
      widthMs: lowerMs !== null && upperMs !== null ? upperMs - lowerMs : null,
      lastAdmitted,
      firstRejected,
      probes: probes.length,
      unusable,
      unusableProbes: unusable.rateLimited + unusable.transport + unusable.otherStatus,
      revokeCallMs,
    };
  });
}

/** Nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}
