import { describe, expect, it } from 'vitest';
import { footprintView } from '../../src/report/footprint.ts';

describe("the report's What the run wrote", () => {
  it('says the policy, the writes per tier and endpoint, and the fate of each thing created', () => {
    const view = footprintView({
      writes: 'own',
      written: [{ tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 2, admitted: 1 }],
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
