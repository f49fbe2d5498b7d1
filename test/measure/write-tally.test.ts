import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { WriteTally, type PlannedWrite } from '../../src/measure/write-tally.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

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
    tally.observe(
      obs({ method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', status: 202, tier: 'enterprise' }),
    );
    expect(tally.rows()).toEqual([
      { tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 2, admitted: 1 },
      { tier: 'starter', endpoint: 'PUT /recruiter/jobs/:id', sent: 2, admitted: 1 },
      { tier: 'starter', endpoint: 'POST /recruiter/jobs/vendor/resume-analysis', sent: 1, admitted: 0 },
      { tier: 'enterprise', endpoint: 'POST /recruiter/jobs/vendor/resume-analysis', sent: 1, admitted: 1 },
    ]);
  });
});

const upload = (status: number, limit: number, resumes = 1, path = '/recruiter/jobs/vendor/resume-analysis') => ({
  ...obs({ method: 'POST', path, status, org: 'enterprise-a', tier: 'enterprise', limit }),
  resumes,
});

describe('WriteTally: beside what the plan announced', () => {
  it('counts resumes by what each admitted upload carried, and restates a quota bound at the Limit announced (within 20 times the figure)', () => {
    resetObservations();
    const tally = new WriteTally(recruitingApi);
    for (const o of [
      upload(200, 2000),
      upload(202, 2000, 10, '/recruiter/jobs/vendor/resume-analysis/bulk'),
      upload(429, 2000),
    ])
      tally.observe(o);
    const planned: PlannedWrite = {
      tier: 'enterprise',
      org: 'enterprise-a',
      kind: 'resumes',
      planned: 5 * 500 + 3,
      bound: 'at-most',
      quota: { windows: 5, figure: 500, maxFactor: 20, resumesPerUnit: 1 },
    };
    // Announced 2000: five windows of 2000, and the 3 exact resumes beside them.
    expect(tally.beside([planned])).toEqual([{ ...planned, planned: 5 * 2000 + 3, done: 11 }]);
  });

  it('a Limit announced beyond 20 times the figure is taken at 20 times; one below the figure at the figure', () => {
    resetObservations();
    const high = new WriteTally(recruitingApi);
    high.observe(upload(200, 1_000_000));
    const planned: PlannedWrite = {
      tier: 'enterprise',
      org: 'enterprise-a',
      kind: 'resumes',
      planned: 3 * 500,
      bound: 'at-most',
      quota: { windows: 3, figure: 500, maxFactor: 20, resumesPerUnit: 1 },
    };
    expect(high.beside([planned])[0]!.planned).toBe(3 * 500 * 20);
    const low = new WriteTally(recruitingApi);
    low.observe(upload(200, 50));
    expect(low.beside([planned])[0]!.planned).toBe(3 * 500);
  });
});
