/**
 * The end-of-run summary the terminal prints: how the server limits (its limiter profiles), the
 * requirement matrix as a table (check × tier, the worst verdict per cell, `+n` when a cell holds
 * several variants), the counts, what needs attention, the gate verdict and the report's path.
 * Pure: results in, text out; colour only when asked.
 */
import { isAbsolute, join, relative } from 'node:path';
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import type { RunResults } from '../results/types.ts';
import { buildMatrix, type MatrixCell } from './matrix.ts';
import { plain, VERDICT_LABEL, VERDICT_SYMBOL, type Paint, type Style } from './palette.ts';
import { formatProfile } from './profile-text.ts';
import { declaredLimitsText } from './declared-limits.ts';
import { declaredDialectText } from './header-dialect.ts';
import { redactKeys } from '../contract/keys.ts';
import { whyLines } from '../catalogue/reasons/index.ts';

/** Lines of "needs attention" printed before pointing at the report for the rest. */
const ATTENTION_SHOWN = 12;

export const VERDICT_STYLE: Readonly<Record<Verdict, Style>> = {
  pass: 'green',
  fail: 'red',
  inconclusive: 'yellow',
  skipped: 'dim',
};

/** `✗ fail`, padded to `width` before it is painted (so columns line up with or without colour). */
export const verdictWord = (verdict: Verdict, paint: Paint, width = 0): string =>
  paint(VERDICT_STYLE[verdict], `${VERDICT_SYMBOL[verdict]} ${VERDICT_LABEL[verdict]}`.padEnd(width));

/** `QUOTA-READ [starter] sequential`. */
export const resultLabel = (r: Pick<CheckResult, 'id' | 'tier' | 'variant'>): string =>
  `${r.id} [${r.tier ?? 'all'}]${r.variant ? ` ${r.variant}` : ''}`;

/** Pads by the text's visible width (styles added after padding). */
const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length));

/** The path as a reader would type it: relative to `cwd` when inside it. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** A matrix cell in words: its worst verdict, `+n` when it holds several variants; `—` when the check did not run there. */
export const cellText = (cell: MatrixCell): string =>
  cell.worst
    ? `${verdictWord(cell.worst.verdict, plain)}${cell.results.length > 1 ? ` +${cell.results.length - 1}` : ''}`
    : '—';

export function matrixTable(results: Pick<RunResults, 'tiers' | 'checks'>, paint: Paint): string[] {
  const matrix = buildMatrix(results);
  const rows = matrix.rows.map((row) => ({
    id: row.id,
    cells: row.cells.map((c) => ({ text: cellText(c), verdict: c.worst?.verdict ?? null })),
  }));
  const first = Math.max('check'.length, ...rows.map((r) => r.id.length)) + 2;
  const widths = matrix.columns.map(
    (col, i) => Math.max(col.length, ...rows.map((r) => [...(r.cells[i]?.text ?? '')].length)) + 2,
  );
  const header = pad('check', first) + matrix.columns.map((c, i) => pad(c, widths[i] ?? 0)).join('');
  const lines = [paint('bold', header.trimEnd())];
  for (const row of rows) {
    const cells = row.cells.map((c, i) => {
      const padded = pad(c.text, widths[i] ?? 0);
      return c.verdict ? paint(VERDICT_STYLE[c.verdict], padded) : paint('dim', padded);
    });
    lines.push(`${pad(row.id, first)}${cells.join('')}`.trimEnd());
  }
  return lines;
}

/** What a reader must look at: the failures, then the inconclusive results. */
export const needsAttention = (checks: readonly CheckResult[]): CheckResult[] => [
  ...checks.filter((r) => r.verdict === 'fail'),
  ...checks.filter((r) => r.verdict === 'inconclusive'),
];

function attention(checks: readonly CheckResult[], paint: Paint): string[] {
  const bad = needsAttention(checks);
  if (bad.length === 0) return [];
  const lines = ['', paint('bold', 'Needs attention')];
  for (const r of bad.slice(0, ATTENTION_SHOWN)) {
    lines.push(`  ${verdictWord(r.verdict, paint, 14)} ${resultLabel(r)}`);
    lines.push(`      expected ${r.expected}`);
    lines.push(`      actual   ${r.actual}`);
    const why = whyLines(r)[0];
    if (r.verdict === 'inconclusive' && why) lines.push(`      why      ${why}`);
    const codes = [...new Set(r.reasons.map((reason) => reason.code))];
    if (codes.length > 0) lines.push(`      next     ${codes.map((c) => `tiergate explain ${c}`).join('; ')}`);
  }
  if (bad.length > ATTENTION_SHOWN) lines.push(`  … ${bad.length - ATTENTION_SHOWN} more in the report`);
  return lines;
}

/** The figures the config declared, when it declared any: what the quota checks were held to. */
function declaredLine(results: RunResults, paint: Paint): string[] {
  const text = declaredLimitsText(results.declaredLimits);
  return text === null ? [] : [`${paint('bold', 'Declared limits, judged exactly:')} ${text}`, ''];
}

/** The header dialect judged, where a declaration departs from §8's names. */
function dialectLine(results: RunResults, paint: Paint): string[] {
  const text = declaredDialectText(results.headers);
  return text === null ? [] : [`${paint('bold', 'Rate-limit headers:')} ${text}`, ''];
}

/** The gate's verdict in words, after its symbol. */
export const GATE_WORD: Readonly<Record<RunResults['verdict'], string>> = {
  pass: 'PASS: every check that ran passed',
  fail: 'FAIL: the build must not ship',
  inconclusive: 'INCONCLUSIVE: nothing failed, but not everything was decided; not a pass',
};

/** The whole summary, ending with a newline; every full key redacted. */
export function terminalSummary(
  results: RunResults,
  reportDir: string,
  options: { paint: Paint; cwd: string },
): string {
  const { paint } = options;
  const c = results.counts;
  const lines = [
    '',
    paint(
      'bold',
      `tiergate ${results.runId}: ${results.checks.length} results across ${results.tiers.join(', ') || 'no tiers'}`,
    ),
    '',
    ...dialectLine(results, paint),
    ...results.profiles.flatMap((profile) => [formatProfile(profile, { paint }), '']),
    ...declaredLine(results, paint),
    ...matrixTable(results, paint),
    '',
    `${paint('green', `${c.pass} pass`)} · ${paint('red', `${c.fail} fail`)} · ${paint('yellow', `${c.inconclusive} inconclusive`)} · ${paint('dim', `${c.skipped} skipped`)}`,
    ...attention(results.checks, paint),
    '',
    `${paint('bold', 'Gate:')} ${paint(results.verdict === 'pass' ? 'green' : results.verdict === 'fail' ? 'red' : 'yellow', `${VERDICT_SYMBOL[results.verdict]} ${GATE_WORD[results.verdict]}`)}${results.interrupted ? paint('yellow', ' (interrupted: only what finished is reported)') : ''}`,
    `${paint('bold', 'Report:')} ${displayPath(join(reportDir, 'index.html'), options.cwd)}`,
    '',
  ];
  return redactKeys(lines.join('\n'));
}
