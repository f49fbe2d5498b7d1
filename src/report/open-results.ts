/**
 * The report's "What to do" section: one entry per result that did not pass, worst first, each a
 * unit of its own (the template's OPEN_RESULT partial renders it) that links to its evidence.
 */
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import { reasonDefinition, whyLines, type ReasonCode } from '../catalogue/reasons/index.ts';
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
  /** Per reason code, what it means and what to change (`tiergate explain CODE`, docs/troubleshooting.md). */
  readonly advice: readonly AdviceView[];
}

/** A reason code's advice, its `code spans` split out so the template renders them as code. */
export interface AdviceView {
  readonly code: ReasonCode;
  readonly means: readonly TextPart[];
  readonly change: readonly (readonly TextPart[])[];
}

export interface TextPart {
  readonly text: string;
  readonly code: boolean;
}

/** "set `window` longer" as text and code parts: every other backtick-delimited part is code. */
const textParts = (text: string): TextPart[] =>
  text
    .split('`')
    .map((part, i) => ({ text: part, code: i % 2 === 1 }))
    .filter((p) => p.text !== '');

function adviceOf(result: CheckResult): AdviceView[] {
  const codes = [...new Set(result.reasons.map((r) => r.code))];
  return codes.map((code) => {
    const d = reasonDefinition(code);
    return { code, means: textParts(d.means), change: d.change.map(textParts) };
  });
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
    advice: adviceOf(result),
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
