/**
 * The requirement matrix: checks × tiers, each cell the worst verdict among the check's results for
 * that tier (a check may have several, e.g. variants 'sequential' and 'burst'). Shared by the HTML
 * report and the terminal summary.
 */
import { CHECK_IDS, type CheckResult, type Verdict } from '../catalogue/types.ts';
import type { RunResults } from '../results/types.ts';

/** Worst first: a fail outranks everything; a check not run (skipped) outranks a pass. */
export const VERDICT_SEVERITY: Readonly<Record<Verdict, number>> = { fail: 3, inconclusive: 2, skipped: 1, pass: 0 };

export function worstResult(results: readonly CheckResult[]): CheckResult | null {
  let worst: CheckResult | null = null;
  for (const r of results) if (!worst || VERDICT_SEVERITY[r.verdict] > VERDICT_SEVERITY[worst.verdict]) worst = r;
  return worst;
}

export function worstVerdict(verdicts: Iterable<Verdict>): Verdict | null {
  let worst: Verdict | null = null;
  for (const v of verdicts) if (worst === null || VERDICT_SEVERITY[v] > VERDICT_SEVERITY[worst]) worst = v;
  return worst;
}

/** Column key of a result: its tier, or 'all' for checks that are not per tier. */
export type ColumnKey = string;
export const columnOf = (result: Pick<CheckResult, 'tier'>): ColumnKey => result.tier ?? 'all';

/** A stable, URL-safe anchor for one result. */
export function resultAnchor(result: Pick<CheckResult, 'id' | 'tier' | 'variant'>): string {
  const parts = [result.id, result.tier ?? 'all', result.variant].filter((p) => p !== '');
  return `r-${parts.join('-').replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export const checkAnchor = (id: string): string => `check-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export interface MatrixCell {
  readonly column: ColumnKey;
  /** The deciding (worst) result, or null when the check did not run for this column. */
  readonly worst: CheckResult | null;
  readonly results: readonly CheckResult[];
}

export interface MatrixRow {
  readonly id: string;
  readonly title: string;
  readonly spec: string;
  readonly cells: readonly MatrixCell[];
}

export interface Matrix {
  readonly columns: readonly ColumnKey[];
  readonly rows: readonly MatrixRow[];
}

/** Checks in catalogue order (unknown IDs after), columns in the run's tier order, then 'all'. */
export function buildMatrix(results: Pick<RunResults, 'tiers' | 'checks'>): Matrix {
  const columns: ColumnKey[] = [...results.tiers];
  for (const r of results.checks) if (!columns.includes(columnOf(r))) columns.push(columnOf(r));
  const order = new Map<string, number>(CHECK_IDS.map((id, i) => [id, i]));
  const ids = [...new Set(results.checks.map((r) => r.id))].sort(
    (a, b) => (order.get(a) ?? 999) - (order.get(b) ?? 999) || a.localeCompare(b),
  );
  const rows = ids.map((id) => {
    const mine = results.checks.filter((r) => r.id === id);
    const first = mine[0];
    return {
      id,
      title: first?.title ?? id,
      spec: first?.spec ?? '',
      cells: columns.map((column) => {
        const inCell = mine.filter((r) => columnOf(r) === column);
        return { column, worst: worstResult(inCell), results: inCell };
      }),
    };
  });
  return { columns, rows };
}
