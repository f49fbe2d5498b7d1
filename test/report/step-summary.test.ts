import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import type { RunResults } from '../../src/results/types.ts';
import { appendStepSummary, stepSummary, stepSummaryTarget } from '../../src/report/step-summary.ts';
import { sampleResults } from '../helpers/sample-results.ts';
import { LEAKED_KEY, LEAKED_KEY_REDACTED } from './fixtures.ts';

const results = sampleResults({ leakKey: LEAKED_KEY });
const REPORT_DIR = '/work/project/reports/20260302-100000-5a1e';
const summary = (r: RunResults = results) => stepSummary(r, REPORT_DIR, '/work/project');

/** The sample run with the starter QUOTA-READ sequential result changed. */
function withFailure(change: Partial<CheckResult>): RunResults {
  return {
    ...results,
    checks: results.checks.map((c) =>
      c.id === 'QUOTA-READ' && c.tier === 'starter' && c.variant === 'sequential' ? { ...c, ...change } : c,
    ),
  };
}

describe('stepSummary', () => {
  it('leads with the gate verdict, then the run, the counts and the matrix (check × tier)', () => {
    const lines = summary().split('\n');
    expect(lines.slice(0, 7)).toEqual([
      '## tiergate ✗ FAIL: the build must not ship',
      '',
      'Run `20260302-100000-5a1e` against the embedded reference target (3 edges): starter, professional, enterprise; 60 s quota windows; 185 s.',
      '',
      '**26 pass** · **1 fail** · **3 inconclusive** · **2 skipped**',
      '',
      '| check | starter | professional | enterprise | all |',
    ]);
    expect(lines).toContain('| --- | --- | --- | --- | --- |');
    expect(lines).toContain('| QUOTA-READ | ✗ fail +1 | ✓ pass | ? inconclusive | — |');
    expect(lines).toContain('| AUTH-KEY-FORMAT | — | — | — | ✓ pass |');
    expect(lines).toContain('| ROTATION | – skipped | — | — | — |');
  });

  it('lists what failed, then what stayed undecided, each with expected and actual (and why)', () => {
    const text = summary();
    const attention = text.slice(text.indexOf('### Needs attention'));
    expect(attention.split('\n').slice(2, 10)).toEqual([
      '- ✗ fail **QUOTA-READ [starter] sequential**',
      '  - expected: requests 1–60 admitted, 429 at request 61 (Limit 60)',
      `  - actual: 429 1 request early (at request 60, Limit 60); the request used key ${LEAKED_KEY_REDACTED.replace(/_/g, '\\_')}`,
      '- ? inconclusive **HDR-LIMIT [enterprise]**',
      '  - expected: X-RateLimit-Limit at least 2500 on reads',
      '  - actual: no response carried X-RateLimit-Limit on the enterprise org',
      '  - why: Every enterprise read timed out before headers arrived; nothing to judge the Limit by.',
      '- ? inconclusive **HDR-RESET [professional]**',
    ]);
  });

  it('ends with the report path, relative to the workspace', () => {
    expect(summary().trimEnd().split('\n').at(-1)).toBe(
      '**Report:** `reports/20260302-100000-5a1e/index.html` (results.json and junit.xml beside it)',
    );
  });

  it('never writes a full key, escaped or not', () => {
    const text = summary();
    expect(text).not.toContain(LEAKED_KEY);
    expect(text.replace(/\\/g, '')).not.toContain(LEAKED_KEY);
  });

  it("keeps the target's text inert: markup escaped, one line, cut when long", () => {
    const text = summary(
      withFailure({
        actual: 'body <img src=x onerror=alert(1)> | *loud* `code` [link](http://x)\n## not a heading',
        expected: 'x'.repeat(1000),
      }),
    );
    expect(text).toContain(
      '  - actual: body \\<img src=x onerror=alert(1)\\> \\| \\*loud\\* \\`code\\` \\[link\\](http://x) ## not a heading',
    );
    expect(text).toContain(`  - expected: ${'x'.repeat(400)}…\n`);
    expect(text).not.toMatch(/^## not a heading/m);
  });

  it('says a pass plainly and lists nothing to attend to', () => {
    const checks = results.checks.filter((c) => c.verdict === 'pass');
    const text = summary({
      ...results,
      checks,
      verdict: 'pass',
      counts: { pass: checks.length, fail: 0, inconclusive: 0, skipped: 0 },
    });
    expect(text.split('\n')[0]).toBe('## tiergate ✓ PASS: every check that ran passed');
    expect(text).not.toContain('Needs attention');
  });

  it('says when the run was interrupted, and names faults and variants of the embedded target', () => {
    const text = summary({
      ...results,
      interrupted: true,
      target: { ...results.target, faults: ['quota-early'], variants: ['head-counts'] },
    });
    expect(text).toContain('**Interrupted:** only what finished is reported.');
    expect(text).toContain(
      'against the embedded reference target (3 edges; fault `quota-early`, variant `head-counts`)',
    );
    expect(
      summary({ ...results, target: { kind: 'external', edges: ['http://127.0.0.1:8080'], faults: [] } }),
    ).toContain('against the deployment (1 edge)');
  });
});

describe('the step summary at the edge', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is written only where GitHub names a file', () => {
    expect(stepSummaryTarget({ env: {}, cwd: '/w' })).toBeNull();
    expect(stepSummaryTarget({ env: { GITHUB_STEP_SUMMARY: '' }, cwd: '/w' })).toBeNull();
    expect(stepSummaryTarget({ env: { GITHUB_STEP_SUMMARY: '/tmp/s.md' }, cwd: '/w' })).toEqual({
      file: '/tmp/s.md',
      cwd: '/w',
    });
  });

  it('appends, keeping what other steps wrote', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tiergate-summary-'));
    const file = join(dir, 'summary.md');
    await writeFile(file, '# earlier step\n');
    await appendStepSummary({ file, cwd: dir }, 'one\n');
    await appendStepSummary({ file, cwd: dir }, 'two\n');
    expect(await readFile(file, 'utf8')).toBe('# earlier step\none\ntwo\n');
  });

  it('names the variable and the file when it cannot append', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tiergate-summary-'));
    const file = join(dir, 'missing', 'summary.md');
    await expect(appendStepSummary({ file, cwd: dir }, 'x')).rejects.toMatchObject({
      code: 'TG_ENV',
      message: expect.stringContaining(`GITHUB_STEP_SUMMARY: cannot append to ${file}`),
    });
  });
});
