/** Ctrl-C mid-run: the run stops, and still writes the report of what finished (exit 130). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runSuite } from '../../src/run/run.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

it('an interrupted run writes results, JUnit and HTML for the checks that finished', async () => {
  const captured = captureIo();
  let seen = 0;
  const options = shortRun(tempReportsDir(), {
    tiers: ['starter', 'professional'],
    windowMs: 3000,
    listeners: [
      (event) => {
        // Interrupt as soon as the first checks are in: quota checks are still waiting for windows.
        if (event.type === 'check-result' && ++seen === 1) captured.interrupt();
      },
    ],
  });
  const outcome = await runSuite(options, captured.io);
  expect(outcome.exitCode).toBe(130);
  const results = outcome.results!;
  expect(results.interrupted).toBe(true);
  expect(results.checks.length).toBeGreaterThan(0);
  expect(results.checks.some((c) => c.id === 'QUOTA-READ' && c.verdict === 'pass')).toBe(false);
  for (const file of ['results.json', 'junit.xml', 'index.html'])
    expect(existsSync(join(outcome.runDir!, file))).toBe(true);
  expect(JSON.parse(readFileSync(join(outcome.runDir!, 'results.json'), 'utf8')).interrupted).toBe(true);
  // Its folder verifies: each verdict judged again as it would have been (the interruption note names it).
  const verified = await verifyRun(outcome.runDir!, { publicKey: null });
  expect(verified.problems).toEqual([]);
  expect(verified.held.some((line) => /^verdicts: [1-9]\d* result\(s\) judged again/.test(line))).toBe(true);
}, 60_000);
