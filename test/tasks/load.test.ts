/**
 * LOAD-THRESHOLDS end to end against the reference target, 2 s windows: the clean target passes at
 * 1× and 2× quota and with a fleet; `quota-off-by-one` (Limit+1 admitted per window) fails; without
 * a way to provision orgs the fleet phase is skipped with a reason; refused by the plan (an edge that is
 * not loopback), it is skipped with the reason and sends nothing.
 */
import { describe, expect, it } from 'vitest';
import { defineScenario, type LoadShape } from '../../src/scenario/define.ts';
import { load } from '../../src/tasks/load.ts';
import { runTask } from '../../src/suite/task.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import { loadTestContext } from '../helpers/suite-context.ts';
import { whyLines } from '../../src/catalogue/reasons/index.ts';

const THRESHOLDS = {
  'http_req_duration{expected_response:true}': ['p(95)<1000'],
  'http_req_duration{status:429}': ['p(95)<1000'],
  http_req_failed: ['rate<0.01'],
};

const shape = (phases: LoadShape['phases']): LoadShape => ({ endpoint: 'jobs-list', phases, thresholds: THRESHOLDS });

/** The load task, as the run starts it, with `shape` as the scenario's load. */
const runLoad = (context: SuiteContext, org: OrgHandle, loadShape: LoadShape) =>
  runTask(load, context, {
    tier: org.tier,
    orgs: [org],
    scenario: defineScenario({ tier: org.tier, load: loadShape }),
    checks: null,
  });

interface WindowRow {
  org: string;
  admitted: number;
  rejected: number;
  limit: number | null;
  problem: string | null;
  phases: string[];
}

describe('loadTask', () => {
  it('passes on the clean target at 1× and 2× quota and with a fleet of orgs at quota', async () => {
    const { context, org } = await loadTestContext('professional', { windowMs: 2000 });
    const [result] = await runLoad(
      context,
      org,
      shape([
        { name: 'at-quota', rateMultiple: 1, windows: 1, orgs: 1 },
        { name: 'over-quota', rateMultiple: 2, windows: 1, orgs: 1 },
        { name: 'fleet', rateMultiple: 1, windows: 1, orgs: 3 },
      ]),
    );
    expect(result!.id).toBe('LOAD-THRESHOLDS');
    expect(result!.verdict, whyLines(result!).join('\n')).toBe('pass');
    const windows = result!.data!.windows as WindowRow[];
    expect(windows.every((w) => w.limit === 300 && w.admitted <= 300 && w.problem === null)).toBe(true);
    // 2× quota: one window admitted exactly Limit and rejected the rest.
    const over = windows.filter((w) => w.phases.includes('over-quota'));
    expect(over.some((w) => w.admitted === 300 && w.rejected >= 250)).toBe(true);
    // The fleet: three orgs.
    expect(new Set(windows.filter((w) => w.phases.includes('fleet')).map((w) => w.org)).size).toBe(3);
    const thresholds = result!.data!.thresholds as { verdict: string }[];
    expect(thresholds.map((t) => t.verdict)).toEqual(['pass', 'pass', 'pass']);
  });

  it('fails against quota-off-by-one: a window admits Limit + 1', async () => {
    const { context, org } = await loadTestContext(
      'starter',
      { windowMs: 2000, faults: ['quota-off-by-one'] },
      { fleet: false },
    );
    const [result] = await runLoad(context, org, shape([{ name: 'over-quota', rateMultiple: 2, windows: 1, orgs: 1 }]));
    expect(result!.verdict).toBe('fail');
    expect(result!.reasons).toContainEqual(
      expect.objectContaining({ code: 'window-over-limit', admitted: 61, limit: 60 }),
    );
    expect(result!.evidence.length).toBeGreaterThan(0);
  });

  it('skips the fleet phase with a reason when the target cannot provision orgs', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const [result] = await runLoad(
      context,
      org,
      shape([
        { name: 'at-quota', rateMultiple: 1, windows: 1, orgs: 1 },
        { name: 'fleet', rateMultiple: 1, windows: 1, orgs: 4 },
      ]),
    );
    expect(result!.reasons).toContainEqual({
      code: 'fleet-phases-skipped',
      tier: 'starter',
      needed: 4,
      phases: ['fleet'],
    });
    expect((result!.data!.phases as { phase: string }[]).map((p) => p.phase)).toEqual(['at-quota']);
    // At quota and no 2× phase: no 429 to judge 429 latency by, so that threshold has no data.
    expect(result!.verdict).toBe('inconclusive');
  });

  it('refused by the plan (an edge far away): skipped with the reason, nothing sent', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const reason = load.refusedFor!(['https://api.example.com'])!;
    const [result] = await runTask(load, context, {
      tier: org.tier,
      orgs: [],
      scenario: defineScenario({
        tier: org.tier,
        load: shape([{ name: 'at-quota', rateMultiple: 1, windows: 1, orgs: 1 }]),
      }),
      checks: ['LOAD-THRESHOLDS'],
      refused: reason,
    });
    expect({ verdict: result!.verdict, reasons: result!.reasons, org: result!.org }).toEqual({
      verdict: 'skipped',
      reasons: [{ code: 'far-deployment', edges: ['https://api.example.com'] }],
      org: null,
    });
    expect(context.recorder!.count).toBe(0);
    expect(load.refusedFor!([])).toBeNull();
  });
});
