import { describe, expect, it } from 'vitest';
import { authRejected } from '../../src/verdicts/auth-missing-malformed-unknown.ts';
import { obs } from '../helpers/observations.ts';

const anonymous = { check: 'AUTH-MISSING', key: null } as const;

describe('AUTH-MISSING / AUTH-MALFORMED / AUTH-UNKNOWN / AUTH-REVOKED', () => {
  it('passes when every request is rejected with 401', () => {
    const list = [obs({ ...anonymous, status: 401 }), obs({ ...anonymous, status: 401, method: 'HEAD' })];
    const f = authRejected(list, 401);
    expect(f.verdict).toBe('pass');
    expect(f.expected).toBe('401 on every request (2 requests)');
    expect(f.actual).toBe('401 on all 2');
    expect(f.evidence).toEqual(list.map((o) => o.id));
  });

  it('fails a 2xx for a missing key', () => {
    const admitted = obs({ ...anonymous, status: 200 });
    const f = authRejected([obs({ ...anonymous, status: 401 }), admitted], 401);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe(`401 on 1 of 2; admitted: 200 GET /recruiter/jobs (#${admitted.id})`);
    expect(f.evidence).toEqual([admitted.id]);
  });

  it('fails another rejection status than the assumed one', () => {
    const forbidden = obs({ ...anonymous, status: 403 });
    const f = authRejected([forbidden], 401);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain(`403 instead of 401: 403 GET /recruiter/jobs (#${forbidden.id})`);
    expect(f.evidence).toEqual([forbidden.id]);
  });

  it('is inconclusive on a 429: the rate limiter answered before the key was judged', () => {
    const limited = obs({ ...anonymous, status: 429 });
    const f = authRejected([obs({ ...anonymous, status: 401 }), limited], 401);
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toContain(`429 GET /recruiter/jobs (#${limited.id})`);
    expect(f.evidence).toEqual([limited.id]);
  });

  it('still fails an admission even with transport failures beside it', () => {
    const f = authRejected([obs({ ...anonymous, status: null }), obs({ ...anonymous, status: 204 })], 401);
    expect(f.verdict).toBe('fail');
    expect(f.notes).toEqual(['one request got no response']);
  });

  it('is inconclusive when a request got no response, or none was sent', () => {
    const lost = obs({ ...anonymous, status: null, error: 'TIMEOUT' });
    const f = authRejected([obs({ ...anonymous, status: 401 }), lost], 401);
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toBe(`401 on 1 of 2; TIMEOUT on GET /recruiter/jobs (#${lost.id})`);
    expect(f.evidence).toEqual([lost.id]);
    expect(authRejected([], 401).verdict).toBe('inconclusive');
  });
});
