/**
 * The Markdown summary a GitHub Actions job page shows (`GITHUB_STEP_SUMMARY`): the gate verdict,
 * the requirement matrix (check × tier), what failed or stayed undecided with expected and actual,
 * and where the report is. `stepSummary` is pure; `appendStepSummary` is its one write.
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckResult } from '../catalogue/types.ts';
import { redactKeys } from '../contract/keys.ts';
import type { RunResults } from '../results/types.ts';
import { TiergateError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { buildMatrix } from './matrix.ts';
import { plain, VERDICT_SYMBOL } from './palette.ts';
import { declaredLimitsText } from './declared-limits.ts';
import { declaredDialectText } from './header-dialect.ts';
import { cellText, displayPath, GATE_WORD, needsAttention, resultLabel, verdictWord } from './terminal-summary.ts';
import { whyLines } from '../catalogue/reasons/index.ts';

/** The variable GitHub Actions sets to the file a step appends its summary to. */
export const STEP_SUMMARY_ENV = 'GITHUB_STEP_SUMMARY';

/** Results listed under "Needs attention" before pointing at the report for the rest. */
const ATTENTION_SHOWN = 50;
/** A result's text longer than this is cut: the summary is a digest, the report has it all. */
const TEXT_SHOWN = 400;

export interface StepSummaryTarget {
  /** The file to append to. */
  readonly file: string;
  /** Report paths are shown relative to it (the job's workspace). */
  readonly cwd: string;
}

/** Where this process's summary goes, or null outside GitHub Actions (the variable unset or empty). */
export function stepSummaryTarget(io: Pick<Io, 'env' | 'cwd'>): StepSummaryTarget | null {
  const file = io.env[STEP_SUMMARY_ENV];
  return file ? { file, cwd: io.cwd } : null;
}

/**
 * Text from a result (the target's own answers may be in it) as inert Markdown on one line: keys
 * redacted first (escaping would hide a key from `redactKeys`), cut to length, then every character
 * that could start markup escaped.
 */
function inline(text: string): string {
  const flat = redactKeys(text).replace(/\s*\n\s*/g, ' ');
  const chars = [...flat];
  const cut = chars.length > TEXT_SHOWN ? `${chars.slice(0, TEXT_SHOWN).join('')}…` : flat;
  return cut.replace(/[\\`*_[\]<>|~&]/g, '\\$&');
}

function matrixTable(results: RunResults): string[] {
  const matrix = buildMatrix(results);
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    row(['check', ...matrix.columns]),
    row(['---', ...matrix.columns.map(() => '---')]),
    ...matrix.rows.map((r) => row([r.id, ...r.cells.map(cellText)])),
  ];
}

function attention(checks: readonly CheckResult[]): string[] {
  const bad = needsAttention(checks);
  if (bad.length === 0) return [];
  const lines = ['', '### Needs attention', ''];
  for (const r of bad.slice(0, ATTENTION_SHOWN)) {
    lines.push(`- ${verdictWord(r.verdict, plain)} **${resultLabel(r)}**`);
    lines.push(`  - expected: ${inline(r.expected)}`);
    lines.push(`  - actual: ${inline(r.actual)}`);
    const why = whyLines(r)[0];
    if (r.verdict === 'inconclusive' && why) lines.push(`  - why: ${inline(why)}`);
  }
  if (bad.length > ATTENTION_SHOWN) lines.push(`- … ${bad.length - ATTENTION_SHOWN} more in the report`);
  return lines;
}

function targetText(target: RunResults['target']): string {
  const edges = `${target.edges.length} edge${target.edges.length === 1 ? '' : 's'}`;
  if (target.kind === 'external') return `the deployment (${edges})`;
  const shown = [
    ...target.faults.map((f) => `fault \`${f}\``),
    ...(target.variants ?? []).map((v) => `variant \`${v}\``),
  ];
  return `the embedded reference target (${edges}${shown.length > 0 ? `; ${shown.join(', ')}` : ''})`;
}

/** The figures the config declared, when it declared any: what the quota checks were held to. */
function declaredLine(results: RunResults): string[] {
  const text = declaredLimitsText(results.declaredLimits);
  return text === null ? [] : [`**Declared limits, judged exactly:** ${inline(text)}`, ''];
}

/** The header dialect judged, where a declaration departs from §8's names. */
function dialectLine(results: RunResults): string[] {
  const text = declaredDialectText(results.headers);
  return text === null ? [] : [`**Rate-limit headers:** ${inline(text)}`, ''];
}

/** The summary of one run, ending with a newline; every full key redacted. */
export function stepSummary(results: RunResults, reportDir: string, cwd: string): string {
  const c = results.counts;
  const lines = [
    `## tiergate ${VERDICT_SYMBOL[results.verdict]} ${GATE_WORD[results.verdict]}`,
    '',
    ...(results.interrupted ? ['**Interrupted:** only what finished is reported.', ''] : []),
    `Run \`${results.runId}\` against ${targetText(results.target)}: ${results.tiers.join(', ') || 'no tiers'}; ${results.windowSeconds} s quota windows; ${Math.round(results.durationMs / 1000)} s.`,
    '',
    `**${c.pass} pass** · **${c.fail} fail** · **${c.inconclusive} inconclusive** · **${c.skipped} skipped**`,
    '',
    ...dialectLine(results),
    ...declaredLine(results),
    ...matrixTable(results),
    ...attention(results.checks),
    '',
    `**Report:** \`${displayPath(join(reportDir, 'index.html'), cwd)}\` (results.json and junit.xml beside it)`,
    '',
  ];
  return redactKeys(lines.join('\n'));
}

/** Appends, as GitHub expects: every step of a job, and every run within a step, adds to the file. */
export async function appendStepSummary(target: StepSummaryTarget, markdown: string): Promise<void> {
  try {
    await appendFile(target.file, markdown, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new TiergateError(
      'TG_ENV',
      `${STEP_SUMMARY_ENV}: cannot append to ${target.file} (${code}); unset it or name a writable file`,
    );
  }
}
