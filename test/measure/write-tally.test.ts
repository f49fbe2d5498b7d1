import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { WriteTally } from '../../src/measure/write-tally.ts';
import { obs } from '../helpers/observations.ts';

describe('WriteTally: what a run wrote, from its observations', () => {
  it('counts writes per tier and endpoint as the spec names them, sent and admitted; reads are no writes', () => {
    const tally = new WriteTally(recruitingApi);
    tally.observe(obs({ method: 'GET', path: '/recruiter/jobs' }));
    tally.observe(obs({ method: 'HEAD', path: '/recruiter/bootstrap' }));
    tally.observe(obs({ method: 'POST', path: '/recruiter/jobs/create', status: 201 }));
    tally.observe(obs({ method: 'POST', path: '/recruiter/jobs/create', status: 403 }));
    tally.observe(obs({ method: 'PUT', path: '/recruiter/jobs/job-7f3a', status: 200 }));
    tally.observe(obs({ method: 'PUT', path: '/recruiter/jobs/tiergate-absent-1', status: 404 }));
    tally.observe(obs({ method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', status: null }));
    tally.observe(obs({ method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', status: 202, tier: 'enterprise' }));
    expect(tally.rows()).toEqual([
      { tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 2, admitted: 1 },
      { tier: 'starter', endpoint: 'PUT /recruiter/jobs/:id', sent: 2, admitted: 1 },
      { tier: 'starter', endpoint: 'POST /recruiter/jobs/vendor/resume-analysis', sent: 1, admitted: 0 },
      { tier: 'enterprise', endpoint: 'POST /recruiter/jobs/vendor/resume-analysis', sent: 1, admitted: 1 },
    ]);
  });
});
