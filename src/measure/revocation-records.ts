/**
 * What the revocation probe records (§5.8, §5.9, §8.3): compact per-probe records and the revoke
 * call's times. The full Observation of every probe goes to the recorder (the observations file);
 * these keep only what the verdicts need, so 20 trials of ~1,000 probes stay small in memory.
 * Times are monotonic ms on the prober's clock (run epoch).
 */
import type { Observation } from './observation.ts';
import type { ProbePhase } from './tags.ts';

export interface ProbeRecord {
  /** The observation's id in the observations file. */
  readonly id: number;
  readonly edge: string;
  readonly phase: ProbePhase;
  readonly sentAt: number;
  /** When the response headers arrived; null when none came. */
  readonly headersAt: number | null;
  readonly status: number | null;
  /** Transport error code ('TIMEOUT', 'ECONNRESET', ...), or null. */
  readonly error: string | null;
  /** The node that answered, from the edge-node header (X-Edge-Node by default). */
  readonly edgeNode: string | null;
}

/** Why the probe driver stopped. */
export type ProbeStop =
  /** Every edge rejected, and the settle period passed. */
  | 'settled'
  /** The time bound (maxMs after the revoke call) was reached first. */
  | 'max-time'
  | 'aborted'
  /** The key was not admitted on every edge before revoking: the revoke hook was never called. */
  | 'not-confirmed'
  /** The revoke hook rejected or did not return in time. */
  | 'revoke-failed';

/**
 * The revoke call's connection: opened just before by a request that changes nothing (KeyRevoker.warm),
 * so no handshake fell inside the call; none to open (a command starts afresh, its start-up inside
 * the call); or opening it failed, and the call may carry its handshake.
 */
export type RevokeConnection =
  | { readonly state: 'warm' }
  | { readonly state: 'none' }
  | { readonly state: 'cold'; readonly why: string };

/** How one trial paced its probes to one edge (measure/network.ts probePace): one every `everyMs`, up to `inFlight` out at once. */
export interface ProbePacing {
  readonly edge: string;
  /** What the round trips measured to the edge called for. */
  readonly asked: number;
  /** The most probes the trial kept in flight to the edge at once: fewer than `asked` where its share of the cap or the connections held it lower. */
  readonly inFlight: number;
  /** A probe every so many ms: the run's interval, or a multiple of it where `inFlight` is below `asked`. */
  readonly everyMs: number;
  /** The slow round trip a probe to the edge was taken to be out for (probeRoundTripMs), ms. */
  readonly slowRoundTripMs: number;
}

/** One trial as the driver recorded it. */
export interface RevocationProbeRun {
  readonly trial: number;
  readonly edges: readonly string[];
  /** Redacted key under test. */
  readonly key: string;
  /** Redacted successor key (ROTATION), when one was provisioned. */
  readonly successorKey: string | null;
  /** Why no successor could be used, when none. */
  readonly successorError: string | null;
  readonly intervalMs: number;
  readonly settleMs: number;
  readonly maxMs: number;
  /** Monotonic ms when the revoke hook was called; null when it never was. */
  readonly revokeStartedAt: number | null;
  /** Client wall clock (epoch ms) read with `revokeStartedAt`, to set probes beside server times. */
  readonly revokeStartedWall: number | null;
  /** Monotonic ms when the revoke hook returned (or failed); null when it never did. */
  readonly revokeReturnedAt: number | null;
  /** The hook's error (redacted output), when it rejected or timed out. */
  readonly revokeError: string | null;
  readonly stoppedBy: ProbeStop;
  /** The revoke call's connection before the call; null where the trial never came to revoke (its key not confirmed, Ctrl-C). */
  readonly revokeConnection: RevokeConnection | null;
  /** Per edge, how many probes the dense loop kept in flight to it; empty when it never ran. */
  readonly pacing: readonly ProbePacing[];
  /** Probe slots (of each edge's pace) not sent because the edge already had its maximum in flight. */
  readonly skippedSlots: number;
  readonly probes: readonly ProbeRecord[];
  /** Caveats the driver noticed (e.g. why confirmation failed). */
  readonly notes: readonly string[];
}

export function probeRecord(observation: Observation, phase: ProbePhase): ProbeRecord {
  return {
    id: observation.id,
    edge: observation.edge,
    phase,
    sentAt: observation.sentAt,
    headersAt: observation.headersAt,
    status: observation.status,
    error: observation.error?.code ?? null,
    edgeNode: observation.edgeNode,
  };
}
