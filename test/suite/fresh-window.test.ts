/**
 * inFreshWindow: a task's traffic in a window the keeper found, and a measurement a boundary or the
 * network spoiled taken again in the next window, once.
 */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { Finding } from '../../src/catalogue/types.ts';
import { because } from '../../src/catalogue/reasons/index.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import { inFreshWindow } from '../../src/suite/fresh-window.ts';
import type { TaskRun } from '../../src/suite/task.ts';
import { NetworkMeter } from '../../src/measure/network.ts';
import { remeasureBudget } from '../../src/suite/remeasure.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import type { FreshWindow } from '../../src/windows/keeper.ts';
import { obs, windowFrom } from '../helpers/observations.ts';

const org = { label: 'starter-a', tier: 'starter', primary: { key: 'k' } } as unknown as OrgHandle;
// Which measurement a finding came from is its evidence: the first's request 1, the second's 2.
const pass: Finding = { verdict: 'pass', expected: 'x', actual: 'x', evidence: [1], notes: [] };
const passedSecond: Finding = { ...pass, evidence: [2] };
const rolledOver = because('window-rolled-over', { from: 1795818902, to: 1795818905, atRequest: 7 });
const spoiled: Finding = {
  verdict: 'inconclusive',
  expected: 'x',
  actual: 'x',
  evidence: [1],
  notes: [],
  reasons: [rolledOver],
  measureAgain: 'next-window',
};
const noConsistentLimit = because('no-consistent-limit', { limits: [60, 61] });
const stuck: Finding = {
  verdict: 'inconclusive',
  expected: 'x',
  actual: 'x',
  evidence: [1],
  notes: [],
  reasons: [noConsistentLimit],
};

/** A context whose keeper hands out a window at once, counting how often it was asked. */
function contextOf(asked: { count: number }, remeasure = remeasureBudget()): SuiteContext {
  return {
    remeasure,
    contract: recruitingApi,
    emit: () => {},
    signal: new AbortController().signal,
    profileOf: () => null,
    uploadMs: () => null,
    windowMs: 3000,
    network: new NetworkMeter(),
    prober: { edges: [{ label: 'edge-0', url: 'http://127.0.0.1:1' }] },
    windows: {
      latencyMs: () => 1,
      fresh: async (): Promise<FreshWindow> => {
        asked.count += 1;
        const first = obs({});
        return { ok: true, window: windowFrom(first.sentAt), first };
      },
    },
  } as unknown as SuiteContext;
}

const task = {
  identity: { kind: 'read-sequential', tier: 'starter', orgs: ['starter-a'] },
  orgs: [org],
  checks: ['QUOTA-READ', 'HDR-RESET'],
  rounds: () => 1,
  scenario: defineScenario({ tier: 'starter' }),
  begin: () => {},
} as unknown as TaskRun<'QUOTA-READ' | 'HDR-RESET'>;
const traffic = { first: async () => obs({}) };

describe('inFreshWindow', () => {
  it('measures a spoiled check again in the next window, once, keeping what the first measurement decided', async () => {
    const asked = { count: 0 };
    const outcomes = [
      { 'QUOTA-READ': spoiled, 'HDR-RESET': pass },
      { 'QUOTA-READ': passedSecond, 'HDR-RESET': passedSecond },
    ];
    const decisions = await inFreshWindow(contextOf(asked), task, 'read', traffic, async () => outcomes.shift()!);
    expect(asked.count).toBe(2);
    expect(decisions['QUOTA-READ']).toMatchObject({
      verdict: 'pass',
      evidence: [2],
      reasons: [{ code: 'measured-again', first: ['window-rolled-over'], spoiled: ['QUOTA-READ'], ownSpoiled: true }],
    });
    expect(decisions['HDR-RESET']).toBe(pass);
  });

  it("does not measure again once the lane's budget for it is spent, saying so", async () => {
    const asked = { count: 0 };
    const budget = remeasureBudget(1);
    expect(budget.take('starter-a')).toBeNull();
    const decisions = await inFreshWindow(contextOf(asked, budget), task, 'read', traffic, async () => ({
      'QUOTA-READ': spoiled,
      'HDR-RESET': pass,
    }));
    expect(asked.count).toBe(1);
    expect(decisions['QUOTA-READ']).toMatchObject({
      verdict: 'inconclusive',
      reasons: [rolledOver, { code: 'remeasure-budget-spent', windowsPerLane: 1, lane: 'starter-a' }],
    });
  });

  it('does not measure again what the server itself left open, nor more than once', async () => {
    const asked = { count: 0 };
    const decisions = await inFreshWindow(contextOf(asked), task, 'read', traffic, async () => ({
      'QUOTA-READ': stuck,
      'HDR-RESET': pass,
    }));
    expect(asked.count).toBe(1);
    expect(decisions['QUOTA-READ']).toBe(stuck);
    const twice = { count: 0 };
    const again = await inFreshWindow(contextOf(twice), task, 'read', traffic, async () => ({
      'QUOTA-READ': spoiled,
      'HDR-RESET': pass,
    }));
    expect(twice.count).toBe(2);
    expect(again['QUOTA-READ']).toMatchObject({ verdict: 'inconclusive' });
  });

  it('gives every check the first measurement left open the second one, not only the spoiled ones', async () => {
    const asked = { count: 0 };
    const outcomes = [
      { 'QUOTA-READ': spoiled, 'HDR-RESET': stuck },
      { 'QUOTA-READ': passedSecond, 'HDR-RESET': passedSecond },
    ];
    const decisions = await inFreshWindow(contextOf(asked), task, 'read', traffic, async () => outcomes.shift()!);
    expect(decisions['HDR-RESET']).toMatchObject({
      verdict: 'pass',
      evidence: [2],
      reasons: [{ code: 'measured-again', first: ['no-consistent-limit'], spoiled: ['QUOTA-READ'], ownSpoiled: false }],
    });
  });

  it('keeps the first measurement where no second could be had, saying why', async () => {
    const asked = { count: 0 };
    const context = contextOf(asked);
    const fresh = context.windows.fresh.bind(context.windows);
    // The first window is handed out; the second is not.
    (context.windows as { fresh: typeof fresh }).fresh = async (...args) =>
      asked.count === 0 ? fresh(...args) : (asked.count++, { ok: false, reason: 'no window within 11 s', polls: [] });
    const decisions = await inFreshWindow(context, task, 'read', traffic, async () => ({
      'QUOTA-READ': spoiled,
      'HDR-RESET': pass,
    }));
    expect(asked.count).toBe(2);
    expect(decisions['QUOTA-READ']).toMatchObject({
      verdict: 'inconclusive',
      evidence: [1],
      reasons: [rolledOver, { code: 'no-fresh-window', detail: 'no window within 11 s' }],
    });
  });

  it('does not send reads that cannot fit a window at the round trip measured, giving the figures', async () => {
    const asked = { count: 0 };
    const context = contextOf(asked);
    (context.windows as unknown as { latencyMs: () => number }).latencyMs = () => 1000;
    const longTask = { ...task, rounds: () => 5 } as unknown as TaskRun<'QUOTA-READ' | 'HDR-RESET'>;
    const decisions = await inFreshWindow(context, longTask, 'read', traffic, async () => ({
      'QUOTA-READ': pass,
      'HDR-RESET': pass,
    }));
    expect(asked.count).toBe(0);
    const unfit = {
      code: 'reads-do-not-fit-window',
      roundTrips: 5,
      roundTripMs: 1000,
      needMs: 5000,
      windowMs: 3000,
      usablePercent: 80,
    };
    expect(decisions['QUOTA-READ']).toMatchObject({ verdict: 'inconclusive', reasons: [unfit] });
    expect(decisions['HDR-RESET']).toMatchObject({ verdict: 'inconclusive', reasons: [unfit] });
  });

  describe('uploads too slow to fit a window', () => {
    // Six batches under the cap, the first upload and one to find the window's start: 8 upload times
    // in 95% of a 100 ms window, 11.9 ms each at most.
    const ingestTask = { ...task, rounds: () => 6 } as unknown as TaskRun<'QUOTA-READ' | 'HDR-RESET'>;
    /**
     * The ingest task where uploads took `medians` (one per time it is asked), the fastest of them
     * `fastestMs`; its traffic passes both checks. `asked`: how often the keeper was asked for a window.
     */
    function withUploads(asked: { count: number }, medians: number[], fastestMs: number) {
      const uploadMs = (_tier: string, _path?: string, quantile?: number) =>
        quantile === 0 ? fastestMs : medians.length > 1 ? medians.shift()! : medians[0]!;
      const context = { ...contextOf(asked), windowMs: 100, uploadMs } as unknown as SuiteContext;
      return inFreshWindow(context, ingestTask, 'ingest', traffic, async () => ({
        'QUOTA-READ': pass,
        'HDR-RESET': pass,
      }));
    }

    it('where the fastest recent one would fit: not run, and a window later run, once they fit', async () => {
      const asked = { count: 0 };
      const decisions = await withUploads(asked, [20, 10], 10);
      expect(asked.count).toBe(1);
      expect(decisions['QUOTA-READ']).toMatchObject({
        verdict: 'pass',
        reasons: [
          {
            code: 'measured-again',
            first: ['uploads-do-not-fit-window', 'uploads-slow-now'],
            spoiled: ['QUOTA-READ', 'HDR-RESET'],
            ownSpoiled: true,
          },
        ],
      });
    });

    it('still too slow a window later: not run, saying so', async () => {
      const asked = { count: 0 };
      const decisions = await withUploads(asked, [20], 10);
      expect(asked.count).toBe(0);
      expect(decisions['QUOTA-READ']).toMatchObject({ verdict: 'inconclusive' });
      // The second measurement was not run either, for the same reasons: each is given once.
      const unfit = {
        code: 'uploads-do-not-fit-window',
        uploadTimes: 8,
        batches: 6,
        findsStart: true,
        uploadMs: 20,
        needMs: 160,
        windowMs: 100,
        usablePercent: 95,
        maxUploadMs: 11,
      };
      const slowNow = { code: 'uploads-slow-now', fastestMs: 10 };
      expect(findingOf(decisions['QUOTA-READ']).reasons).toEqual([unfit, slowNow]);
    });

    it('where even the fastest would not fit: not run, and not tried again', async () => {
      const asked = { count: 0 };
      const decisions = await withUploads(asked, [20], 15);
      expect(asked.count).toBe(0);
      expect(findingOf(decisions['QUOTA-READ']).reasons!.map((r) => r.code)).toEqual(['uploads-do-not-fit-window']);
    });
  });
});

const findingOf = (decision: unknown): Finding => (decision as { finding?: Finding }).finding ?? (decision as Finding);
