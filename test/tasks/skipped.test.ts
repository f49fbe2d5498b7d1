/**
 * Checks a task has nothing to run with are skipped with the reason, against the reference target:
 * SCOPE-ENFORCED without a key lacking scopes, LOAD-THRESHOLDS without a load shape, ORG-SHARED
 * without a second key, and an uploading check where the config allows no writes.
 */
import { describe, expect, it } from 'vitest';
import { access } from '../../src/tasks/access.ts';
import { load } from '../../src/tasks/load.ts';
import { concurrency } from '../../src/tasks/concurrency.ts';
import { readSequential } from '../../src/tasks/read-sequential.ts';
import { runTask } from '../../src/suite/task.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { loadTestContext } from '../helpers/suite-context.ts';

describe('a task with nothing to run a check with', () => {
  it('skips SCOPE-ENFORCED where the organization has no key lacking scopes', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const results = await runTask(access, context, {
      tier: 'starter',
      orgs: [{ ...org, unscoped: null }],
      scenario: defineScenario({ tier: 'starter' }),
      checks: ['SCOPE-ENFORCED'],
    });
    expect(results.map((r) => [r.id, r.verdict, r.reasons])).toEqual([
      ['SCOPE-ENFORCED', 'skipped', [{ code: 'no-unscoped-key' }]],
    ]);
  });

  it('skips LOAD-THRESHOLDS where the scenario has no load shape, sending nothing', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const sentBefore = context.recorder!.count;
    const results = await runTask(load, context, {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter', load: null }),
      checks: null,
    });
    expect(results.map((r) => [r.id, r.verdict, r.reasons])).toEqual([
      ['LOAD-THRESHOLDS', 'skipped', [{ code: 'no-load-shape' }]],
    ]);
    expect(context.recorder!.count).toBe(sentBefore);
  });

  it('skips ORG-SHARED where the organization has no second key, judging the series still', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const results = await runTask(readSequential, context, {
      tier: 'starter',
      orgs: [{ ...org, secondary: null }],
      scenario: defineScenario({ tier: 'starter' }),
      checks: ['QUOTA-READ', 'ORG-SHARED'],
    });
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    expect(byId['ORG-SHARED']).toMatchObject({ verdict: 'skipped', reasons: [{ code: 'no-second-key' }] });
    expect(byId['QUOTA-READ']!.verdict).not.toBe('skipped');
  });

  it('skips an uploading check where the config allows no writes, sending nothing', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const sentBefore = context.recorder!.count;
    const results = await runTask(
      concurrency,
      { ...context, writes: 'none' },
      {
        tier: 'starter',
        orgs: [org],
        scenario: defineScenario({ tier: 'starter' }),
        checks: null,
      },
    );
    expect(results.map((r) => [r.id, r.verdict, r.reasons])).toEqual([
      ['CONCURRENCY-CAP', 'skipped', [{ code: 'writes-none' }]],
    ]);
    expect(context.recorder!.count).toBe(sentBefore);
  });
});
