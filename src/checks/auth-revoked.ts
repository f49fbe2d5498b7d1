/**
 * AUTH-REVOKED (§5.9; 401 by the auth-status assumption): after the settle period, a revoked key is
 * rejected on every edge. One final probe per edge per judged trial: an admission or another
 * status fails; a 429 or no response proves nothing (inconclusive). The verdict is pure, and held
 * here with the check's catalogue entry (its module, `verdictOf`).
 */
import type { ProbeRecord } from '../measure/revocation-records.ts';
import {
  TOO_MANY_REQUESTS,
  countOf,
  finding,
  isAdmittedStatus,
  listSome,
  atLeastOne,
} from '../verdicts/support/finding.ts';
import {
  andReasons,
  coverageReasons,
  judgedRuns,
  type RevocationEvidence,
} from '../verdicts/support/revocation-evidence.ts';
import { because, reasonText } from '../catalogue/reasons/index.ts';
import type { Finding } from '../catalogue/types.ts';
import { defineCheck, verdictOf } from './define.ts';

const outcome = (p: ProbeRecord) => (p.status !== null ? String(p.status) : (p.error ?? 'no response'));

/** `data` of AUTH-REVOKED: the status a revoked key must get, on how many edges, over how many trials, and the final probes judged. */
export type AuthRevokedData = {
  readonly rejectStatus: number;
  readonly edges: number;
  readonly plannedTrials: number;
  readonly finalProbes: number;
};

export function authRevokedVerdict(e: RevocationEvidence): Finding<AuthRevokedData> {
  const judged = judgedRuns(e.runs);
  const edges = e.runs[0]?.edges.length ?? 0;
  const expected = `${e.rejectStatus} for the revoked key on every edge after the settle period (${countOf(edges, 'edge')} × ${countOf(e.plannedTrials, 'trial')})`;
  const finals = judged.flatMap((run) => run.probes.filter((p) => p.phase === 'final').map((p) => ({ run, p })));
  const data: AuthRevokedData = {
    rejectStatus: e.rejectStatus,
    edges,
    plannedTrials: e.plannedTrials,
    finalProbes: finals.length,
  };
  const missing = judged.flatMap((run) =>
    run.edges
      .filter((edge) => !run.probes.some((p) => p.phase === 'final' && p.edge === edge))
      .map((edge) => because('no-final-probe', { edge, trial: run.trial })),
  );
  const wrong = finals.filter(
    ({ p }) => p.status !== null && p.status !== e.rejectStatus && p.status !== TOO_MANY_REQUESTS,
  );
  if (wrong.length > 0) {
    const reasons = wrong.map(({ run, p }) =>
      isAdmittedStatus(p.status)
        ? because('revoked-key-admitted', { edge: p.edge, trial: run.trial, status: p.status!, probeId: p.id })
        : because('revoked-key-wrong-status', {
            edge: p.edge,
            trial: run.trial,
            status: p.status!,
            rejectStatus: e.rejectStatus,
            probeId: p.id,
          }),
    );
    return finding('fail', {
      expected,
      actual: `${e.rejectStatus} on ${finals.length - wrong.length} of ${finals.length}; ${listSome(reasons.map(reasonText))}`,
      evidence: wrong.slice(0, 5).map(({ p }) => p.id),
      reasons: atLeastOne([...reasons, ...coverageReasons(e)]),
      data,
    });
  }
  const unusable = finals.filter(({ p }) => p.status === null || p.status === TOO_MANY_REQUESTS);
  const gaps = [...coverageReasons(e), ...missing];
  if (finals.length === 0 || unusable.length > 0 || gaps.length > 0) {
    const unusableReasons = unusable.map(({ run, p }) =>
      because('final-probe-unusable', { edge: p.edge, trial: run.trial, outcome: outcome(p), probeId: p.id }),
    );
    return finding('inconclusive', {
      expected,
      actual: `${e.rejectStatus} on ${finals.length - unusable.length} of ${countOf(finals.length, 'final probe')}${andReasons(unusableReasons, 3)}${andReasons(gaps, 2)}`,
      evidence: unusable.slice(0, 5).map(({ p }) => p.id),
      reasons: atLeastOne([...unusableReasons, ...gaps]),
      data,
    });
  }
  return finding('pass', {
    expected,
    actual: `${e.rejectStatus} on all ${countOf(finals.length, 'final probe')}`,
    evidence: finals.slice(0, 5).map(({ p }) => p.id),
    data,
  });
}

export const check = defineCheck({
  id: 'AUTH-REVOKED',
  title: 'Revoked key rejected',
  asserts: 'a revoked key: 401 (assumed), on every edge',
  spec: '§5.9',
  requirement: 'A revoked key is rejected on every edge.',
  assumptions: ['auth-status'],
  verdict: verdictOf({ authRevokedVerdict }),
  report: {},
});
