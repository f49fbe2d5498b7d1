/**
 * The spec's own 60 s windows, all three tiers, every check, with a resume parser of seconds (2 s per
 * upload, single and bulk alike): the suite completes, every check decided and passed, and the run
 * says how many windows it needed and used. Long (several minutes): `npm run test:soak`.
 */
import { expect, it } from 'vitest';
import { TIER_NAMES } from '../../src/contract/types.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { notPassed } from '../helpers/explained.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

it('passes every check of every tier with 60 s windows and uploads that take 2 s', async () => {
  const { io } = captureIo();
  const run = shortRun(tempReportsDir(), { tiers: TIER_NAMES, windowMs: 60_000, parseMs: 2000 });
  const options = {
    ...run,
    target: { ...run.target, variants: ['synchronous-bulk'] as const },
    scenarios: TIER_NAMES.map((tier) => defineScenario({ tier })),
  };
  const outcome = await runSuite(options, io);
  const results = outcome.results!;
  const summary = `wall ${(results.durationMs / 1000).toFixed(1)} s; windows needed ${results.windows.needed} (${results.windows.needed * 60} s), used ${results.windows.used}`;
  console.log(`60 s windows: ${summary}`);
  expect(notPassed(results.checks)).toEqual([]);
}, 900_000);
