/** What the plan's ingest tasks need of the uploads, said before any quota is spent: by the published figures, or an organization's declared ones. */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { buildPlan } from '../../src/run/plan.ts';
import { orgLabels } from '../../src/provision/provision.ts';
import { plannedUploads } from '../../src/run/upload-plan.ts';

const plan = buildPlan({
  farEdges: [],
  scenarios: [defineScenario({ tier: 'enterprise' })],
  orgs: { enterprise: orgLabels('enterprise', 3) },
  checks: ['QUOTA-INGEST'],
  revocationOrg: null,
});

describe('plannedUploads', () => {
  it('with the upload time known: whether each ingest task fits, in one line', () => {
    const planned = plannedUploads(plan, recruitingApi, 3000, 300);
    expect(planned.map((p) => p.task.kind).sort()).toEqual(['ingest-bulk', 'ingest-single']);
    const single = planned.find((p) => p.task.kind === 'ingest-single')!;
    // 502 singles after the first in batches of 99: 6 batches, 8 upload times.
    expect(single.fit).toMatchObject({ fits: true, uploadTimes: 8 });
    expect(single.line).toMatch(
      /^ingest-single \[enterprise-[abc]\] \(QUOTA-INGEST\): 8 upload times one after another .* = 2\.4s at 300ms an upload, within the 3s window$/,
    );
  });

  it('with the upload time not known yet (a deployment): the longest an upload may take', () => {
    const single = plannedUploads(plan, recruitingApi, 60_000, null).find((p) => p.task.kind === 'ingest-single')!;
    expect(single.fit).toBeNull();
    expect(single.line).toMatch(
      /: 8 upload times one after another; fits a 1m window while an upload takes at most 7\.125s$/,
    );
  });

  it("by an organization's declared figures", () => {
    // 602 under a cap of 120 (batches of 119): 6 batches, as 502 in batches of 99; 2,002: 17.
    const declared = plannedUploads(plan, recruitingApi, 3000, null, () => ({ ingest: 600, concurrency: 120 })).find(
      (p) => p.task.kind === 'ingest-single',
    )!;
    expect(declared.line).toMatch(
      /: 8 upload times one after another; fits a 3s window while an upload takes at most 356ms$/,
    );
    const more = plannedUploads(plan, recruitingApi, 3000, null, () => ({ ingest: 2000, concurrency: 120 })).find(
      (p) => p.task.kind === 'ingest-single',
    )!;
    expect(more.line).toMatch(
      /: 19 upload times one after another; fits a 3s window while an upload takes at most 150ms$/,
    );
  });
});
