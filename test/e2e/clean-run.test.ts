/**
 * The clean reference target passes every check, for every tier; the run writes its results,
 * observations and reports, and no output file holds a full API key, nor the organization's data its
 * data reads returned (only their shape is kept). Run after run: test/soak.
 * 5 s windows: the other whole-suite files run beside it, and Enterprise's burst (5,000 reads) and
 * uploads must fit one window on a busy two-core machine; too tight a window makes it honestly
 * inconclusive.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import { REVOCATION_CHECKS, TIER_CHECKS } from '../helpers/check-lists.ts';
import { runSuite } from '../../src/run/run.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { fileText, filesUnder } from '../helpers/run-files.ts';

const FULL_KEY = /xh_(live|test)_[A-Za-z0-9]{32}/;
/**
 * Customer data, never kept: titles of the reference target's sample jobs, which every job list
 * returns, and names of its sample candidates, which a read of a real candidate id would return.
 */
const CUSTOMER_DATA = /Product Designer|Data Analyst|Sam Rivera|Lee Chen/;

const notPassing = (checks: readonly CheckResult[]) =>
  checks
    .filter((c) => c.verdict !== 'pass')
    .map((c) => `${c.id}[${c.tier}${c.variant ? ` ${c.variant}` : ''}] ${c.verdict}: ${c.actual} ${c.notes.join(' ')}`);

describe('a clean reference target', () => {
  it('passes every check for all three tiers, with revocation, and writes reports without full keys', async () => {
    const outDir = tempReportsDir();
    const { io, stdout, stderr } = captureIo();
    // Uploads of 300 ms: CONCURRENCY-CAP holds uploads only when one outlasts the round trips that
    // place a request among them, which grow with the other whole-suite files running beside this one
    // (25 ms seen). Enterprise's eight upload times one after another fit a 5 s window even when that
    // load slows an upload to 540 ms (seen; 4 s windows then leave QUOTA-INGEST open).
    const outcome = await runSuite(
      shortRun(outDir, { tiers: ['starter', 'professional', 'enterprise'], windowMs: 5000, parseMs: 300 }),
      io,
    );
    const results = outcome.results!;
    expect(notPassing(results.checks)).toEqual([]);
    expect(results.verdict).toBe('pass');
    expect(outcome.exitCode).toBe(0);
    for (const tier of ['starter', 'professional', 'enterprise'] as const) {
      const ids = new Set(results.checks.filter((c) => c.tier === tier).map((c) => c.id));
      expect([...TIER_CHECKS].filter((id) => !ids.has(id))).toEqual([]);
    }
    expect(REVOCATION_CHECKS).toHaveLength(4);
    for (const id of REVOCATION_CHECKS) expect(results.checks.some((c) => c.id === id)).toBe(true);
    expect(results.windows.needed).toBe(3);
    const runDir = outcome.runDir!;
    for (const file of ['results.json', 'observations.ndjson.gz', 'junit.xml', 'index.html', 'revocation.csv']) {
      expect(statSync(join(runDir, file)).size).toBeGreaterThan(0);
    }
    expect(JSON.parse(readFileSync(join(outDir, 'latest', 'results.json'), 'utf8')).runId).toBe(results.runId);
    for (const file of filesUnder(runDir)) {
      const text = fileText(file);
      expect({ file, key: FULL_KEY.exec(text)?.[0] ?? null, data: CUSTOMER_DATA.exec(text)?.[0] ?? null }).toEqual({
        file,
        key: null,
        data: null,
      });
    }
    expect(CUSTOMER_DATA.exec(stdout() + stderr())?.[0] ?? null).toBeNull();
    // The job lists were read, and kept as their shape.
    const jobLists = fileText(join(runDir, 'observations.ndjson.gz'))
      .split('\n')
      .filter((line) => line.includes('"path":"/recruiter/jobs"') && line.includes('"status":200'));
    expect(jobLists.length).toBeGreaterThan(0);
    expect(JSON.parse(jobLists[0]!)).toMatchObject({
      body: null,
      bodyExcerpt: '',
      bodyShape: { kind: 'json-object', keys: { status: 'string', data: 'array' } },
    });
    expect(results.observations.bodies).toBe('shape');
    // What it wrote: the scope checks' jobs archived, and the revocation trials' keys.
    const footprint = results.footprint!;
    expect(footprint.created.filter((c) => c.kind === 'job').map((c) => c.cleanedUp)).toEqual([true, true, true]);
    expect(footprint.keys.revoked).toBeGreaterThan(0);
    expect(footprint.keys.provisioned).toBeGreaterThanOrEqual(footprint.keys.revoked);
    // The whole suite's folder, as npm start writes it, verifies: every verdict judged again from the observations.
    const verified = await verifyRun(runDir, { publicKey: null });
    expect(verified.problems).toEqual([]);
    expect(
      verified.held.filter((line) => /^verdicts: [1-9]\d* result\(s\) judged again from the observations/.test(line)),
    ).toHaveLength(1);
  }, 120_000);
});
