/**
 * inFreshWindow: a task's traffic in a window the keeper found, and a measurement a boundary or the
 * network spoiled taken again in the next window, once.
 */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { Finding } from '../../src/catalogue/types.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import { inFreshWindow } from '../../src/suite/fresh-window.ts';
import type { TaskRun } from '../../src/suite/task.ts';
import type { FreshWindow } from '../../src/windows/keeper.ts';
import { obs, windowFrom } from '../helpers/observations.ts';

const org = { label: 'starter-a', tier: 'starter', primary: { key: 'k' } } as unknown as OrgHandle;
const pass: Finding = { verdict: 'pass', expected: 'x', actual: 'exact', evidence: [], notes: [] };
const spoiled: Finding = {
  verdict: 'inconclusive',
  expected: 'x',
  actual: 'window rolled over mid-check',
  evidence: [],
  notes: [],
  measureAgain: true,
};
const stuck: Finding = {
  verdict: 'inconclusive',
  expected: 'x',
  actual: 'no consistent Limit',
  evidence: [],
  notes: [],
};

/** A context whose keeper hands out a window at once, counting how often it was asked. */
function contextOf(asked: { count: number }): SuiteContext {
  return {
    contract: recruitingApi,
    emit: () => {},
    signal: new AbortController().signal,
    profileOf: () => null,
    uploadMs: () => null,
    windowMs: 3000,
    windows: {
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
  begin: () => {},
} as unknown as TaskRun<'QUOTA-READ' | 'HDR-RESET'>;
const traffic = { first: async () => obs({}) };

describe('inFreshWindow', () => {
  it('measures a spoiled check again in the next window, once, keeping what the first measurement decided', async () => {
    const asked = { count: 0 };
    const outcomes = [
      { 'QUOTA-READ': spoiled, 'HDR-RESET': pass },
      { 'QUOTA-READ': pass, 'HDR-RESET': { ...pass, actual: 'second' } },
    ];
    const decisions = await inFreshWindow(contextOf(asked), task, 'read', traffic, async () => outcomes.shift()!);
    expect(asked.count).toBe(2);
    expect(decisions['QUOTA-READ']).toMatchObject({
      verdict: 'pass',
      notes: ['measured again in the next window: the first measurement was spoiled (window rolled over mid-check)'],
    });
    expect(decisions['HDR-RESET']).toMatchObject({ actual: 'exact' });
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
      { 'QUOTA-READ': pass, 'HDR-RESET': { ...pass, actual: 'second' } },
    ];
    const decisions = await inFreshWindow(contextOf(asked), task, 'read', traffic, async () => outcomes.shift()!);
    expect(decisions['HDR-RESET']).toMatchObject({
      verdict: 'pass',
      actual: 'second',
      notes: [
        'measured again in the next window: the first left it open (no consistent Limit) with QUOTA-READ spoiled',
      ],
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
      actual: 'window rolled over mid-check',
      notes: ['not measured again: no window within 11 s'],
    });
  });
});
