/** The footprint said before a run: what it will write to the deployment, per tier, under the config's writes policy. */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { buildPlan } from '../../src/run/plan.ts';
import { orgLabels } from '../../src/provision/provision.ts';
import { plannedWrites } from '../../src/run/footprint-plan.ts';

const plan = buildPlan({ scenarios: [defineScenario({ tier: 'starter' })], orgs: { starter: orgLabels('starter', 3) }, checks: ['SCOPE-ENFORCED', 'QUOTA-INGEST', 'CONCURRENCY-CAP'], revocationOrg: null });

describe('plannedWrites', () => {
  it('writes: own: per tier, the scope check\'s job and subscription, and each upload task\'s uploads by the figures', () => {
    const [policy, starter, ...rest] = plannedWrites(plan, 'own', recruitingApi);
    expect(policy).toBe('writes: own: what the checks need, named tiergate and the run id');
    expect(rest).toEqual([]);
    expect(starter).toContain('(SCOPE-ENFORCED): a job created, updated, then archived; a webhook subscription (left behind');
    // Starter: ingest 10 a minute, a cap of 5.
    expect(starter).toMatch(/ingest-single on starter-[abc]: about 11 single uploads/);
    expect(starter).toMatch(/ingest-bulk on starter-[abc]: about 11 resumes in bulk uploads/);
    expect(starter).toMatch(/concurrency on starter-[abc]: about 5 single uploads held at once/);
  });

  it("by an organization's declared figures", () => {
    const lines = plannedWrites(plan, 'own', recruitingApi, () => ({ ingest: 10 }));
    expect(lines[1]).toContain('about 11 single uploads');
  });

  it('writes: none: one line, nothing written', () => {
    expect(plannedWrites(plan, 'none', recruitingApi)).toEqual([
      'writes: none (config): nothing is created or changed; the ingest and concurrency checks are skipped, and the scope checks send writes a body the deployment refuses after its scope check',
    ]);
  });
});
