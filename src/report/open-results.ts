/**
 * The report's "What to do" section: one entry per result that did not pass, worst first, each a
 * unit of its own (the template's OPEN_RESULT partial renders it) that links to its evidence.
 */
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import { whyLines } from '../catalogue/reasons/index.ts';
import type { RunResults } from '../results/types.ts';
import { verdictView, type VerdictView } from './details.ts';
import { resultAnchor, VERDICT_SEVERITY } from './matrix.ts';

/** One open result: what it is, where its evidence is, and what it said. */
export interface OpenResultView {
  /** `QUOTA-READ [starter] sequential` */
  readonly name: string;
  readonly href: string;
  readonly verdict: VerdictView;
  /** What was expected and what was seen; null for a result that did not run. */
  readonly expected: string | null;
  readonly actual: string | null;
  /** The first note: why a result stayed open, or why it did not run. */
  readonly note: string | null;
}

export interface OpenResultsView {
  /** Failed, then inconclusive. */
  readonly attention: readonly OpenResultView[];
  /** Not run, each with the reason. */
  readonly skipped: readonly OpenResultView[];
}

const OPEN: ReadonlySet<Verdict> = new Set(['fail', 'inconclusive']);

const resultName = (r: CheckResult): string => `${r.id} [${r.tier ?? 'all'}]${r.variant ? ` ${r.variant}` : ''}`;

function openResultView(result: CheckResult): OpenResultView {
  const ran = result.verdict !== 'skipped';
  return {
    name: resultName(result),
    href: `#${resultAnchor(result)}`,
    verdict: verdictView(result.verdict),
    expected: ran ? result.expected : null,
    actual: ran ? result.actual : null,
    note: whyLines(result)[0] ?? (ran ? null : 'no reason given'),
  };
}

/** Every result that did not pass, as entries; null when every result passed. */
export function openResults(results: Pick<RunResults, 'checks'>): OpenResultsView | null {
  const attention = results.checks
    .filter((r) => OPEN.has(r.verdict))
    .sort((a, b) => VERDICT_SEVERITY[b.verdict] - VERDICT_SEVERITY[a.verdict])
    .map(openResultView);
  const skipped = results.checks.filter((r) => r.verdict === 'skipped').map(openResultView);
  return attention.length + skipped.length > 0 ? { attention, skipped } : null;
}
