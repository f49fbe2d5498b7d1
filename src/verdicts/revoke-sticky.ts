/**
 * REVOKE-STICKY (§5.9): once an edge rejects a revoked key, it never admits it again. An admission
 * fails only where it surely came after a rejection: sent (in the dense loop or as the final probe)
 * after the edge's first rejection was answered. One sent while that rejection was in flight may have
 * been decided before it, its answers crossing ours, and proves nothing (support/revocation-bounds.ts
 * gives the argument). Pass needs every judged trial to have watched every edge for the settle period
 * after it rejected. Pure.
 */
import { edgeBounds, readmittedAfter } from './support/revocation-bounds.ts';
import type { ProbeRecord } from '../measure/revocation-records.ts';
import { countOf, finding, listSome, atLeastOne } from './support/finding.ts';
import { coverageReasons, judgedRuns, type RevocationEvidence } from './support/revocation-evidence.ts';
import { ms } from '../util/duration.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { Finding } from '../catalogue/types.ts';

export interface Readmission {
  readonly trial: number;
  readonly edge: string;
  readonly probe: ProbeRecord;
  readonly firstRejection: ProbeRecord;
  /** ms from the revoke call to the admitting probe's send. */
  readonly afterRevokeMs: number;
  /** ms from the first rejection's arrival to the admitting probe's send. */
  readonly afterRejectionMs: number;
}

export function readmissions(e: RevocationEvidence): Readmission[] {
  const found: Readmission[] = [];
  for (const run of judgedRuns(e.runs)) {
    for (const b of edgeBounds(run, e.rejectStatus)) {
      const first = b.firstRejected;
      if (!first) continue;
      const later = run.probes
        .filter((p) => p.edge === b.edge && (p.phase === 'probe' || p.phase === 'final') && readmittedAfter(p, first))
        .sort((x, y) => x.sentAt - y.sentAt);
      for (const probe of later) {
        found.push({
          trial: run.trial,
          edge: b.edge,
          probe,
          firstRejection: first,
          afterRevokeMs: probe.sentAt - run.revokeStartedAt!,
          afterRejectionMs: probe.sentAt - first.headersAt!,
        });
      }
    }
  }
  return found;
}

/** `data` of REVOKE-STICKY: how long every edge was watched once all had rejected, and every probe an edge admitted after it had rejected the key. */
export type StickyData = {
  readonly settleMs: number;
  readonly readmissions: readonly {
    readonly trial: number;
    readonly edge: string;
    readonly edgeNode: string | null;
    readonly probeId: number;
    readonly status: number | null;
    readonly afterRevokeMs: number;
    readonly afterRejectionMs: number;
  }[];
};

export function revokeStickyVerdict(e: RevocationEvidence): Finding<StickyData> {
  const settleMs = e.runs[0]?.settleMs ?? 0;
  const expected = `no edge admits the key again once it has rejected it (watched for ${ms(settleMs)} after every edge rejected)`;
  const again = readmissions(e);
  const data: StickyData = {
    settleMs,
    readmissions: again.map((r) => ({
      trial: r.trial,
      edge: r.edge,
      edgeNode: r.probe.edgeNode,
      probeId: r.probe.id,
      status: r.probe.status,
      afterRevokeMs: Math.round(r.afterRevokeMs),
      afterRejectionMs: Math.round(r.afterRejectionMs),
    })),
  };
  if (again.length > 0) {
    // One line per edge and trial: the first re-admission, and how many followed.
    const firsts = again.filter((r, i) => again.findIndex((x) => x.trial === r.trial && x.edge === r.edge) === i);
    const reasons = firsts.map((r) =>
      because('readmitted-after-rejection', {
        edge: r.edge,
        trial: r.trial,
        status: r.probe.status!,
        probeId: r.probe.id,
        rejectionProbeId: r.firstRejection.id,
        afterRevokeMs: Math.round(r.afterRevokeMs),
        afterRejectionMs: Math.round(r.afterRejectionMs),
        admissions: again.filter((x) => x.trial === r.trial && x.edge === r.edge).length,
      }),
    );
    return finding('fail', {
      expected,
      actual: listSome(reasons.map(reasonText)),
      evidence: firsts.slice(0, 5).flatMap((r) => [r.firstRejection.id, r.probe.id]),
      reasons: atLeastOne([...reasons, ...coverageReasons(e)]),
      data,
    });
  }
  const gaps = coverageReasons(e);
  const judged = judgedRuns(e.runs);
  const unwatched = judged.flatMap((run): Reason[] => {
    if (run.stoppedBy === 'max-time')
      return [because('probing-hit-time-bound', { trial: run.trial, maxMs: run.maxMs })];
    return edgeBounds(run, e.rejectStatus)
      .filter((b) => b.firstRejected === null)
      .map((b) => because('edge-never-rejected', { edge: b.edge, trial: run.trial }));
  });
  if (judged.length === 0 || gaps.length > 0 || unwatched.length > 0) {
    const reasons = [...unwatched, ...gaps];
    return finding('inconclusive', {
      expected,
      actual: `no re-admission seen, but ${listSome(reasons.map(reasonText), 3)}`,
      reasons: atLeastOne(reasons),
      data,
    });
  }
  const probes = judged.reduce(
    (n, run) => n + run.probes.filter((p) => p.phase === 'probe' || p.phase === 'final').length,
    0,
  );
  return finding('pass', {
    expected,
    actual: `no edge admitted the key after rejecting it, in ${countOf(judged.length, 'trial')} (${probes} probes)`,
    evidence: judged.slice(0, 3).flatMap((run) => run.probes.filter((p) => p.phase === 'final').map((p) => p.id)),
    data,
  });
}
