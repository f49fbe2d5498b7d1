/**
 * ROTATION (§5.8): "a new key should be generated before the old one is revoked". The successor key
 * of the same org must be admitted on every edge before the old key is revoked, and still after the
 * revocation settled. Before the revoke call the successor gets a few tries while a new key
 * propagates. Per edge and phase, one admission is enough; without one, the last answer decides: a
 * rejection (any status but 2xx or 429) fails, 429 or no response proves nothing. Pure.
 */
import type { ProbeRecord, RevocationProbeRun } from '../measure/revocation-records.ts';
import { TOO_MANY_REQUESTS, countOf, finding, isAdmittedStatus, listSome, atLeastOne } from './support/finding.ts';
import { andReasons, coverageReasons, judgedRuns, type RevocationEvidence } from './support/revocation-evidence.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { RotationPhase } from '../catalogue/reasons/revocation.ts';
import type { Finding } from '../catalogue/types.ts';

/** One edge in one phase: admitted (its probe), or why not. */
type Judgement =
  | { readonly kind: 'ok'; readonly probe: ProbeRecord }
  | { readonly kind: 'rejected' | 'open'; readonly probe: ProbeRecord | null; readonly reason: Reason };

const PHASE: Readonly<Record<RotationPhase, 'successor-before' | 'successor-after'>> = {
  'before-revoke': 'successor-before',
  'after-revoke': 'successor-after',
};

function judgeEdge(run: RevocationProbeRun, edge: string, phase: RotationPhase): Judgement {
  const probes = run.probes.filter((p) => p.edge === edge && p.phase === PHASE[phase]);
  const admitted = probes.find((p) => isAdmittedStatus(p.status));
  if (admitted) return { kind: 'ok', probe: admitted };
  const where = { edge, trial: run.trial, phase };
  const last = probes.at(-1) ?? null;
  if (!last) return { kind: 'open', probe: null, reason: because('successor-not-probed', where) };
  if (last.status === null || last.status === TOO_MANY_REQUESTS) {
    const outcome = last.status === null ? (last.error ?? 'no response') : String(last.status);
    return {
      kind: 'open',
      probe: last,
      reason: because('successor-probe-unusable', { ...where, outcome, probeId: last.id }),
    };
  }
  return {
    kind: 'rejected',
    probe: last,
    reason: because('successor-rejected', { ...where, status: last.status, probeId: last.id }),
  };
}

const reasonsOf = (judgements: readonly Judgement[]): Reason[] =>
  judgements.flatMap((j) => (j.kind === 'ok' ? [] : [j.reason]));

export function rotationVerdict(e: RevocationEvidence): Finding {
  const expected = `a second key of the same org is admitted on every edge before and after the old key is revoked, in each of ${countOf(e.plannedTrials, 'trial')}`;
  const judged = new Set(judgedRuns(e.runs));
  const noSuccessor: Reason[] = [];
  const all: Judgement[] = [];
  for (const run of e.runs) {
    if (run.successorKey === null) {
      noSuccessor.push(because('no-successor-key', { trial: run.trial, provisionError: run.successorError }));
      continue;
    }
    for (const edge of run.edges) all.push(judgeEdge(run, edge, 'before-revoke'));
    if (judged.has(run)) for (const edge of run.edges) all.push(judgeEdge(run, edge, 'after-revoke'));
  }
  const gaps = [...noSuccessor, ...coverageReasons(e)];
  const rejected = all.filter((j) => j.kind === 'rejected');
  if (rejected.length > 0) {
    return finding('fail', {
      expected,
      actual: listSome(reasonsOf(rejected).map(reasonText)),
      evidence: rejected.slice(0, 5).map((j) => j.probe?.id),
      reasons: atLeastOne([...reasonsOf(rejected), ...gaps]),
    });
  }
  const open = all.filter((j) => j.kind === 'open');
  const ok = all.filter((j) => j.kind === 'ok');
  if (ok.length === 0 || open.length > 0 || gaps.length > 0) {
    const reasons = [...reasonsOf(open), ...gaps];
    return finding('inconclusive', {
      expected,
      actual: `the new key admitted in ${ok.length} of ${countOf(all.length, 'edge check')}${andReasons(reasons, 3)}`,
      evidence: open.slice(0, 5).map((j) => j.probe?.id),
      reasons: atLeastOne(reasons),
    });
  }
  return finding('pass', {
    expected,
    actual: `the new key was admitted on every edge before and after each revocation (${countOf(ok.length, 'edge check')})`,
    evidence: ok.slice(0, 6).map((j) => j.probe?.id),
  });
}
