/** The footprint said before a run: what it will write to the deployment, per organization, under the config's writes policy. */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { buildPlan } from '../../src/run/plan.ts';
import { orgLabels } from '../../src/provision/provision.ts';
import { planFootprint, plannedWrites } from '../../src/run/footprint-plan.ts';

const plan = buildPlan({
  farEdges: [],
  scenarios: [defineScenario({ tier: 'starter' })],
  orgs: { starter: orgLabels('starter', 3) },
  checks: ['SCOPE-ENFORCED', 'QUOTA-INGEST', 'CONCURRENCY-CAP'],
  revocationOrg: null,
});
const tasksOn = (org: string) =>
  [...plan.tiers[0]!.joint, ...Object.values(plan.tiers[0]!.lanes).flat()]
    .filter((t) => t.orgs[0] === org)
    .map((t) => t.kind);

describe('planFootprint', () => {
  it("writes: own: the scope check's writes exactly; 2n + 1 windows of the ingest quota for n upload tasks, at most", () => {
    const rows = planFootprint(plan, 'own', { contract: recruitingApi });
    const scoped = rows.find((r) => r.kind === 'jobs-created')!.org;
    expect(rows.filter((r) => r.org === scoped && r.kind !== 'resumes')).toEqual([
      { tier: 'starter', org: scoped, kind: 'jobs-created', planned: 1, bound: 'exact' },
      { tier: 'starter', org: scoped, kind: 'jobs-changed', planned: 2, bound: 'exact' },
      { tier: 'starter', org: scoped, kind: 'webhooks', planned: 1, bound: 'exact' },
    ]);
    // Starter ingests 10 a minute: n upload tasks on an organization (2n + 1) × 10, the scope check two
    // resumes, and the discovery one upload per attempt at its ingest question (three at most).
    for (const org of orgLabels('starter', 3)) {
      const uploadTasks = tasksOn(org).filter(
        (k) => k === 'ingest-single' || k === 'ingest-bulk' || k === 'concurrency',
      ).length;
      const scopeResumes = org === scoped ? 2 : 0;
      const discovery = plan.tiers[0]!.profile?.org === org ? 3 : 0;
      const resumes = rows.find((r) => r.org === org && r.kind === 'resumes');
      if (uploadTasks + scopeResumes + discovery === 0) expect(resumes).toBeUndefined();
      else {
        expect(resumes).toMatchObject({
          tier: 'starter',
          org,
          kind: 'resumes',
          planned: (uploadTasks > 0 ? (2 * uploadTasks + 1) * 10 : 0) + scopeResumes + discovery,
          bound: uploadTasks + discovery > 0 ? 'at-most' : 'exact',
        });
        expect(resumes!.quota).toEqual(
          uploadTasks > 0 ? { windows: 2 * uploadTasks + 1, figure: 10, maxFactor: 20, resumesPerUnit: 1 } : undefined,
        );
      }
    }
    expect(rows.some((r) => r.kind === 'resumes' && r.bound === 'at-most')).toBe(true);
  });

  it("by an organization's declared figures; where bulk uploads count per request, in a bulk upload's resumes", () => {
    const single = [...plan.tiers[0]!.joint, ...Object.values(plan.tiers[0]!.lanes).flat()].find(
      (t) => t.kind === 'ingest-single',
    )!.orgs[0]!;
    const row = (inputs: Parameters<typeof planFootprint>[2]) =>
      planFootprint(plan, 'own', inputs).find((r) => r.org === single && r.kind === 'resumes')!;
    const base = row({ contract: recruitingApi });
    const declared = row({ contract: recruitingApi, limitsOf: () => ({ ingest: 12 }) });
    // The ingest figure 10 → 12: each of the quota's windows holds two resumes more.
    expect(declared.quota).toMatchObject({ figure: 12, resumesPerUnit: 1 });
    expect(declared.planned - base.planned).toBe(base.quota!.windows * 2);
    const bulk = [...plan.tiers[0]!.joint, ...Object.values(plan.tiers[0]!.lanes).flat()].find(
      (t) => t.kind === 'ingest-bulk',
    )!.orgs[0]!;
    const perRequest = planFootprint(plan, 'own', { contract: recruitingApi, bulkCountsPerRequest: true }).find(
      (r) => r.org === bulk && r.kind === 'resumes',
    )!;
    // Starter's bulk uploads carry 5 resumes (the largest divisor of 10 up to half of it).
    expect(perRequest.quota).toMatchObject({ figure: 10, resumesPerUnit: 5 });
    expect(perRequest.planned).toBeGreaterThanOrEqual(perRequest.quota!.windows * 10 * 5);
  });

  it('writes: none: nothing', () => {
    expect(planFootprint(plan, 'none', { contract: recruitingApi })).toEqual([]);
  });
});

describe('plannedWrites', () => {
  it('says each organization\'s rows, bounds as "at most"', () => {
    const [policy, starter, ...rest] = plannedWrites(plan, 'own', { contract: recruitingApi });
    expect(policy).toMatch(/^writes: own: what the checks need, named tiergate and the run id/);
    expect(rest).toEqual([]);
    expect(starter).toMatch(/^ {2}starter: /);
    expect(starter).toContain(
      '1 jobs created, 2 job updates (its own job: updated, then archived), 1 webhook subscriptions',
    );
    expect(starter).toMatch(/at most \d+ resumes accepted/);
  });

  it("the revocation hook's keys, with figures when the trials are known, whatever the writes policy", () => {
    const withRevocation = buildPlan({
      farEdges: [],
      scenarios: [defineScenario({ tier: 'starter' })],
      orgs: { starter: orgLabels('starter', 3) },
      checks: ['REVOKE-LATENCY'],
      revocationOrg: { tier: 'starter', label: 'starter-revocation' },
    });
    const inputs = { contract: recruitingApi, revocationTrials: { trials: 20, parallel: 7 } };
    const line =
      '  revocation on starter-revocation: at most 27 keys (one per trial, 20 trials, and one more per chain of trials at once, at most 7) provisioned through your revocation hook, each revoked by the end (whatever the writes policy: the hooks are yours)';
    expect(plannedWrites(withRevocation, 'own', inputs).at(-1)).toBe(line);
    expect(plannedWrites(withRevocation, 'none', inputs).at(-1)).toBe(line);
  });

  it('writes: none: one line, nothing written', () => {
    expect(plannedWrites(plan, 'none', { contract: recruitingApi })).toEqual([
      'writes: none (config): nothing is created or changed; the ingest and concurrency checks are skipped, and the scope checks send writes a body the deployment refuses after its scope check',
    ]);
  });
});
