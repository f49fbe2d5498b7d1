/**
 * The bracket in which an edge began rejecting a revoked key (README "Revocation bounds"), per edge
 * and trial, in ms from the revoke call's start on the monotonic clock. Pure.
 *
 * Why the bounds hold, for any split of every round trip into its way there and back, and with
 * several probes in flight per edge, whose answers may come back out of the order they were sent in
 * (each on its own connection, with jitter): the edge decides a probe at some moment after we sent
 * it and before its answer reached us; which moment, we cannot tell, so a probe sent later may be
 * decided before one sent earlier.
 * - Upper bound: the receipt of the first rejected probe answered after the revoke call began
 *   (`firstRejected`, the earliest by receipt): the edge was rejecting by then. A rejection answered
 *   before the call began cannot be the revocation (a transient 401), and closes nothing.
 * - Lower bound: the latest send of an admitted probe sent before that rejection's answer arrived:
 *   those may have been decided before it (at one probe in flight, they are the probes sent before
 *   it). Each was decided after its send and admitted the key. Decided before the edge began
 *   rejecting, it puts that moment after its send; decided after, the edge admitted the key again
 *   after rejecting it, after that send. Either way the key still worked on the edge after the lower
 *   bound, so a lower bound past the SLA is a true miss.
 * - An admitted probe sent after a rejection's answer arrived was decided after that rejection was:
 *   the edge admitted the key again (REVOKE-STICKY, `readmittedAfter`). It moves no bound here, so a
 *   flap fails REVOKE-STICKY, and REVOKE-LATENCY judges when the edge began rejecting.
 * - REVOKE-STICKY may conclude only that: an admitted probe sent before the rejection's answer came
 *   (while it was in flight, or before it was sent) may have been decided before it, and shows no flap;
 *   nor does one a node other than the rejecting one answered (the edge-node header naming both): a
 *   balancer behind one address spreads connections over nodes, each revoking in its own time.
 * - Whatever came before it, an admitted probe shows the key still worked on the edge after its send
 *   (`workedUntilMs`, the latest such send): one past the SLA is a miss even where the bracket closed
 *   earlier (another node behind the address, or a flap), and REVOKE-LATENCY fails it.
 * The bounds count from the revoke call's send; the server receives the call later, by up to the
 * call's own duration (`revokeCallMs`): REVOKE-LATENCY allows for that before it calls a bound late.
 *
 * A probe that is neither admitted nor rejected (429, another status, no response) is unusable: it
 * narrows nothing, and is counted.
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
  /** The latest-sent admitted probe that may have been decided before `firstRejected` (sent before its answer came). */
  readonly lastAdmitted: ProbeRecord | null;
  /** The first rejected probe by receipt, answered after the revoke call began. */
  readonly firstRejected: ProbeRecord | null;
  /** The latest-sent admitted probe of all: the key still worked on the edge after its send. */
  readonly latestAdmitted: ProbeRecord | null;
  /** ms from the revoke call to that send (0 at the least); null when the revoke call was never made. */
  readonly workedUntilMs: number | null;
  /** Probes sent on this edge in the dense loop. */
  readonly probes: number;
  readonly unusable: UnusableCounts;
  readonly unusableProbes: number;
  /** How long the revoke hook took, ms (the server received the call within it); null when it never returned. */
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
const byReceipt = (a: ProbeRecord, b: ProbeRecord) => a.headersAt! - b.headersAt! || bySend(a, b);

/** The dense-loop probes of one edge, in send order. */
export function edgeProbes(run: RevocationProbeRun, edge: string): ProbeRecord[] {
  return run.probes.filter((p) => p.edge === edge && p.phase === 'probe').sort(bySend);
}

/**
 * The first rejection answered after the revoke call began, by receipt (the upper bound's probe); a
 * rejection answered before the call began cannot be the revocation (a transient 401): it never
 * closes the bracket, or a key an edge never revoked could pass on it. Null without one.
 */
export function firstRejection(
  probes: readonly ProbeRecord[],
  revokeAt: number | null,
  rejectStatus: number,
): ProbeRecord | null {
  if (revokeAt === null) return null;
  const rejected = probes.filter((p) => p.status === rejectStatus && p.headersAt !== null && p.headersAt >= revokeAt);
  return rejected.sort(byReceipt)[0] ?? null;
}

/**
 * Whether `probe` was sent after `rejection`'s answer arrived, so the edge decided it after that
 * rejection, on the same node (where the edge-node header names both: another node behind the same
 * address revokes in its own time).
 */
export function readmittedAfter(probe: ProbeRecord, rejection: ProbeRecord): boolean {
  const otherNode = probe.edgeNode !== null && rejection.edgeNode !== null && probe.edgeNode !== rejection.edgeNode;
  return isAdmittedStatus(probe.status) && probe.sentAt > rejection.headersAt! && !otherNode;
}

export function edgeBounds(run: RevocationProbeRun, rejectStatus: number): EdgeBounds[] {
  const revokeAt = run.revokeStartedAt;
  const revokeCallMs = revokeAt !== null && run.revokeReturnedAt !== null ? run.revokeReturnedAt - revokeAt : null;
  return run.edges.map((edge): EdgeBounds => {
    const probes = edgeProbes(run, edge);
    const firstRejected = firstRejection(probes, revokeAt, rejectStatus);
    // The admitted probes that may have been decided before the first rejection: sent before its answer came.
    const mayPrecede = firstRejected ? probes.filter((p) => p.sentAt < firstRejected.headersAt!) : probes;
    const lastAdmitted = mayPrecede.filter((p) => isAdmittedStatus(p.status)).at(-1) ?? null;
    const lowerMs = revokeAt === null ? null : Math.max(0, lastAdmitted ? lastAdmitted.sentAt - revokeAt : 0);
    const latestAdmitted = probes.filter((p) => isAdmittedStatus(p.status)).at(-1) ?? null;
    const workedUntilMs = revokeAt === null ? null : Math.max(0, latestAdmitted ? latestAdmitted.sentAt - revokeAt : 0);
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
      latestAdmitted,
      workedUntilMs,
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
