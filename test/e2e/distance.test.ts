/**
 * At a distance (docs/how-it-measures.md): the embedded target behind its relays, about 40 ms round
 * trips (each way ± 5 ms), over HTTPS from a private CA the run trusts. A clean target is decided
 * and passes every check, its sequential series spending their bulk together where they cannot go
 * one at a time; the quota faults are caught there with the bulk path engaged (on a steadier path: a
 * race of a few ms shows only where requests released together reach the server within it). Windows
 * long enough for the distance (its round trips are planned by, not assumed).
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import { faultDefinition, type FaultName } from '../../src/reference-server/faults.ts';
import { runSuite } from '../../src/run/run.ts';
import { checksFor } from '../helpers/fault-checks.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const DISTANCE = { tls: true, latencyMs: 40, jitterMs: 10 } as const;

const open = (checks: readonly CheckResult[]) =>
  checks
    .filter((c) => c.verdict !== 'pass')
    .map((c) => `${c.id}[${c.tier}${c.variant ? ` ${c.variant}` : ''}] ${c.verdict}: ${c.actual}`);

describe('at a distance, over HTTPS', () => {
  // Alone: four targets behind relays over TLS at once load two cores beyond what a round trip of 40 ms is.
  it('decides and passes every check of a clean target, Enterprise spending its bulk together', async () => {
    const { io } = captureIo();
    const outcome = await runSuite(
      shortRun(tempReportsDir(), {
        tiers: ['starter', 'enterprise'],
        windowMs: 10_000,
        parseMs: 400,
        distance: DISTANCE,
      }),
      io,
    );
    const results = outcome.results!;
    expect(open(results.checks)).toEqual([]);
    expect(results.verdict).toBe('pass');
    // The run measured the distance it planned by: its round trips, not loopback's.
    expect(results.network!.figures.medianMs).toBeGreaterThanOrEqual(DISTANCE.latencyMs - DISTANCE.jitterMs / 2);
    const enterprise = results.checks.find(
      (c) => c.id === 'QUOTA-READ' && c.tier === 'enterprise' && c.variant === 'sequential',
    )!;
    // Its bulk went together from the request after the first.
    expect(enterprise.reasons).toContainEqual({ code: 'released-together', from: 2, to: expect.any(Number) });
  }, 240_000);
});

describe.concurrent('quota faults at a distance, over HTTPS', () => {
  it.each(['quota-off-by-one', 'quota-early', 'racy-admission'] as FaultName[])(
    'catches %s with the bulk path engaged',
    async (name) => {
      const fault = faultDefinition(name);
      const { io } = captureIo();
      const outcome = await runSuite(
        shortRun(tempReportsDir(), {
          tiers: ['starter'],
          faults: [name],
          checks: checksFor(fault),
          bulk: 'always',
          windowMs: 6000,
          // racy-admission races for 3 ms: requests released together must reach it within that, which
          // a jitter of ± 5 ms each way leaves to luck. The distance is the same; the path steadier.
          distance: { ...DISTANCE, jitterMs: 2 },
        }),
        io,
      );
      const ran = outcome.results!.checks;
      const failed = new Set(ran.filter((c) => c.verdict === 'fail').map((c) => c.id));
      const allowed = new Set([...fault.breaks, ...(fault.collateral?.checks ?? [])]);
      expect({ missed: fault.breaks.filter((id) => !failed.has(id)) }).toEqual({ missed: [] });
      expect(ran.filter((c) => c.verdict === 'fail' && !allowed.has(c.id)).map((c) => c.id)).toEqual([]);
      const sequential = ran.find((c) => c.id === 'QUOTA-READ' && c.variant === 'sequential');
      expect(sequential?.reasons).toContainEqual({ code: 'released-together', from: 2, to: expect.any(Number) });
    },
  );
});
