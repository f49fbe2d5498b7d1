/**
 * The fault matrix: for every fault in the reference target's catalogue, a run fails exactly the
 * checks that fault breaks (its `breaks` list) and passes every other check it runs.
 */
import { describe, expect, it } from 'vitest';
import { faultCatalogue } from '../../src/target/faults.ts';
import { runSuite } from '../../src/suite/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

describe('fault matrix (starter tier)', () => {
  it.each(faultCatalogue.map((f) => [f.name, f.breaks] as const))('%s fails %j and nothing else', async (fault, breaks) => {
    const { io } = captureIo();
    const outcome = await runSuite(shortRun(tempReportsDir(), { tiers: ['starter'], faults: [fault] }), io);
    const checks = outcome.results!.checks;
    const failed = [...new Set(checks.filter((c) => c.verdict === 'fail').map((c) => c.id))].sort();
    const otherwise = checks.filter((c) => c.verdict !== 'pass' && c.verdict !== 'fail').map((c) => `${c.id} ${c.verdict}: ${c.actual}`);
    expect({ failed, otherwise }).toEqual({ failed: [...breaks].sort(), otherwise: [] });
    expect(outcome.exitCode).toBe(1);
  });
});
