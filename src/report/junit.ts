/**
 * junit.xml: one testcase per check, tier and variant, one testsuite per tier (classname
 * `tiergate.<tier>`), so CI systems show failures, skips and inconclusive checks natively.
 *
 * Verdicts map onto JUnit's three outcomes other than success:
 * - fail → `<failure type="<check id>">`: the target broke the requirement; message "expected …; actual …".
 * - inconclusive → `<error type="inconclusive">`, message "inconclusive: <why>; expected …; actual …".
 *   JUnit's error means "the test could not reach a verdict", which is exactly inconclusive: CI systems
 *   show it red, never green (skipped would read as harmless, and inconclusive is never reported as a
 *   pass: README "Exit codes"), yet it is counted apart from the target's failures.
 * - skipped → `<skipped message="<reason>">`: the check could not run here (no key hook, and so on).
 * Every testcase also carries a `verdict` property with the tiergate verdict itself.
 */
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import type { RunResults } from '../results/types.ts';
import { redactKeys } from '../contract/keys.ts';
import { whyLines } from '../catalogue/reasons/index.ts';

/** XML 1.0 forbids most control characters even when escaped; drop them. */
const INVALID_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(value: string): string {
  return value
    .replace(INVALID_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

/** Text content: newlines kept as they are. */
const escapeText = (value: string): string =>
  value.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

/** `QUOTA-READ [starter] sequential`; `AUTH-KEY-FORMAT [all]` for a check that is not per tier. */
export function testcaseName(result: Pick<CheckResult, 'id' | 'tier' | 'variant'>): string {
  return `${result.id} [${result.tier ?? 'all'}]${result.variant ? ` ${result.variant}` : ''}`;
}

const suiteName = (tier: string | null): string => `tiergate.${tier ?? 'all'}`;

function summary(result: CheckResult): string {
  return `expected ${result.expected}; actual ${result.actual}`;
}

/** Why no verdict could be reached, then what was expected and seen. */
function inconclusiveMessage(result: CheckResult): string {
  const why = whyLines(result)[0];
  return `inconclusive: ${why ? `${why}; ` : ''}${summary(result)}`;
}

function testcase(result: CheckResult): string {
  const attrs = `name="${escapeXml(testcaseName(result))}" classname="${escapeXml(suiteName(result.tier))}" time="${seconds(result.durationMs)}"`;
  const properties = [
    ['verdict', result.verdict],
    ['spec', result.spec],
    ['basis', result.basis],
    ...(result.assumptions.length > 0 ? [['assumptions', result.assumptions.join(', ')]] : []),
    ...(result.org ? [['org', result.org]] : []),
  ]
    .map(([name, value]) => `        <property name="${escapeXml(name ?? '')}" value="${escapeXml(value ?? '')}"/>`)
    .join('\n');
  const lines = whyLines(result);
  const notes = lines.length > 0 ? `\nnotes:\n${lines.map((n) => `- ${n}`).join('\n')}` : '';
  const out = `${result.title} (${result.spec})\nrequirement: ${result.requirement}\nexpected: ${result.expected}\nactual: ${result.actual}${notes}\nevidence: observations ${result.evidence.slice(0, 20).join(', ')}${result.evidence.length > 20 ? `, … (${result.evidence.length} in all)` : ''}`;
  const outcome: Record<Verdict, string> = {
    pass: '',
    fail: `      <failure message="${escapeXml(summary(result))}" type="${escapeXml(result.id)}">${escapeText(summary(result))}</failure>\n`,
    skipped: `      <skipped message="${escapeXml(whyLines(result)[0] ?? 'skipped')}"/>\n`,
    inconclusive: `      <error message="${escapeXml(inconclusiveMessage(result))}" type="inconclusive">${escapeText(inconclusiveMessage(result))}</error>\n`,
  };
  return `    <testcase ${attrs}>\n      <properties>\n${properties}\n      </properties>\n${outcome[result.verdict]}      <system-out>${escapeText(out)}</system-out>\n    </testcase>`;
}

export function renderJunit(results: RunResults): string {
  const byTier = new Map<string | null, CheckResult[]>();
  for (const tier of results.tiers) byTier.set(tier, []);
  for (const result of results.checks) {
    const list = byTier.get(result.tier) ?? [];
    list.push(result);
    byTier.set(result.tier, list);
  }
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const suites: string[] = [];
  for (const [tier, checks] of byTier) {
    if (checks.length === 0) continue;
    const failures = checks.filter((c) => c.verdict === 'fail').length;
    const errors = checks.filter((c) => c.verdict === 'inconclusive').length;
    const skipped = checks.filter((c) => c.verdict === 'skipped').length;
    const time = checks.reduce((sum, c) => sum + c.durationMs, 0);
    totals.tests += checks.length;
    totals.failures += failures;
    totals.errors += errors;
    totals.skipped += skipped;
    totals.time += time;
    suites.push(
      `  <testsuite name="${escapeXml(suiteName(tier))}" tests="${checks.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(time)}" timestamp="${escapeXml(results.startedAt)}">\n` +
        `    <properties>\n      <property name="runId" value="${escapeXml(results.runId)}"/>\n      <property name="tier" value="${escapeXml(tier ?? 'all')}"/>\n    </properties>\n` +
        `${checks.map(testcase).join('\n')}\n  </testsuite>`,
    );
  }
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="tiergate ${escapeXml(results.runId)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(results.durationMs)}" timestamp="${escapeXml(results.startedAt)}">\n` +
    `${suites.join('\n')}\n</testsuites>\n`;
  return redactKeys(xml);
}
