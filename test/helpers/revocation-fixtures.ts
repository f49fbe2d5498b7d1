/**
 * Recorded probe data for the pure verdicts: trials written as per-edge timelines, offsets in ms
 * from the revoke call (which starts at monotonic 1000). An answered probe takes 1 ms unless its
 * timeline entry gives its round trip.
 */
import type { RevocationEvidence, RevocationProblem } from '../../src/verdicts/support/revocation-evidence.ts';
import type {
  ProbeRecord,
  ProbeStop,
  RevocationProbeRun,
  RevokeConnection,
} from '../../src/measure/revocation-records.ts';
import type { ProbePhase } from '../../src/measure/tags.ts';

export const REVOKE_AT = 1000;
export const RTT = 1;
export const EDGES = ['edge-0', 'edge-1', 'edge-2'] as const;

/** [offset from the revoke call, status (null: no response), round trip in ms (default RTT)]. */
export type Timeline = readonly (readonly [number, number | null] | readonly [number, number | null, number])[];

export interface RunSpec {
  readonly trial?: number;
  readonly probes: Readonly<Record<string, Timeline>>;
  readonly finals?: Readonly<Record<string, number | null>>;
  readonly successorBefore?: Readonly<Record<string, number | null>>;
  readonly successorAfter?: Readonly<Record<string, number | null>>;
  readonly successor?: boolean;
  readonly stoppedBy?: ProbeStop;
  readonly revokeError?: string | null;
  readonly revokeCallMs?: number | null;
  readonly revoked?: boolean;
  readonly revokeConnection?: RevokeConnection;
}

let nextId = 1;

function record(edge: string, phase: ProbePhase, offset: number, status: number | null, rtt = RTT): ProbeRecord {
  const sentAt = REVOKE_AT + offset;
  return {
    id: nextId++,
    edge,
    phase,
    sentAt,
    headersAt: status === null ? null : sentAt + rtt,
    status,
    error: status === null ? 'TIMEOUT' : null,
    edgeNode: edge,
  };
}

/** A clean timeline: admitted every 10 ms from -30 until `rejectAt`, then rejected until `until`. */
export function clean(rejectAt: number, until = rejectAt + 500, step = 10): Timeline {
  const out: [number, number | null][] = [];
  for (let t = -30; t <= until; t += step) out.push([t, t < rejectAt ? 200 : 401]);
  return out;
}

export function run(spec: RunSpec): RevocationProbeRun {
  const edges = Object.keys(spec.probes);
  const revoked = spec.revoked ?? true;
  const stoppedBy = spec.stoppedBy ?? 'settled';
  const probes: ProbeRecord[] = [];
  // The last dense probe's answer: the final probes go after it, as the driver sends them.
  const last = Math.max(0, ...Object.values(spec.probes).flatMap((t) => t.map(([o, , rtt]) => o + (rtt ?? RTT))));
  for (const edge of edges) {
    probes.push(record(edge, 'confirm', -100, 200));
    if (spec.successor !== false)
      probes.push(record(edge, 'successor-before', -90, spec.successorBefore?.[edge] ?? 200));
  }
  for (const edge of edges)
    for (const [offset, status, rtt] of spec.probes[edge]!) probes.push(record(edge, 'probe', offset, status, rtt));
  const finished = stoppedBy === 'settled' || stoppedBy === 'max-time';
  if (finished) {
    for (const edge of edges) probes.push(record(edge, 'final', last + 20, spec.finals?.[edge] ?? 401));
    if (spec.successor !== false)
      for (const edge of edges)
        probes.push(record(edge, 'successor-after', last + 30, spec.successorAfter?.[edge] ?? 200));
  }
  return {
    trial: spec.trial ?? 1,
    edges,
    key: 'xh_test_…AAAA',
    successorKey: spec.successor === false ? null : 'xh_test_…BBBB',
    successorError:
      spec.successor === false ? 'the provision command exited with status 1: quota of keys reached' : null,
    intervalMs: 10,
    settleMs: 500,
    maxMs: 8500,
    revokeStartedAt: revoked ? REVOKE_AT : null,
    revokeStartedWall: revoked ? 1_700_000_000_000 : null,
    revokeReturnedAt: revoked && spec.revokeCallMs !== null ? REVOKE_AT + (spec.revokeCallMs ?? 3) : null,
    revokeError: spec.revokeError ?? null,
    stoppedBy,
    revokeConnection: revoked ? (spec.revokeConnection ?? { state: 'warm' }) : null,
    pacing: revoked ? edges.map((edge) => ({ edge, inFlight: 1, everyMs: 10, asked: 1, slowRoundTripMs: RTT })) : [],
    skippedSlots: 0,
    probes,
    notes: [],
  };
}

/** Every edge rejecting 300 ms after the revoke call. */
export function cleanRun(trial = 1): RevocationProbeRun {
  return run({ trial, probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) });
}

export function evidence(
  runs: readonly RevocationProbeRun[],
  plannedTrials = runs.length,
  problems: readonly RevocationProblem[] = [],
): RevocationEvidence {
  return { runs, plannedTrials, problems, slaMs: 3000, rejectStatus: 401 };
}
