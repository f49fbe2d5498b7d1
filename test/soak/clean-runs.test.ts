/**
 * The gate's steadiness: the clean reference target passes every check of every tier ten runs in a
 * row (4 s windows). Part of `npm run test:soak`, not of `npm test`; thirty runs of `npm start` in a
 * row are `npm run soak`.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import { TIER_CHECKS } from '../helpers/check-lists.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const RUNS = 10;

const notPassing = (checks: readonly CheckResult[]) =>
  checks
    .filter((c) => c.verdict !== 'pass')
    .map((c) => `${c.id}[${c.tier}${c.variant ? ` ${c.variant}` : ''}] ${c.verdict}: ${c.actual} ${c.notes.join(' ')}`);

describe('a clean reference target, run after run', () => {
  it(
    `passes every check of every tier ${RUNS} runs in a row`,
    async () => {
      for (let run = 1; run <= RUNS; run++) {
        const { io } = captureIo();
        const tiers = ['starter', 'professional', 'enterprise'] as const;
        const outcome = await runSuite(shortRun(tempReportsDir(), { tiers, checks: TIER_CHECKS, windowMs: 4000 }), io);
        expect({ run, failures: notPassing(outcome.results!.checks) }).toEqual({ run, failures: [] });
      }
    },
    RUNS * 60_000,
  );
});
