/**
 * The figures users hand to auditors (§5.9, §8.3): per edge and overall, p50/p95/p99/max of the
 * upper bound, the share of brackets under the SLA, the median bracket width and the unusable
 * probes. Nearest-rank percentiles over the brackets seen; a bracket with no rejection counts
 * against the share. Pure.
 */
import { percentile, type EdgeBounds } from './revocation-bounds.ts';

export interface BoundStats {
  /** Brackets (trial × edge) judged. */
  readonly brackets: number;
  /** Brackets where a rejection was seen. */
  readonly rejected: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  readonly maxMs: number | null;
  /** Share of brackets whose upper bound is under the SLA, 0..1. */
  readonly shareUnderSla: number | null;
  readonly medianWidthMs: number | null;
  readonly maxWidthMs: number | null;
  readonly unusableProbes: number;
  readonly rateLimitedProbes: number;
}

export interface EdgeStats extends BoundStats {
  readonly edge: string;
  readonly edgeNode: string | null;
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

export function boundStats(rows: readonly EdgeBounds[], slaMs: number): BoundStats {
  const uppers = rows.flatMap((r) => (r.upperMs === null ? [] : [r.upperMs])).sort((a, b) => a - b);
  const widths = rows.flatMap((r) => (r.widthMs === null ? [] : [r.widthMs])).sort((a, b) => a - b);
  return {
    brackets: rows.length,
    rejected: uppers.length,
    p50Ms: round(percentile(uppers, 50)),
    p95Ms: round(percentile(uppers, 95)),
    p99Ms: round(percentile(uppers, 99)),
    maxMs: round(uppers.at(-1) ?? null),
    shareUnderSla: rows.length === 0 ? null : uppers.filter((u) => u < slaMs).length / rows.length,
    medianWidthMs: round(percentile(widths, 50)),
    maxWidthMs: round(widths.at(-1) ?? null),
    unusableProbes: rows.reduce((n, r) => n + r.unusableProbes, 0),
    rateLimitedProbes: rows.reduce((n, r) => n + r.unusable.rateLimited, 0),
  };
}

export function statsPerEdge(rows: readonly EdgeBounds[], slaMs: number): EdgeStats[] {
  const edges = [...new Set(rows.map((r) => r.edge))].sort();
  return edges.map((edge) => {
    const own = rows.filter((r) => r.edge === edge);
    return { edge, edgeNode: own.find((r) => r.edgeNode !== null)?.edgeNode ?? null, ...boundStats(own, slaMs) };
  });
}
