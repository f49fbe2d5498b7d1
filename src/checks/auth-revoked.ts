/**
 * AUTH-REVOKED (§5.9; 401 by the auth-status assumption): after the settle period, a revoked key is
 * rejected on every edge. One final probe per edge per judged trial: an admission or another
 * status fails; a 429 or no response proves nothing (inconclusive). The verdict is pure, and held
 * here with the check's catalogue entry (its module, `verdictOf`).
 */
import type { ProbeRecord } from '../measure/revocation-records.ts';
import { TOO_MANY_REQUESTS, countOf, finding, isAdmittedStatus, listSome } from '../verdicts/support/finding.ts';
import { coverageGaps, judgedRuns, type RevocationEvidence } from '../verdicts/support/revocation-evidence.ts';
import type { Finding } from '../catalogue/types.ts';
import { defineCheck, verdictOf } from './define.ts';

const outcome = (p: ProbeRecord) => (p.status !== null ? String(p.status) : (p.error ?? 'no response'));

export function authRevokedVerdict(e: RevocationEvidence): Finding {
  const judged = judgedRuns(e.runs);
  const edges = e.runs[0]?.edges.length ?? 0;
  const expected = `${e.rejectStatus} for the revoked key on every edge after the settle period (${countOf(edges, 'edge')} × ${countOf(e.plannedTrials, 'trial')})`;
  const finals = judged.flatMap((run) => run.probes.filter((p) => p.phase === 'final').map((p) => ({ run, p })));
  const missing = judged.flatMap((run) =>
    run.edges
      .filter((edge) => !run.probes.some((p) => p.phase === 'final' && p.edge === edge))
      .map((edge) => `trial ${run.trial}: no final probe on ${edge}`),
  );
  const wrong = finals.filter(
    ({ p }) => p.status !== null && p.status !== e.rejectStatus && p.status !== TOO_MANY_REQUESTS,
  );
  if (wrong.length > 0) {
    const lines = wrong.map(({ run, p }) =>
      isAdmittedStatus(p.status)
        ? `${p.edge} admitted the revoked key in trial ${run.trial} (${p.status}, #${p.id})`
        : `${p.edge} answered ${p.status} instead of ${e.rejectStatus} in trial ${run.trial} (#${p.id})`,
    );
    return finding('fail', {
      expected,
      actual: `${e.rejectStatus} on ${finals.length - wrong.length} of ${finals.length}; ${listSome(lines)}`,
      evidence: wrong.slice(0, 5).map(({ p }) => p.id),
      notes: coverageGaps(e),
    });
  }
  const unusable = finals.filter(({ p }) => p.status === null || p.status === TOO_MANY_REQUESTS);
  const gaps = [...coverageGaps(e), ...missing];
  if (finals.length === 0 || unusable.length > 0 || gaps.length > 0) {
    const lines = unusable.map(({ run, p }) => `${p.edge} in trial ${run.trial}: ${outcome(p)} (#${p.id})`);
    return finding('inconclusive', {
      expected,
      actual: `${e.rejectStatus} on ${finals.length - unusable.length} of ${countOf(finals.length, 'final probe')}${lines.length > 0 ? `; ${listSome(lines)}` : ''}${gaps.length > 0 ? `; ${listSome(gaps, 2)}` : ''}`,
      evidence: unusable.slice(0, 5).map(({ p }) => p.id),
      notes: [...(unusable.length > 0 ? ['a 429 or a missing response proves nothing about the key'] : []), ...gaps],
    });
  }
  return finding('pass', {
    expected,
    actual: `${e.rejectStatus} on all ${countOf(finals.length, 'final probe')}`,
    evidence: finals.slice(0, 5).map(({ p }) => p.id),
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
