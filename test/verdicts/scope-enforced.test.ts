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
    expect(f.actual).toBe('all 3 endpoints answered 403 without the scope and admitted the key holding it');
    expect(f.evidence).toEqual(pairs.flatMap((p) => [p.denied!.id, p.admitted!.id]));
    expect(f.data).toMatchObject({
      rows: [{ endpoint: 'jobs-list', deniedStatus: 403, admittedStatus: 200, outcome: 'pass' }, {}, {}],
    });
  });

  it('fails an endpoint that admits a key lacking its scope, citing that request', () => {
    const open = pair('webhooks', '/recruiter/webhooks', 'webhook.manage', 201, 201, 'POST');
    const f = scopeEnforcedVerdict([pair('jobs-list', '/recruiter/jobs', 'jobs.read', 403, 200), open], 403);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe('1 of 2 endpoints: POST /recruiter/webhooks admitted a key lacking webhook.manage (201)');
    expect(f.evidence).toEqual([open.denied!.id]);
  });

  it('fails a wrong rejection status, and a key holding the scope being refused', () => {
    const wrong = pair('jobs-list', '/recruiter/jobs', 'jobs.read', 404, 200);
    const refused = pair('jobs-create', '/recruiter/jobs/create', 'jobs.create', 403, 403, 'POST');
    const f = scopeEnforcedVerdict([wrong, refused], 403);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain('GET /recruiter/jobs answered 404 instead of 403 to a key lacking jobs.read (404)');
    expect(f.actual).toContain('POST /recruiter/jobs/create rejected a key holding jobs.create (403)');
    expect(f.evidence).toEqual([wrong.denied!.id, refused.admitted!.id]);
  });

  it('is inconclusive on a 429 or no response, never pass', () => {
    const limited = pair('jobs-list', '/recruiter/jobs', 'jobs.read', 429, 200);
    const lost = pair('candidate-read', '/recruiter/candidates/cand-1', 'candidate.read', 403, null);
    const f = scopeEnforcedVerdict([limited, lost], 403);
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toBe('0 of 2 endpoints enforce their scope; 2 could not be judged');
    expect(f.notes).toContain('GET /recruiter/jobs: 429 to the key lacking jobs.read');
    expect(f.notes).toContain(
      'GET /recruiter/candidates/cand-1: no response to the key holding candidate.read (ECONNRESET)',
    );
  });

  it('is inconclusive with a half-missing pair or no pairs', () => {
    const half: ScopePair = { ...pair('jobs-list', '/recruiter/jobs', 'jobs.read', 403, 200), admitted: null };
    expect(scopeEnforcedVerdict([half], 403).notes).toEqual([
      'GET /recruiter/jobs: no request with a key holding jobs.read',
    ]);
    expect(scopeEnforcedVerdict([], 403).verdict).toBe('inconclusive');
  });

  it('fail outweighs inconclusive', () => {
    const f = scopeEnforcedVerdict(
      [pair('a', '/a', 'jobs.read', 429, 200), pair('b', '/b', 'jobs.create', 200, 200)],
      403,
    );
    expect(f.verdict).toBe('fail');
  });
});
