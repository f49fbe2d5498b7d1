import { describe, expect, it } from 'vitest';
import { footprintView } from '../../src/report/footprint.ts';

describe("the report's What the run wrote", () => {
  it('says the policy, the writes per tier and endpoint, and the fate of each thing created', () => {
    const view = footprintView({
      writes: 'own',
      written: [{ tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 2, admitted: 1 }],
      announced: [
        { tier: 'starter', org: 'starter-a', kind: 'jobs-created', planned: 1, bound: 'exact', done: 1 },
        { tier: 'starter', org: 'starter-a', kind: 'resumes', planned: 30, bound: 'at-most', done: 21 },
        { tier: 'starter', org: 'starter-b', kind: 'resumes', planned: 30, bound: 'at-most', done: 31 },
        { tier: 'starter', org: 'starter-b', kind: 'jobs-changed', planned: 2, bound: 'exact', done: 1 },
        { tier: 'starter', org: 'starter-c', kind: 'webhooks', planned: 0, bound: 'exact', done: 1 },
      ],
      created: [
        { kind: 'job', tier: 'starter', org: 'starter-a', id: 'job-1f', cleanedUp: true },
        { kind: 'webhook', tier: 'starter', org: 'starter-a', id: null, cleanedUp: false },
        { kind: 'webhook', tier: 'starter', org: 'starter-b', id: 'wh-2', cleanedUp: true },
        { kind: 'job', tier: 'starter', org: 'starter-b', id: 'job-2f', cleanedUp: false },
      ],
      keys: { provisioned: 24, revoked: 20 },
    })!;
    expect(view.policy).toMatch(/^writes: own\./);
    expect(view.keys).toBe('Keys the revocation trials had the hook provision: 24; revoke: 20.');
    expect(view.written).toEqual([{ tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 2, admitted: 1 }]);
    // An exact figure is kept only by equality; a bound by anything up to it.
    expect(view.announced.map((r) => [r.org, r.announced, r.done, r.within, r.judgement])).toEqual([
      ['starter-a', '1', 1, true, 'as announced'],
      ['starter-a', 'at most 30', 21, true, 'as announced'],
      ['starter-b', 'at most 30', 31, false, 'more than announced'],
      ['starter-b', '2', 1, false, 'fewer than announced'],
      ['starter-c', '0', 1, false, 'not announced'],
    ]);
    expect(view.created.map((c) => c.text)).toEqual([
      'a job (job-1f) of starter-a: archived by the run',
      'a webhook subscription of starter-a: left behind: the spec gives no call to remove a subscription (config cleanup.webhook can)',
      'a webhook subscription (wh-2) of starter-b: removed by the cleanup hook',
      'a job (job-2f) of starter-b: left behind: the archive was not admitted',
    ]);
  });

  it('shows nothing for results that do not say (k6 runs, older results)', () => {
    expect(footprintView(undefined)).toBeNull();
  });
});
