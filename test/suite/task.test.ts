/**
 * The task registry and the shared step that turns a task's decisions into check results: every
 * check is decided by some task kind (or judged over every response), a result carries its declared
 * variant, unselected checks are dropped, and a declared check the task left undecided is reported
 * inconclusive, never passed.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_IDS, type Finding } from '../../src/catalogue/types.ts';
import { TASK_KINDS } from '../../src/catalogue/task-kinds.ts';
import { TASKS, kindsDeciding } from '../../src/tasks/registry.ts';
import { defineTask, runTask } from '../../src/suite/task.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import { JudgementLog } from '../../src/suite/judgements.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import type { RunEvent } from '../../src/results/events.ts';
import { defineScenario } from '../../src/scenario/define.ts';

const pass: Finding = { verdict: 'pass', expected: 'x', actual: 'x', evidence: [1], notes: [] };
const org: OrgHandle = {
  label: 'starter-a',
  tier: 'starter',
  id: null,
  primary: { label: 'primary', key: 'k', id: null, scopes: 'all' },
  secondary: null,
  unscoped: null,
};

function fakeContext(events: RunEvent[]): SuiteContext {
  let now = 1000;
  return {
    io: { clock: { now: () => Date.parse('2026-11-23T10:00:00Z') + now, monotonic: () => now } },
    prober: { now: () => (now += 5) },
    emit: (event: RunEvent) => events.push(event),
    judgements: new JudgementLog(recruitingApi),
  } as unknown as SuiteContext;
}

const probe = defineTask({
  kind: 'read-burst',
  decides: { 'QUOTA-READ': 'burst', 'HDR-LIMIT': 'read', 'HDR-RESET': '' },
  consumes: 'read',
  orgs: 1,
  placement: 'lane',
  describe: 'a test task',
  run: async (_context, task) => {
    task.begin();
    // HDR-RESET left undecided on purpose.
    return { 'QUOTA-READ': pass, 'HDR-LIMIT': pass };
  },
});

describe('the task registry', () => {
  it('has a definition for every task kind, under its own name', () => {
    expect(Object.keys(TASKS).sort()).toEqual([...TASK_KINDS].sort());
    for (const kind of TASK_KINDS) expect(TASKS[kind].kind).toBe(kind);
  });

  it('decides every check but HDR-PRESENT (judged over every response) in some task kind', () => {
    const undecided = CHECK_IDS.filter((id) => kindsDeciding(id).length === 0);
    expect(undecided).toEqual(['HDR-PRESENT']);
    expect(kindsDeciding('QUOTA-READ')).toEqual(['read-burst', 'read-sequential']);
  });
});

describe('runTask', () => {
  it('adds the declared variant, tier, org and the task span; an undecided check is inconclusive', async () => {
    const events: RunEvent[] = [];
    const results = await runTask(probe, fakeContext(events), {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter' }),
      checks: null,
    });
    expect(results.map((r) => [r.id, r.variant, r.verdict, r.org])).toEqual([
      ['QUOTA-READ', 'burst', 'pass', 'starter-a'],
      ['HDR-LIMIT', 'read', 'pass', 'starter-a'],
      ['HDR-RESET', '', 'inconclusive', 'starter-a'],
    ]);
    expect(results[2]!.reasons).toEqual([{ code: 'task-undecided', kind: 'read-burst' }]);
    expect(results[0]!.durationMs).toBeGreaterThan(0);
    expect(events).toEqual([
      { type: 'task-start', task: { kind: 'read-burst', tier: 'starter', orgs: ['starter-a'] } },
    ]);
  });

  it('a task that throws: a warning, and each selected check inconclusive with the reason and its variant', async () => {
    const events: RunEvent[] = [];
    const throwing = defineTask({ ...probe, run: async () => Promise.reject(new Error('the target answered 500')) });
    const results = await runTask(throwing, fakeContext(events), {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter' }),
      checks: null,
    });
    const why = { code: 'task-stopped', task: 'read-burst starter-a', error: 'the target answered 500' };
    expect(results.map((r) => [r.id, r.variant, r.verdict, r.reasons])).toEqual([
      ['QUOTA-READ', 'burst', 'inconclusive', [why]],
      ['HDR-LIMIT', 'read', 'inconclusive', [why]],
      ['HDR-RESET', '', 'inconclusive', [why]],
    ]);
    expect(events).toEqual([
      { type: 'warning', message: 'task read-burst starter-a stopped: the target answered 500' },
    ]);
  });

  it('reports only the selected checks', async () => {
    const results = await runTask(probe, fakeContext([]), {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter' }),
      checks: ['HDR-LIMIT'],
    });
    expect(results.map((r) => r.id)).toEqual(['HDR-LIMIT']);
  });
});

describe('defineTask', () => {
  it('admits decisions only for the checks a task declares (a type error otherwise)', () => {
    const declared = defineTask({
      kind: 'access',
      decides: { 'AUTH-MISSING': '' },
      consumes: 'none',
      orgs: 1,
      placement: 'lane',
      describe: 'a test task',
      // @ts-expect-error AUTH-UNKNOWN is not among the checks this task declares
      run: async () => ({ 'AUTH-MISSING': pass, 'AUTH-UNKNOWN': pass }),
    });
    expect(Object.keys(declared.decides)).toEqual(['AUTH-MISSING']);
  });
});
