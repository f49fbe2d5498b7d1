/**
 * REVOKE-LATENCY (§5.9, §8.3): a revoked key stops working on every edge in under 3 s. Per edge and
 * trial the driver brackets the moment the edge began rejecting (src/verdicts/support/revocation-bounds.ts),
 * counted from when the revoke call was sent. Pass only if every upper bound is under the SLA: the
 * server received the call after we sent it, so the true latency is shorter still. Fail only if a
 * lower bound is past the SLA by the revoke call's own duration too (the edge still admitted the key
 * then, counted from when the server had surely received the call, whatever the split of its round
 * trip); otherwise inconclusive. Only trials whose revoke call returned are judged; a failed hook
 * makes the verdict inconclusive, with its output. Pure.
 */
import { edgeBounds, type EdgeBounds } from './support/revocation-bounds.ts';
import { countOf, finding, listSome, atLeastOne } from './support/finding.ts';
import { andReasons, coverageReasons, judgedRuns, type RevocationEvidence } from './support/revocation-evidence.ts';
import { ms } from '../util/duration.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { clockNote, pacingNotes, trialsAtOnceNotes, type TrialsAtOnce } from './support/revocation-method.ts';
import { boundStats, statsPerEdge, type BoundStats, type EdgeStats } from './support/revocation-stats.ts';
import type { Finding } from '../catalogue/types.ts';
import type { ProbeStop, RevocationProbeRun } from '../measure/revocation-records.ts';
import { clopperPearsonLower, quantileBoundedByMax, trialsToBound, trialsToProve } from './support/confidence.ts';
import { DEFAULT_TARGET_LEVEL, targetText, type ConfidenceTarget } from '../config/confidence-target.ts';
import {
  placeVantage,
  serverOffsets,
  seenFrom,
  vantageBounds,
  vantageEdges,
  type Placement,
  type VantagePoint,
  type Vantages,
} from './support/vantage-bounds.ts';

/** One row per trial and edge, as the chart and revocation.csv read it: the bounds, rounded to 0.1 ms. */
export type LatencyRow = Pick<
  EdgeBounds,
  'trial' | 'edge' | 'edgeNode' | 'lowerMs' | 'upperMs' | 'widthMs' | 'unusableProbes' | 'revokeCallMs'
>;

/** `data` of REVOKE-LATENCY: the SLA, every bracket (the report's charts), the figures per edge and overall, the trials not judged. */
export type LatencyData = {
  readonly slaMs: number;
  /** Trials the task meant to run: the expectation is every edge within the SLA in each. */
  readonly plannedTrials: number;
  readonly intervalMs: number | null;
  readonly trials: readonly LatencyRow[];
  readonly edges: readonly EdgeStats[];
  readonly overall: BoundStats;
  readonly unjudged: readonly {
    readonly trial: number;
    readonly stoppedBy: ProbeStop;
    readonly revokeError: string | null;
  }[];
  readonly skippedSlots: number;
  /** How many trials ran at once, of how many asked, and what held them to it; null: not recorded. */
  readonly parallel: TrialsAtOnce | null;
  /** What the judged trials prove (verdicts/support/confidence.ts); null where none was judged. */
  readonly confidence: RevocationConfidence | null;
  /** With vantage points: where each one's clock stood against the run's. */
  readonly vantages?: readonly VantagePlacement[];
};

/** Of `trials` judged, `within` took effect on every edge under the SLA; the bounds they give at `level`. */
export type RevocationConfidence = {
  readonly trials: number;
  readonly within: number;
  readonly level: number;
  /** One-sided lower bound on the share of revocations in effect everywhere within the SLA (Clopper–Pearson). */
  readonly lowerBound: number;
  /** The quantile of revocation latency the slowest trial bounds from above. */
  readonly maxBoundsQuantile: number;
  /** The target asked for (at `level`), the trials proving it takes none slower, and whether the bound reached it; null: none asked. */
  readonly target: { readonly share: number; readonly trialsNeeded: number; readonly reached: boolean } | null;
};

/** The level a statement is at where no target names one. */
const LEVEL = DEFAULT_TARGET_LEVEL;

/** A trial is within when every edge's upper bound is under the SLA; one straddling it is not. */
function revocationConfidence(
  bounds: readonly EdgeBounds[],
  trials: readonly number[],
  slaMs: number,
  target: ConfidenceTarget | null,
): RevocationConfidence | null {
  if (trials.length === 0) return null;
  const within = trials.filter((t) => {
    const own = bounds.filter((b) => b.trial === t);
    return own.length > 0 && own.every((b) => b.upperMs !== null && b.upperMs < slaMs);
  }).length;
  const level = target?.level ?? LEVEL;
  const lowerBound = clopperPearsonLower(within, trials.length, level);
  return {
    trials: trials.length,
    within,
    level,
    lowerBound,
    maxBoundsQuantile: quantileBoundedByMax(trials.length, level),
    target: target
      ? { share: target.share, trialsNeeded: trialsToProve(target), reached: lowerBound >= target.share }
      : null,
  };
}

/** The confidence statement, in words an auditor can check against the method. */
export function confidenceText(c: RevocationConfidence, slaMs: number): string {
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  const level = `${Math.round(c.level * 100)} %`;
  return (
    `${c.within} of ${countOf(c.trials, 'trial')} took effect on every edge within ${ms(slaMs)} (a bound straddling it counts as not within): ` +
    `at ${level} confidence (one-sided, Clopper–Pearson), at least ${pct(c.lowerBound)} of revocations do; ` +
    `the slowest trial is a ${level} upper bound for about the ${Math.floor(c.maxBoundsQuantile * 100)}th percentile ` +
    `(bounding p95 takes ${trialsToBound(0.95, c.level)} trials, p99 ${trialsToBound(0.99, c.level)}, none slower). ` +
    'Trials are taken as independent; run several at once, they share the edges and the revocation system, so a common slowdown hits them together' +
    (c.target?.reached ? `. ${targetReachedText(c, slaMs)}` : '')
  );
}

/** The target proven, and by what bound; one not reached is a reason (`targetMissed`). */
function targetReachedText(c: RevocationConfidence, slaMs: number): string {
  const asked = targetText({ share: c.target!.share, level: c.level }, ms(slaMs));
  return `Target ${asked}: reached (the bound is ${(c.lowerBound * 100).toFixed(2)} %)`;
}

/** The target asked for and not reached, and what proving it takes. */
function targetMissed(c: RevocationConfidence, slaMs: number): Reason {
  const target = c.target!;
  return because('confidence-target-not-reached', {
    share: target.share,
    level: c.level,
    slaMs,
    lowerBound: c.lowerBound,
    trialsNeeded: target.trialsNeeded,
  });
}

const r1 = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

export function latencyRow(b: EdgeBounds): LatencyRow {
  return {
    trial: b.trial,
    edge: b.edge,
    edgeNode: b.edgeNode,
    lowerMs: r1(b.lowerMs),
    upperMs: r1(b.upperMs),
    widthMs: r1(b.widthMs),
    unusableProbes: b.unusableProbes,
    revokeCallMs: r1(b.revokeCallMs),
  };
}

/** A vantage point with where its clock stands against the run's. */
type PlacedPoint = { readonly point: VantagePoint; readonly placement: Placement };

/** The judged brackets of every trial: the run's own, and with vantage points each placed one's, every edge named with where it was seen from. */
function judgedBounds(e: RevocationEvidence, placed: readonly PlacedPoint[]): EdgeBounds[] {
  const runs = judgedRuns(e.runs);
  const own = runs.flatMap((run) => edgeBounds(run, e.rejectStatus));
  if (!e.vantages) return own;
  const run = e.vantages.run;
  return [
    ...own.map((b) => ({ ...b, edge: seenFrom(run, b.edge) })),
    ...runs.flatMap((trial) =>
      placed.flatMap(({ point, placement }) =>
        placement.offset ? vantageBounds(trial, point, placement.offset, e.rejectStatus) : [],
      ),
    ),
  ];
}

/** Each vantage point with where its clock stands against the run's. */
function placements(v: Vantages): PlacedPoint[] {
  const run = serverOffsets(v.runProbes, v.dateLagMs);
  return v.points.map((point) => ({ point, placement: placeVantage(run, point, v.dateLagMs) }));
}

/** Where a vantage's clock stood against the run's (run = vantage + offset), as data: null where it could not be placed. */
export type VantagePlacement = {
  readonly vantage: string;
  readonly offsetMs: number | null;
  readonly uncertaintyMs: number | null;
  readonly edges: readonly string[];
  readonly probes: number;
};

/** How each vantage's clock was placed, or why it could not be (a gap: its view is missing). */
function vantageNotes(
  v: Vantages,
  points: readonly PlacedPoint[],
): { readonly notes: string[]; readonly gaps: Reason[]; readonly placed: VantagePlacement[] } {
  const notes: string[] = [
    `seen from ${countOf(v.points.length + 1, 'vantage point')} (${[v.run, ...v.points.map((p) => p.name)].join(', ')}); a vantage's clock is set against the run's through the Date headers of the servers (edge, and node where named) both reached (one-second ticks, their edges found by the probes on either side), allowing Date to lag its server's clock by up to ${ms(v.dateLagMs)}; its brackets widen by what that leaves uncertain`,
  ];
  const gaps: Reason[] = [];
  const placed: VantagePlacement[] = [];
  for (const { point, placement } of points) {
    const o = placement.offset;
    const offsetMs = o === null ? null : Math.round((o.low + o.high) / 2);
    const uncertaintyMs = o === null ? null : Math.ceil((o.high - o.low) / 2);
    placed.push({
      vantage: point.name,
      offsetMs,
      uncertaintyMs,
      edges: vantageEdges(point),
      probes: point.probes.length,
    });
    if (placement.reason) gaps.push(placement.reason);
    if (offsetMs === null || uncertaintyMs === null) continue;
    const where = offsetMs === 0 ? 'level with' : `${ms(Math.abs(offsetMs))} ${offsetMs > 0 ? 'behind' : 'ahead of'}`;
    notes.push(
      `vantage ${point.name}: ${countOf(point.probes.length, 'probe')} on ${vantageEdges(point).join(', ')}; its clock is ${where} the run's, ±${ms(uncertaintyMs)} (placed through ${placement.servers.join(', ')})`,
    );
  }
  return { notes, gaps, placed };
}

const perEdgeCount = (bounds: readonly EdgeBounds[]) => new Set(bounds.map((b) => b.edge)).size;

/** The result's data: the SLA, every bracket, the figures per edge and overall, the trials not judged, the confidence. */
function latencyData(
  e: RevocationEvidence,
  bounds: readonly EdgeBounds[],
  judged: readonly RevocationProbeRun[],
  placed: readonly VantagePlacement[],
): LatencyData {
  const overall = boundStats(bounds, e.slaMs);
  const perEdge = statsPerEdge(bounds, e.slaMs);
  return {
    slaMs: e.slaMs,
    plannedTrials: e.plannedTrials,
    intervalMs: e.runs[0]?.intervalMs ?? null,
    trials: bounds.map(latencyRow),
    edges: perEdge,
    overall,
    unjudged: e.runs
      .filter((r) => !judged.includes(r))
      .map((r) => ({ trial: r.trial, stoppedBy: r.stoppedBy, revokeError: r.revokeError })),
    skippedSlots: e.runs.reduce((n, r) => n + r.skippedSlots, 0),
    parallel: e.parallel ?? null,
    confidence: revocationConfidence(
      bounds,
      judged.map((r) => r.trial),
      e.slaMs,
      e.target ?? null,
    ),
    ...(e.vantages ? { vantages: placed } : {}),
  };
}

/** What every REVOKE-LATENCY outcome is written from. */
interface LatencyCase {
  readonly e: RevocationEvidence;
  readonly expected: string;
  readonly notes: readonly string[];
  readonly data: LatencyData;
  /** What the evidence does not cover: trials missing or not judged, problems, vantage points not placed. */
  readonly gaps: readonly Reason[];
  /** What every outcome rests on: probes that narrowed no bracket. */
  readonly restsOn: readonly Reason[];
}

/**
 * The edge still admitted the key the SLA after the server had surely received the revoke call: a
 * probe it admitted was sent past the SLA from the call's send by the call's own duration, within
 * which the server received it (whatever came before that probe: support/revocation-bounds.ts).
 */
function surelyLate(b: EdgeBounds, slaMs: number): boolean {
  return b.workedUntilMs !== null && b.revokeCallMs !== null && b.workedUntilMs - b.revokeCallMs >= slaMs;
}

/** A fail naming every edge that still admitted the key the SLA after the revoke call had surely arrived, slowest first. */
function failLate(c: LatencyCase, late: readonly EdgeBounds[]): Finding<LatencyData> {
  const { e } = c;
  const sorted = [...late].sort((a, b) => b.workedUntilMs! - a.workedUntilMs!);
  const reasons = sorted.map((b) =>
    because('still-admitted-past-sla', {
      edge: b.edge,
      node: b.latestAdmitted?.edgeNode ?? b.edgeNode,
      trial: b.trial,
      probeId: b.latestAdmitted!.id,
      admittedMs: r1(b.workedUntilMs!)!,
      afterReturnMs: r1(b.workedUntilMs! - b.revokeCallMs!)!,
      rejectedByMs: r1(b.upperMs),
      slaMs: e.slaMs,
    }),
  );
  const slowEdges = [...new Set(late.map((b) => b.edge))].sort();
  return finding('fail', {
    expected: c.expected,
    actual: `${slowEdges.join(', ')} over ${ms(e.slaMs)}: ${listSome(reasons.map(reasonText))}`,
    evidence: sorted.slice(0, 5).flatMap((b) => [b.latestAdmitted?.id, b.firstRejected?.id]),
    notes: c.notes,
    reasons: atLeastOne([...reasons, ...c.gaps, ...c.restsOn]),
    data: c.data,
  });
}

/** Why a bracket leaves the SLA open: no rejection, a bracket straddling it, or a late admission within the revoke call's own time. */
function openReason(b: EdgeBounds, slaMs: number): Reason {
  const lower = b.lowerMs ?? 0;
  const edge = { edge: b.edge, node: b.edgeNode, trial: b.trial };
  if (b.upperMs === null)
    return because('no-rejection-seen', { ...edge, lastAdmittedMs: r1(lower)!, unusableProbes: b.unusableProbes });
  const upperMs = r1(b.upperMs)!;
  if (lower < slaMs) return because('bracket-straddles-sla', { ...edge, lowerMs: r1(lower)!, upperMs, slaMs });
  return because('admitted-within-call-time', {
    ...edge,
    admittedMs: r1(lower)!,
    revokeCallMs: r1(b.revokeCallMs ?? 0)!,
    upperMs,
    slaMs,
  });
}

/** Inconclusive: brackets open or straddling the SLA, or gaps in what was covered. */
function inconclusiveOpen(c: LatencyCase, open: readonly EdgeBounds[], judgedTrials: number): Finding<LatencyData> {
  const { gaps } = c;
  const openReasons = open.map((b) => openReason(b, c.e.slaMs));
  const summary = judgedTrials === 0 ? 'no trial could be judged' : `${countOf(judgedTrials, 'trial')} judged`;
  return finding('inconclusive', {
    expected: c.expected,
    actual: `${summary}${andReasons(openReasons, 3)}${andReasons(gaps, 2)}`,
    evidence: open.slice(0, 5).flatMap((b) => [b.lastAdmitted?.id, b.firstRejected?.id]),
    notes: c.notes,
    reasons: atLeastOne([...openReasons, ...gaps, ...c.restsOn]),
    data: c.data,
  });
}

export function revokeLatencyVerdict(e: RevocationEvidence): Finding<LatencyData> {
  const placed = e.vantages ? placements(e.vantages) : [];
  const bounds = judgedBounds(e, placed);
  const judged = judgedRuns(e.runs);
  const edges = e.vantages ? perEdgeCount(bounds) : (e.runs[0]?.edges.length ?? 0);
  const seen = e.vantages ? vantageNotes(e.vantages, placed) : { notes: [], gaps: [], placed: [] };
  const from = e.vantages ? `, seen from every one of ${countOf(e.vantages.points.length + 1, 'vantage point')}` : '';
  const data = latencyData(e, bounds, judged, seen.placed);
  const expected = `every edge rejects the revoked key < ${ms(data.slaMs)} after the revoke call (upper bound of the bracket)${from}, in each of ${countOf(data.plannedTrials, 'trial')}`;
  const overall = data.overall;
  const notes = [
    ...(e.methodNotes ?? []),
    ...(data.parallel ? trialsAtOnceNotes(data.parallel) : []),
    ...(judged.length > 0 ? [clockNote(judged, e.slaMs)] : []),
    ...pacingNotes(judged),
    ...seen.notes,
  ];
  if (data.confidence) notes.push(confidenceText(data.confidence, e.slaMs));
  const restsOn =
    overall.unusableProbes > 0
      ? [because('unusable-probes', { probes: overall.unusableProbes, rateLimited: overall.rateLimitedProbes })]
      : [];
  const c: LatencyCase = { e, expected, notes, data, gaps: [...coverageReasons(e), ...seen.gaps], restsOn };

  const late = bounds.filter((b) => surelyLate(b, e.slaMs));
  if (late.length > 0) return failLate(c, late);

  const open = bounds.filter((b) => b.upperMs === null || b.upperMs >= e.slaMs);
  if (c.gaps.length > 0 || open.length > 0 || bounds.length === 0) return inconclusiveOpen(c, open, judged.length);

  // Every trial within, and yet the bound short of the target asked for (trials cut short): not proven.
  const target = data.confidence?.target;
  const expectedAll = target
    ? `${expected}; and ${targetText({ share: target.share, level: data.confidence!.level }, ms(data.slaMs))}`
    : expected;
  if (target && !target.reached) {
    const missed = targetMissed(data.confidence!, e.slaMs);
    return finding('inconclusive', {
      expected: expectedAll,
      actual: `every upper bound under ${ms(e.slaMs)} in ${countOf(judged.length, 'trial')}, but ${reasonText(missed)}`,
      evidence: [],
      notes,
      reasons: [missed, ...restsOn],
      data,
    });
  }
  return finding('pass', {
    expected: expectedAll,
    actual:
      `every upper bound under ${ms(e.slaMs)} on ${countOf(edges, e.vantages ? 'vantage point × edge pair' : 'edge')} × ${countOf(judged.length, 'trial')}: ` +
      `p50 ${ms(overall.p50Ms ?? 0)}, p95 ${ms(overall.p95Ms ?? 0)}, max ${ms(overall.maxMs ?? 0)}; median bracket width ${ms(overall.medianWidthMs ?? 0)}`,
    evidence: bounds
      .slice()
      .sort((a, b) => b.upperMs! - a.upperMs!)
      .slice(0, 3)
      .flatMap((b) => [b.lastAdmitted?.id, b.firstRejected?.id]),
    notes,
    reasons: restsOn,
    data,
  });
}
