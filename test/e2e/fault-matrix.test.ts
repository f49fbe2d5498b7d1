/**
 * The fault matrix: for every fault in the reference target's catalogue, a run fails the checks that
 * fault breaks, may fail (or leave undecided) only its declared collateral besides, and passes every
 * other check it runs; and the limiter profile it learns first names what the fault shows.
 *
 * Each fault's run holds the tasks that decide what it breaks (from the task registry), every check
 * of those tasks judged; a fault that breaks HDR-PRESENT, judged over every response, runs them all.
 * The clean run (clean-run.test.ts) holds every task on every tier. Each fault's folder verifies
 * (tiergate verify): its verdicts, the failing ones too, judged again from its observations.
 */
import { describe, expect, it } from 'vitest';
import { faultCatalogue } from '../../src/reference-server/faults.ts';
import { TASKS } from '../../src/tasks/registry.ts';
import { checksFor, kindsFor } from '../helpers/fault-checks.ts';
import { runSuite } from '../../src/run/run.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { FAULT_PROFILES, profileComparison } from './limiter-profiles.ts';

describe.concurrent('fault matrix (starter tier)', () => {
  it.each(faultCatalogue.map((f) => [f.name, f] as const))(
    '%s',
    async (name, fault) => {
      const kinds = kindsFor(fault);
      const checks = checksFor(fault);
      const { io } = captureIo();
      // A fault that needs longer windows to be caught runs at its own (the catalogue says why).
      const outcome = await runSuite(
        shortRun(tempReportsDir(), {
          tiers: ['starter'],
          faults: [name],
          checks,
          ...(fault.minWindow ? { windowMs: fault.minWindow.ms } : {}),
        }),
        io,
      );
      const results = outcome.results!;
      const ran = results.checks;
      const failed = new Set(ran.filter((c) => c.verdict === 'fail').map((c) => c.id));
      const allowed = new Set([...fault.breaks, ...(fault.collateral?.checks ?? [])]);
      expect({ missed: fault.breaks.filter((id) => !failed.has(id)) }).toEqual({ missed: [] });
      expect({
        unexpected: ran.filter((c) => c.verdict === 'fail' && !allowed.has(c.id)).map((c) => `${c.id}: ${c.actual}`),
      }).toEqual({ unexpected: [] });
      // Collateral may also leave a check undecided (e.g. probes answered 429); nothing else may.
      const undecided = ran
        .filter((c) => (c.verdict === 'inconclusive' && !allowed.has(c.id)) || c.verdict === 'skipped')
        .map((c) => `${c.id} ${c.verdict}: ${c.actual}`);
      expect(undecided).toEqual([]);
      expect(outcome.exitCode).toBe(1);
      // A run with quota tasks learns the limiter first; its profile names what the fault shows.
      const learns = kinds === null || kinds.some((k) => TASKS[k].consumes !== 'none');
      expect(results.profiles).toHaveLength(learns ? 1 : 0);
      if (learns) {
        const comparison = profileComparison(results.profiles[0]!, FAULT_PROFILES[name] ?? {});
        expect(comparison.actual).toEqual(comparison.expected);
      }
      // Its folder verifies offline: every verdict, fail included, follows from its observations.
      const verified = await verifyRun(outcome.runDir!, { publicKey: null });
      expect(verified.problems).toEqual([]);
      expect(verified.held.some((line) => /^verdicts: [1-9]\d* result\(s\) judged again/.test(line))).toBe(true);
    },
    90_000,
  );
});
