/**
 * What the four revocation verdicts (REVOKE-LATENCY, REVOKE-STICKY, AUTH-REVOKED, ROTATION) judge:
 * the trials as the driver recorded them, and the caveats every one of them shares. Pure.
 */
import type { ProbeStop, RevocationProbeRun } from '../../measure/revocation-records.ts';
import { countOf } from './finding.ts';
import type { ConfidenceTarget } from '../../config/confidence-target.ts';
import type { Vantages } from './vantage-bounds.ts';

export interface RevocationEvidence {
  readonly runs: readonly RevocationProbeRun[];
  /** Trials the task meant to run. */
  readonly plannedTrials: number;
  /** Why trials are missing or keys were left behind (provisioning failures, a broken hook). */
  readonly problems: readonly string[];
  /** §5.9, §8.3: 3000 ms. */
  readonly slaMs: number;
  /** Status meaning "rejected as revoked" (401, auth-status assumption). */
  readonly rejectStatus: number;
  /** Caveats of the method (probing load), shown on every verdict. */
  readonly methodNotes?: readonly string[];
  /** What the trials are to prove (a share within the SLA at a confidence); null or absent: no target. */
  readonly target?: ConfidenceTarget | null;
  /** Other places that probed the same trials (`tiergate k6 ingest --revocation`); absent: the run's own probes alone. */
  readonly vantages?: Vantages | null;
}

/** Runs whose revoke call returned and whose probing ran its course: the only ones judged. */
export function judgedRuns(runs: readonly RevocationProbeRun[]): RevocationProbeRun[] {
  return runs.filter(
    (r) =>
      r.revokeStartedAt !== null &&
      r.revokeReturnedAt !== null &&
      (r.stoppedBy === 'settled' || r.stoppedBy === 'max-time'),
  );
}

const STOP_WORDS: Readonly<Record<ProbeStop, string>> = {
  settled: 'settled',
  'max-time': 'stopped at the time bound',
  aborted: 'interrupted',
  'not-confirmed': 'the key was not admitted on every edge before revoking, so it was not revoked',
  'revoke-failed': 'the revoke hook failed',
};

/** "trial 2: the revoke hook failed: <output>". */
export function describeStop(run: RevocationProbeRun): string {
  const why = STOP_WORDS[run.stoppedBy];
  const detail =
    run.stoppedBy === 'revoke-failed' && run.revokeError
      ? `: ${run.revokeError}`
      : run.stoppedBy === 'not-confirmed' && run.notes[0]
        ? ` (${run.notes[0]})`
        : '';
  return `trial ${run.trial}: ${why}${detail}`;
}

/**
 * Reasons the evidence is incomplete, shared by all four verdicts: trials not run, trials not judged
 * (with the hook's output), and the runner's problems. Empty when every planned trial was judged.
 */
export function coverageGaps(e: RevocationEvidence): string[] {
  const gaps: string[] = [];
  if (e.runs.length === 0) gaps.push('no trial ran');
  else if (e.runs.length < e.plannedTrials)
    gaps.push(`${e.runs.length} of ${countOf(e.plannedTrials, 'planned trial')} ran`);
  const judged = new Set(judgedRuns(e.runs));
  for (const run of e.runs) if (!judged.has(run)) gaps.push(describeStop(run));
  return [...gaps, ...e.problems];
}

/** "312 ms", "3.49 s". */
export function ms(value: number): string {
  return Math.abs(value) < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`;
}

/** "edge-1", "edge-1 (node b)"; an edge seen from a vantage ("far: edge-1") is named by its own part. */
export function edgeName(edge: string, edgeNode: string | null): string {
  return edgeNode === null || edgeNode === edge || edge.endsWith(`: ${edgeNode}`) ? edge : `${edge} (node ${edgeNode})`;
}
