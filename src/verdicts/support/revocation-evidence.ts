/**
 * What the four revocation verdicts (REVOKE-LATENCY, REVOKE-STICKY, AUTH-REVOKED, ROTATION) judge:
 * the trials as the driver recorded them, and the caveats every one of them shares. Pure.
 */
import type { RevocationProbeRun } from '../../measure/revocation-records.ts';
import { isAdmittedStatus, listSome } from './finding.ts';
import { because, reasonText, type Reason } from '../../catalogue/reasons/index.ts';
import type { ConfidenceTarget } from '../../config/confidence-target.ts';
import type { Vantages } from './vantage-bounds.ts';
import type { TrialsAtOnce } from './revocation-method.ts';

/** What went wrong beside the trials: a provisioning that stopped them, keys they may have left live. */
export type RevocationProblem = Extract<
  Reason,
  { code: 'provisioning-failed' | 'keys-left-live' | 'cleanup-revoke-failed' }
>;

export interface RevocationEvidence {
  readonly runs: readonly RevocationProbeRun[];
  /** Trials the task meant to run. */
  readonly plannedTrials: number;
  /** Why trials are missing or keys were left behind (provisioning failures, a broken hook). */
  readonly problems: readonly RevocationProblem[];
  /** §5.9, §8.3: 3000 ms. */
  readonly slaMs: number;
  /** Status meaning "rejected as revoked" (401, auth-status assumption). */
  readonly rejectStatus: number;
  /** Caveats of the method (probing load), shown on REVOKE-LATENCY. */
  readonly methodNotes?: readonly string[];
  /** How many trials ran at once, and what held them below what was asked; absent: not recorded. */
  readonly parallel?: TrialsAtOnce;
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

/** The edges of a trial on which its key was never admitted while it was confirmed. */
function unconfirmedEdges(run: RevocationProbeRun): string[] {
  return run.edges.filter(
    (edge) => !run.probes.some((p) => p.phase === 'confirm' && p.edge === edge && isAdmittedStatus(p.status)),
  );
}

/** Why a trial was not judged (`judgedRuns`). */
function unjudgedReason(run: RevocationProbeRun): Reason {
  switch (run.stoppedBy) {
    case 'settled':
    case 'max-time':
      return because('revoke-call-unreturned', { trial: run.trial });
    case 'aborted':
      return because('interrupted', { wouldHaveBeen: '' });
    case 'not-confirmed':
      return because('key-not-confirmed', { trial: run.trial, edges: unconfirmedEdges(run) });
    case 'revoke-failed':
      return because('revoke-hook-failed', { trial: run.trial, hookError: run.revokeError });
  }
}

/**
 * Why the evidence is incomplete, shared by all four verdicts: trials not run, trials not judged
 * (with the hook's output), and the runner's problems (`e.problems`). Empty when
 * every planned trial was judged.
 */
export function coverageReasons(e: RevocationEvidence): Reason[] {
  const reasons: Reason[] = [];
  if (e.runs.length === 0) reasons.push(because('no-trial-ran', {}));
  else if (e.runs.length < e.plannedTrials)
    reasons.push(because('trials-not-run', { ran: e.runs.length, planned: e.plannedTrials }));
  const judged = new Set(judgedRuns(e.runs));
  for (const run of e.runs.filter((r) => !judged.has(r))) {
    const why = unjudgedReason(run);
    // Several trials cut short by one Ctrl-C are one interruption.
    if (!reasons.some((r) => r.code === 'interrupted' && why.code === 'interrupted')) reasons.push(why);
  }
  reasons.push(...e.problems);
  return reasons;
}

/** "; " and the sentences of the first `max` reasons, for a result's `actual`; nothing for none. */
export function andReasons(reasons: readonly Reason[], max: number): string {
  return reasons.length > 0 ? `; ${listSome(reasons.map(reasonText), max)}` : '';
}
