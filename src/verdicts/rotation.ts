/**
 * ROTATION (§5.8): "a new key should be generated before the old one is revoked". The successor key
 * of the same org must be admitted on every edge before the old key is revoked, and still after the
 * revocation settled. Before the revoke call the successor gets a few tries while a new key
 * propagates. Per edge and phase, one admission is enough; without one, the last answer decides: a
 * rejection (any status but 2xx or 429) fails, 429 or no response proves nothing. Pure.
 */
import type { ProbeRecord, RevocationProbeRun } from '../measure/revocation-records.ts';
import { TOO_MANY_REQUESTS, countOf, finding, isAdmittedStatus, listSome } from './support/finding.ts';
import { coverageGaps, judgedRuns, type RevocationEvidence } from './support/revocation-evidence.ts';
import type { Finding } from '../catalogue/types.ts';

type Judgement = {
  readonly kind: 'ok' | 'rejected' | 'unusable' | 'missing';
  readonly probe: ProbeRecord | null;
  readonly line: string;
};

const WHEN: Readonly<Record<'successor-before' | 'successor-after', string>> = {
  'successor-before': 'before the old key was revoked',
  'successor-after': 'after the old key was revoked',
};

function judgeEdge(run: RevocationProbeRun, edge: string, phase: 'successor-before' | 'successor-after'): Judgement {
  const probes = run.probes.filter((p) => p.edge === edge && p.phase === phase);
  const where = `${edge} in trial ${run.trial}`;
  if (probes.some((p) => isAdmittedStatus(p.status))) {
    const probe = probes.find((p) => isAdmittedStatus(p.status))!;
    return { kind: 'ok', probe, line: `${where}: admitted ${WHEN[phase]}` };
  }
  const last = probes.at(-1) ?? null;
  if (!last) return { kind: 'missing', probe: null, line: `${where}: the new key was not probed ${WHEN[phase]}` };
  if (last.status === null || last.status === TOO_MANY_REQUESTS) {
    return {
      kind: 'unusable',
      probe: last,
      line: `${where}: ${last.status ?? last.error ?? 'no response'} ${WHEN[phase]} (#${last.id})`,
    };
  }
  return {
    kind: 'rejected',
    probe: last,
    line: `${where}: the new key got ${last.status} ${WHEN[phase]} (#${last.id})`,
  };
}

export function rotationVerdict(e: RevocationEvidence): Finding {
  const expected = `a second key of the same org is admitted on every edge before and after the old key is revoked, in each of ${countOf(e.plannedTrials, 'trial')}`;
  const judged = new Set(judgedRuns(e.runs));
  const gaps: string[] = [];
  const all: Judgement[] = [];
  for (const run of e.runs) {
    if (run.successorKey === null) {
      gaps.push(`trial ${run.trial}: no successor key${run.successorError ? ` (${run.successorError})` : ''}`);
      continue;
    }
    for (const edge of run.edges) all.push(judgeEdge(run, edge, 'successor-before'));
    if (judged.has(run)) for (const edge of run.edges) all.push(judgeEdge(run, edge, 'successor-after'));
  }
  const rejected = all.filter((j) => j.kind === 'rejected');
  if (rejected.length > 0) {
    return finding('fail', {
      expected,
      actual: listSome(rejected.map((j) => j.line)),
      evidence: rejected.slice(0, 5).map((j) => j.probe?.id),
      notes: [...gaps, ...coverageGaps(e)],
    });
  }
  const open = all.filter((j) => j.kind === 'unusable' || j.kind === 'missing');
  const allGaps = [...gaps, ...coverageGaps(e)];
  const ok = all.filter((j) => j.kind === 'ok');
  if (ok.length === 0 || open.length > 0 || allGaps.length > 0) {
    return finding('inconclusive', {
      expected,
      actual: `the new key admitted in ${ok.length} of ${countOf(all.length, 'edge check')}${open.length + allGaps.length > 0 ? `; ${listSome([...open.map((j) => j.line), ...allGaps], 3)}` : ''}`,
      evidence: open.slice(0, 5).map((j) => j.probe?.id),
      notes: [...open.map((j) => j.line), ...allGaps],
    });
  }
  return finding('pass', {
    expected,
    actual: `the new key was admitted on every edge before and after each revocation (${countOf(ok.length, 'edge check')})`,
    evidence: ok.slice(0, 6).map((j) => j.probe?.id),
  });
}
