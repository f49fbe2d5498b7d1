/**
 * The fault matrix: for every fault in the reference target's catalogue, a run fails the checks that
 * fault breaks, may fail (or leave undecided) only its declared collateral besides, and passes every
 * other check it runs; and the limiter profile it learns first names what the fault shows.
 */
import { describe, expect, it } from 'vitest';
import { faultCatalogue } from '../../src/reference-server/faults.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { FAULT_PROFILES, profileComparison } from './limiter-profiles.ts';

describe.concurrent('fault matrix (starter tier)', () => {
  it.each(faultCatalogue.map((f) => [f.name, f] as const))('%s', async (name, fault) => {
    const { io } = captureIo();
    const outcome = await runSuite(shortRun(tempReportsDir(), { tiers: ['starter'], faults: [name] }), io);
    const results = outcome.results!;
    const checks = results.checks;
    const failed = new Set(checks.filter((c) => c.verdict === 'fail').map((c) => c.id));
    const allowed = new Set([...fault.breaks, ...(fault.collateral?.checks ?? [])]);
    expect({ missed: fault.breaks.filter((id) => !failed.has(id)) }).toEqual({ missed: [] });
    expect({ unexpected: checks.filter((c) => c.verdict === 'fail' && !allowed.has(c.id)).map((c) => `${c.id}: ${c.actual}`) }).toEqual({ unexpected: [] });
    // Collateral may also leave a check undecided (e.g. probes answered 429); nothing else may.
    const undecided = checks
      .filter((c) => (c.verdict === 'inconclusive' && !allowed.has(c.id)) || c.verdict === 'skipped')
      .map((c) => `${c.id} ${c.verdict}: ${c.actual}`);
    expect(undecided).toEqual([]);
    expect(outcome.exitCode).toBe(1);
    expect(results.profiles).toHaveLength(1);
    const comparison = profileComparison(results.profiles[0]!, FAULT_PROFILES[name] ?? {});
    expect(comparison.actual).toEqual(comparison.expected);
  }, 90_000);
});
