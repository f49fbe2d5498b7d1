/**
 * The access task against the reference target (2 s windows): a read window used up just before it
 * (as a discovery the checks waited for leaves it) refuses its scoped reads with 429, which says
 * nothing of scopes: each is sent again once the window it announced is over, and the checks decide.
 */
import { describe, expect, it } from 'vitest';
import { access } from '../../src/tasks/access.ts';
import { endpointById } from '../../src/contract/lookup.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { requestFor } from '../../src/measure/requests.ts';
import { runTask } from '../../src/suite/task.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { loadTestContext } from '../helpers/suite-context.ts';

describe('the access task', () => {
  it('decides the scope checks in a read window used up before it: a 429 is sent again once the window is over', async () => {
    const { context, org } = await loadTestContext('starter', { windowMs: 2000 }, { fleet: false });
    const jobs = requestFor(endpointById(recruitingApi, 'jobs-list'), org.primary.key);
    const tags = { check: 'PROFILE', phase: 'exhaust', tier: org.tier, org: org.label } as const;
    // The quota (60) used up by bursts of 70 at once, not one read after another: on a loaded machine 80
    // sequential reads could straddle a 2 s boundary and never meet the 429.
    const burst = () =>
      Promise.all(Array.from({ length: 70 }, () => context.prober.send(context.prober.edges[0]!, jobs, tags)));
    let statuses = (await burst()).map((o) => o.status);
    for (let i = 0; i < 4 && !statuses.includes(429); i++) statuses = (await burst()).map((o) => o.status);
    expect(statuses).toContain(429);
    const results = await runTask(access, context, {
      tier: 'starter',
      orgs: [org],
      scenario: defineScenario({ tier: 'starter' }),
      checks: null,
    });
    const verdicts = Object.fromEntries(results.map((r) => [r.id, r.verdict]));
    expect(verdicts).toMatchObject({
      'SCOPE-LIST': 'pass',
      'SCOPE-ENFORCED': 'pass',
      'HEAD-BOOTSTRAP': 'pass',
      'AUTH-MISSING': 'pass',
    });
  });
});
