/**
 * The spec's own 60 s windows, all three tiers, every check: the suite completes and passes, and the
 * run says how many windows it needed and used. Long (several minutes): `npm run test:soak`.
 */
import { expect, it } from 'vitest';
import { TIER_NAMES } from '../../src/contract/types.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

it('completes every check of every tier with 60 s windows', async () => {
  const { io } = captureIo();
  const options = { ...shortRun(tempReportsDir(), { tiers: TIER_NAMES, windowMs: 60_000, parseMs: 500 }), scenarios: TIER_NAMES.map((tier) => defineScenario({ tier })) };
  const outcome = await runSuite(options, io);
  const results = outcome.results!;
  const summary = `wall ${(results.durationMs / 1000).toFixed(1)} s; windows needed ${results.windows.needed} (${results.windows.needed * 60} s), used ${results.windows.used}`;
  console.log(`60 s windows: ${summary}`);
  expect(results.checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.id}[${c.tier}] ${c.verdict}: ${c.actual}`)).toEqual([]);
}, 900_000);
