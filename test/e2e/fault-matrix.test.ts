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
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  RATE_LIMIT_DIALECT_NAMES,
  type RateLimitDialectName,
} from '../../src/contract/rate-limit-dialects.ts';
import {
  bendsDialect,
  faultCatalogue as catalogue,
  faultDefinition,
  type FaultName,
} from '../../src/reference-server/faults.ts';
import { TASKS } from '../../src/tasks/registry.ts';
import { checksFor, kindsFor } from '../helpers/fault-checks.ts';
import { runSuite } from '../../src/run/run.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { notPassed, unexplained } from '../helpers/explained.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { FAULT_PROFILES, orUnknown, profileComparison } from './limiter-profiles.ts';
import type { WindowAlgorithm } from '../../src/profile/types.ts';

/** The quota faults, caught again with every read series' bulk released together (scenario quota.bulk 'always'). */
const QUOTA_FAULTS = new Set<FaultName>(['quota-off-by-one', 'quota-early', 'racy-admission']);
/** The faults of §8's headers, run as the spec judges them. */
const faultCatalogue = catalogue.filter((f) => bendsDialect(f, DEFAULT_RATE_LIMIT_DIALECT));
/**
 * The faults of the other dialects' fields, each run with the first dialect it bends spoken and
 * declared: the header checks then judge that dialect.
 */
const dialectFaults = [
  ...catalogue
    .filter((f) => !bendsDialect(f, DEFAULT_RATE_LIMIT_DIALECT))
    .map((f) => [f, RATE_LIMIT_DIALECT_NAMES.find((d) => bendsDialect(f, d))!] as const),
  // The IETF fields' q is their Limit: the fault that bends X-RateLimit-Limit bends it.
  [faultDefinition('limit-header-wrong'), 'ietf'] as const,
];

describe.concurrent('fault matrix (starter tier)', () => {
  const spec = DEFAULT_RATE_LIMIT_DIALECT as RateLimitDialectName;
  const cases = [
    ...faultCatalogue.map((f) => [f.name, f, 'auto', spec] as const),
    ...faultCatalogue
      .filter((f) => QUOTA_FAULTS.has(f.name))
      .map((f) => [`${f.name}, bulk`, f, 'always', spec] as const),
    ...dialectFaults.map(([f, dialect]) => [`${f.name}, ${dialect} declared`, f, 'auto', dialect] as const),
  ];
  it.each(cases)(
    '%s',
    async (_, fault, bulk, dialect) => {
      const name = fault.name;
      const kinds = kindsFor(fault);
      const checks = checksFor(fault);
      const { io } = captureIo();
      // A fault that needs longer windows to be caught runs at its own (the catalogue says why).
      const outcome = await runSuite(
        shortRun(tempReportsDir(), {
          tiers: ['starter'],
          faults: [name],
          checks,
          bulk,
          ...(dialect === spec ? {} : { headers: dialect, declaredHeaders: dialect }),
          ...(fault.minWindow ? { windowMs: fault.minWindow.ms } : {}),
        }),
        io,
      );
      const results = outcome.results!;
      const ran = results.checks;
      const failed = new Set(ran.filter((c) => c.verdict === 'fail').map((c) => c.id));
      const allowed = new Set([...fault.breaks, ...(fault.collateral?.checks ?? [])]);
      expect({ missed: fault.breaks.filter((id) => !failed.has(id)) }).toEqual({ missed: [] });
      expect({ unexpected: notPassed(ran.filter((c) => c.verdict === 'fail' && !allowed.has(c.id))) }).toEqual({
        unexpected: [],
      });
      // Collateral may also leave a check undecided (e.g. probes answered 429); nothing else may.
      const undecided = ran.filter(
        (c) => (c.verdict === 'inconclusive' && !allowed.has(c.id)) || c.verdict === 'skipped',
      );
      expect(notPassed(undecided)).toEqual([]);
      // Every result that is not a pass says why by codes that tiergate explain knows.
      expect(unexplained(ran)).toEqual([]);
      expect(outcome.exitCode).toBe(1);
      // The bulk really went together where forced: the sequential series says so.
      if (bulk === 'always') {
        const sequential = ran.find((c) => c.id === 'QUOTA-READ' && c.variant === 'sequential');
        expect(sequential?.reasons).toContainEqual({ code: 'released-together', from: 2, to: expect.any(Number) });
      }
      // A run with quota tasks learns the limiter first; its profile names what the fault shows.
      const learns = kinds === null || kinds.some((k) => TASKS[k].consumes !== 'none');
      expect(results.profiles).toHaveLength(learns ? 1 : 0);
      if (learns) {
        // The other dialects write when the quota returns in seconds until, rounded to a second: where
        // the windows start is then learned to a second at best, as under reset-relative.
        const dialectShows =
          dialect === spec
            ? {}
            : { resetFormat: 'seconds-until' as const, algorithm: orUnknown<WindowAlgorithm>('fixed-aligned') };
        const comparison = profileComparison(results.profiles[0]!, { ...dialectShows, ...FAULT_PROFILES[name] });
        expect(comparison.learned).toEqual(comparison.wanted);
      }
      // Its folder verifies offline: every verdict, fail included, follows from its observations.
      const verified = await verifyRun(outcome.runDir!, { publicKey: null });
      expect(verified.problems).toEqual([]);
      expect(verified.held.some((line) => /^verdicts: [1-9]\d* result\(s\) judged again/.test(line))).toBe(true);
    },
    90_000,
  );
});
