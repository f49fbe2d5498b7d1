import { describe, expect, it } from 'vitest';
import { scopeEnforcedVerdict, type ScopePair } from '../../src/verdicts/scope-enforced.ts';
import { obs } from '../helpers/observations.ts';

function pair(
  id: string,
  path: string,
  scope: string,
  denied: number | null,
  admitted: number | null,
  method: 'GET' | 'POST' = 'GET',
): ScopePair {
  const call = (status: number | null) => obs({ check: 'SCOPE-ENFORCED', phase: 'access', method, path, status });
  return { endpointId: id, method, path, scope, denied: call(denied), admitted: call(admitted) };
}

describe('SCOPE-ENFORCED', () => {
  it('passes 403 without the scope and any non-auth status with it', () => {
    const pairs = [
      pair('jobs-list', '/recruiter/jobs', 'jobs.read', 403, 200),
      pair('candidate-read', '/recruiter/candidates/cand-1', 'candidate.read', 403, 404),
      pair('webhooks', '/recruiter/webhooks', 'webhook.manage', 403, 422, 'POST'),
    ];
    const f = scopeEnforcedVerdict(pairs, 403);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual(pairs.flatMap((p) => [p.denied!.id, p.admitted!.id]));
    expect(f.data).toEqual({
      rows: [
        { endpoint: 'jobs-list', scope: 'jobs.read', deniedStatus: 403, admittedStatus: 200, outcome: 'pass' },
        {
          endpoint: 'candidate-read',
          scope: 'candidate.read',
          deniedStatus: 403,
          admittedStatus: 404,
          outcome: 'pass',
        },
        { endpoint: 'webhooks', scope: 'webhook.manage', deniedStatus: 403, admittedStatus: 422, outcome: 'pass' },
      ],
    });
  });

  it('fails an endpoint that admits a key lacking its scope, citing that request', () => {
    const open = pair('webhooks', '/recruiter/webhooks', 'webhook.manage', 201, 201, 'POST');
    const f = scopeEnforcedVerdict([pair('jobs-list', '/recruiter/jobs', 'jobs.read', 403, 200), open], 403);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'scope-not-enforced',
        method: 'POST',
        path: '/recruiter/webhooks',
        scope: 'webhook.manage',
        status: 201,
        request: open.denied!.id,
      },
    ]);
    expect(f.evidence).toEqual([open.denied!.id]);
  });

  it('fails a wrong rejection status, and a key holding the scope being refused', () => {
    const wrong = pair('jobs-list', '/recruiter/jobs', 'jobs.read', 404, 200);
    const refused = pair('jobs-create', '/recruiter/jobs/create', 'jobs.create', 403, 403, 'POST');
    const f = scopeEnforcedVerdict([wrong, refused], 403);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'scope-refusal-status',
        method: 'GET',
        path: '/recruiter/jobs',
        scope: 'jobs.read',
        status: 404,
        expected: 403,
        request: wrong.denied!.id,
      },
      {
        code: 'scoped-key-rejected',
        method: 'POST',
        path: '/recruiter/jobs/create',
        scope: 'jobs.create',
        status: 403,
        request: refused.admitted!.id,
      },
    ]);
    expect(f.evidence).toEqual([wrong.denied!.id, refused.admitted!.id]);
  });

  it('is inconclusive on a 429 or no response, never pass', () => {
    const limited = pair('jobs-list', '/recruiter/jobs', 'jobs.read', 429, 200);
    const lost = pair('candidate-read', '/recruiter/candidates/cand-1', 'candidate.read', 403, null);
    const f = scopeEnforcedVerdict([limited, lost], 403);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      {
        code: 'scope-probe-rate-limited',
        method: 'GET',
        path: '/recruiter/jobs',
        scope: 'jobs.read',
        key: 'lacking',
        request: limited.denied!.id,
      },
      {
        code: 'scope-probe-unanswered',
        method: 'GET',
        path: '/recruiter/candidates/cand-1',
        scope: 'candidate.read',
        key: 'holding',
        error: 'ECONNRESET',
        request: lost.admitted!.id,
      },
    ]);
  });

  it('is inconclusive with a half-missing pair or no pairs', () => {
    const half: ScopePair = { ...pair('jobs-list', '/recruiter/jobs', 'jobs.read', 403, 200), admitted: null };
    expect(scopeEnforcedVerdict([half], 403).reasons).toEqual([
      { code: 'scope-probe-missing', method: 'GET', path: '/recruiter/jobs', scope: 'jobs.read', key: 'holding' },
    ]);
    const none = scopeEnforcedVerdict([], 403);
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-endpoints-exercised' }]);
  });

  it('fail outweighs inconclusive', () => {
    const limited = pair('a', '/a', 'jobs.read', 429, 200);
    const open = pair('b', '/b', 'jobs.create', 200, 200);
    const f = scopeEnforcedVerdict([limited, open], 403);
    expect(f.verdict).toBe('fail');
    // The endpoint that could not be judged is named beside the one that failed.
    expect(f.reasons!.map((r) => r.code)).toEqual(['scope-not-enforced', 'scope-probe-rate-limited']);
  });
});
