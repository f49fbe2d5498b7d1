import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../src/catalogue/types.ts';
import type { TierName } from '../../src/contract/types.ts';
import { defineScenario, sustainedLoad, type ScenarioInput } from '../../src/scenario/define.ts';
import { DISCOVERY_WINDOWS, buildPlan, type Plan, type PlanInput, type PlannedTask } from '../../src/run/plan.ts';
import { orgLabels } from '../../src/provision/provision.ts';

const scenario = (tier: TierName, extra: Omit<ScenarioInput, 'tier'> = {}) => defineScenario({ tier, ...extra });

/** A plan with an organization of its own per tier for the limiter profile, as the embedded target has. */
function plan(overrides: Partial<PlanInput> = {}): Plan {
  return buildPlan({
    farEdges: [],
    scenarios: [scenario('starter')],
    orgs: { starter: orgLabels('starter', 3) },
    checks: null,
    revocationOrg: null,
    profileOrgs: { starter: 'starter-profile', professional: 'professional-profile' },
    ...overrides,
  });
}

/**
 * Lays the plan out in windows as the executor runs it: joint tasks first, one after another, on
 * all their orgs; then each lane's tasks in order, one fresh window per quota task, on the orgs
 * each task names. Returns, per org, the quota tasks found in each window.
 */
function windowsByOrg(p: Plan): Map<string, PlannedTask[][]> {
  const out = new Map<string, PlannedTask[][]>();
  const put = (task: PlannedTask, slot: number) => {
    for (const o of task.orgs) {
      const rows = out.get(o) ?? [];
      (rows[slot] ??= []).push(task);
      out.set(o, rows);
    }
  };
  for (const tier of p.tiers) {
    const next = new Map(tier.orgs.map((o) => [o, 0]));
    tier.joint.forEach((task, slot) => {
      put(task, slot);
      for (const o of task.orgs) next.set(o, slot + 1);
    });
    for (const [lane, tasks] of Object.entries(tier.lanes)) {
      for (const task of tasks) {
        if (task.consumes === 'none') continue;
        const slot = next.get(lane)!;
        put(task, slot);
        next.set(lane, slot + 1);
      }
    }
  }
  return out;
}

const allTasks = (p: Plan) => p.tiers.flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()]);

describe('buildPlan', () => {
  it('never puts two quota-consuming tasks in one window of one org', () => {
    for (const orgCount of [1, 2, 3, 5]) {
      const p = plan({ orgs: { starter: orgLabels('starter', orgCount) } });
      for (const [org, windows] of windowsByOrg(p)) {
        for (const tasks of windows) expect(tasks?.length ?? 1, `${org} with ${orgCount} orgs`).toBe(1);
      }
    }
  });

  it('puts every lane task on its own org, and a read task right after read-sequential (its Retry-After wait-out opens that window)', () => {
    for (const count of [3, 4]) {
      const p = plan({ orgs: { starter: orgLabels('starter', count) } });
      const tier = p.tiers[0]!;
      const lanes = Object.entries(tier.lanes);
      for (const [org, tasks] of lanes) for (const task of tasks) expect(task.orgs).toEqual([org]);
      const [, tasks] = lanes.find(([, tasks]) => tasks.some((t) => t.kind === 'read-sequential'))!;
      const seq = tasks.findIndex((t) => t.kind === 'read-sequential');
      expect(tasks[seq + 1]).toEqual(expect.objectContaining({ kind: 'read-burst' }));
      // Tasks that take no window come first: their requests would land in the window the wait-out opened.
      expect(tasks.slice(seq).map((t) => t.consumes)).not.toContain('none');
      expect(tier.joint).toEqual([expect.objectContaining({ kind: 'isolation', orgs: ['starter-a', 'starter-b'] })]);
      expect(tier.lanes[orgLabels('starter', count).at(-1)!]![0]!.kind).toBe('access');
    }
    // Only where it costs no window: with read-burst on read-sequential's lane this plan would need two.
    const reads = plan({ checks: ['QUOTA-READ'] });
    expect(reads.windowsNeeded).toBe(1);
  });

  it('does not put a task that reads on its organization first on the lane whose read quota the joint task spends', () => {
    const tier = plan().tiers[0]!;
    const exhausted = tier.joint.find((t) => t.kind === 'isolation')!.orgs[0]!;
    const lane = tier.lanes[exhausted]!;
    expect(lane.map((t) => t.kind)).toContain('concurrency');
    expect(lane[0]!.kind).not.toBe('concurrency');
    expect(lane[0]!.consumes).toBe('ingest');
  });

  it('needs as many windows as its longest lane, and spreads the quota tasks over the lanes', () => {
    const p = plan();
    const lengths = [...windowsByOrg(p).values()].map((w) => w.length);
    expect(p.windowsNeeded).toBe(Math.max(...lengths));
    expect(p.windowsNeeded).toBe(3);
    // Six quota tasks (isolation on two orgs) over three orgs: no lane longer than needed.
    expect(allTasks(p).filter((t) => t.consumes !== 'none')).toHaveLength(6);
    const single = plan({ orgs: { starter: ['solo'] } });
    expect(single.tiers[0]!.joint).toEqual([]);
    expect(single.windowsNeeded).toBe(5);
  });

  it('takes the longest lane over several tiers', () => {
    const p = plan({
      scenarios: [scenario('starter'), scenario('professional', { quota: { variants: ['sequential'] } })],
      orgs: { starter: orgLabels('starter', 3), professional: orgLabels('professional', 1) },
    });
    expect(p.tiers.map((t) => t.tier)).toEqual(['starter', 'professional']);
    expect(p.windowsNeeded).toBe(4);
  });

  it('learns the profile beside the lanes on an organization of its own, else first on a lane no joint task shares, else before the tier', () => {
    expect(plan().tiers[0]!.profile).toEqual({ org: 'starter-profile', runs: 'beside' });
    const onLane = plan({ profileOrgs: {} });
    expect(onLane.tiers[0]!.profile).toEqual({ org: 'starter-c', runs: 'first-on-lane' });
    // Kept brief, it holds its lane the one window it uses up: the tasks spread so that no lane needs more than before.
    expect(onLane.windowsNeeded).toBe(3);
    const twoOrgs = plan({ profileOrgs: {}, orgs: { starter: orgLabels('starter', 2) } });
    expect(twoOrgs.tiers[0]!.profile).toEqual({ org: 'starter-b', runs: 'before-tier' });
    expect(twoOrgs.windowsNeeded).toBe(
      plan({ orgs: { starter: orgLabels('starter', 2) } }).windowsNeeded + DISCOVERY_WINDOWS,
    );
    expect(DISCOVERY_WINDOWS).toBe(1);
    // A tier that spends no quota learns nothing.
    expect(plan({ checks: ['AUTH-MISSING'] }).tiers[0]!.profile).toBeNull();
  });

  it('plans no read-burst when the scenario leaves the burst variant out', () => {
    const p = plan({ scenarios: [scenario('starter', { quota: { variants: ['sequential'] } })] });
    expect(allTasks(p).map((t) => t.kind)).not.toContain('read-burst');
  });

  it('--checks: plans only the tasks that decide a selected check, and lists only those checks', () => {
    const p = plan({ checks: ['QUOTA-READ'] });
    expect(
      allTasks(p)
        .map((t) => t.kind)
        .sort(),
    ).toEqual(['read-burst', 'read-sequential']);
    for (const t of allTasks(p)) expect(t.checks).toEqual(['QUOTA-READ']);
    expect(p.tiers[0]!.collected).toEqual([]);
    expect(p.checks).toEqual(['QUOTA-READ']);
    expect(p.revocation).toBeNull();
    expect(p.windowsNeeded).toBe(1);

    const headers = plan({ checks: ['HDR-PRESENT'] });
    expect(allTasks(headers)).toEqual([]);
    expect(headers.tiers[0]!.collected).toEqual(['HDR-PRESENT']);
    expect(headers.windowsNeeded).toBe(0);

    const limit = plan({ checks: ['HDR-LIMIT', 'AUTH-MISSING'] as CheckId[] });
    expect(
      allTasks(limit)
        .map((t) => t.kind)
        .sort(),
    ).toEqual(['access', 'ingest-single', 'read-sequential']);
    expect([...limit.checks].sort()).toEqual(['AUTH-MISSING', 'HDR-LIMIT']);
  });

  it("honours the scenario's own check list, HDR-PRESENT included", () => {
    const p = plan({ scenarios: [scenario('starter', { checks: ['CONCURRENCY-CAP'] })] });
    expect(allTasks(p).map((t) => t.kind)).toEqual(['concurrency']);
    expect(p.tiers[0]!.collected).toEqual([]);
    expect(p.checks).toEqual(['CONCURRENCY-CAP']);
  });

  it('plans revocation only with a revocation org, and only when its checks are selected', () => {
    const org = { tier: 'starter', label: 'starter-revocation' } as const;
    expect(plan().revocation).toBeNull();
    expect(plan({ revocationOrg: org }).revocation).toEqual({
      kind: 'revocation',
      tier: 'starter',
      orgs: ['starter-revocation'],
      checks: ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'],
      consumes: 'none',
    });
    expect(plan({ revocationOrg: org, checks: ['QUOTA-READ'] }).revocation).toBeNull();
    expect(plan({ revocationOrg: org, checks: ['ROTATION'] }).revocation?.checks).toEqual(['ROTATION']);
  });

  it('plans sustained load only when LOAD-THRESHOLDS is asked for, on tiers with an org', () => {
    const withLoad = [
      scenario('starter', { load: sustainedLoad({ fleetOrgs: 2 }) }),
      scenario('enterprise', { load: sustainedLoad({ fleetOrgs: 2 }) }),
    ];
    expect(plan({ scenarios: withLoad }).load).toEqual([]);
    const p = plan({ scenarios: withLoad, checks: ['LOAD-THRESHOLDS'] });
    expect(p.load).toEqual([
      { kind: 'load', tier: 'starter', orgs: ['starter-a'], checks: ['LOAD-THRESHOLDS'], consumes: 'read' },
    ]);
    expect(p.checks).toEqual(['LOAD-THRESHOLDS']);
  });

  it('refuses sustained load against edges that are not loopback addresses, with the reason', () => {
    const withLoad = [scenario('starter', { load: sustainedLoad({ fleetOrgs: 2 }) })];
    const far = plan({ scenarios: withLoad, checks: ['LOAD-THRESHOLDS'], farEdges: ['https://api.example.com'] });
    expect(far.load).toEqual([]);
    expect(far.refused).toEqual([
      {
        kind: 'load',
        tier: 'starter',
        checks: ['LOAD-THRESHOLDS'],
        reason: { code: 'far-deployment', edges: ['https://api.example.com'] },
      },
    ]);
    // Its check is still the plan's: it is reported, skipped.
    expect(far.checks).toEqual(['LOAD-THRESHOLDS']);
    // Not asked for: nothing to refuse. Loopback edges (a delaying relay on loopback too): planned.
    expect(plan({ scenarios: withLoad, farEdges: ['https://api.example.com'] }).refused).toEqual([]);
    expect(plan({ scenarios: withLoad, checks: ['LOAD-THRESHOLDS'] }).load).toHaveLength(1);
  });

  it('skips a tier with no organizations, and names orgs a, b, c', () => {
    expect(orgLabels('professional', 3)).toEqual(['professional-a', 'professional-b', 'professional-c']);
    const p = plan({ scenarios: [scenario('starter'), scenario('enterprise')] });
    expect(p.tiers.map((t) => t.tier)).toEqual(['starter']);
  });
});
