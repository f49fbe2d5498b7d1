import { describe, expect, it } from 'vitest';
import { authRejected } from '../../src/verdicts/auth-missing-malformed-unknown.ts';
import { obs } from '../helpers/observations.ts';

const anonymous = { check: 'AUTH-MISSING', key: null } as const;

describe('AUTH-MISSING / AUTH-MALFORMED / AUTH-UNKNOWN / AUTH-REVOKED', () => {
  it('passes when every request is rejected with 401', () => {
    const list = [obs({ ...anonymous, status: 401 }), obs({ ...anonymous, status: 401, method: 'HEAD' })];
    const f = authRejected(list, 401);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.data).toEqual({ expectedStatus: 401, sent: 2, rejected: 2 });
    expect(f.evidence).toEqual(list.map((o) => o.id));
  });

  it('fails a 2xx for a missing key', () => {
    const admitted = obs({ ...anonymous, status: 200 });
    const f = authRejected([obs({ ...anonymous, status: 401 }), admitted], 401);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'bad-key-admitted', admitted: 1, sent: 2, statuses: [200], requests: [admitted.id] },
    ]);
    expect(f.evidence).toEqual([admitted.id]);
  });

  it('fails another rejection status than the assumed one', () => {
    const forbidden = obs({ ...anonymous, status: 403 });
    const f = authRejected([forbidden], 401);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'bad-key-wrong-status', rejected: 1, expected: 401, statuses: [403], requests: [forbidden.id] },
    ]);
    expect(f.evidence).toEqual([forbidden.id]);
  });

  it('is inconclusive on a 429: the rate limiter answered before the key was judged', () => {
    const limited = obs({ ...anonymous, status: 429 });
    const f = authRejected([obs({ ...anonymous, status: 401 }), limited], 401);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'auth-probe-rate-limited', limited: 1, requests: [limited.id] }]);
    expect(f.evidence).toEqual([limited.id]);
  });

  it('still fails an admission even with transport failures beside it', () => {
    const lost = obs({ ...anonymous, status: null });
    const admitted = obs({ ...anonymous, status: 204 });
    const f = authRejected([lost, admitted], 401);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'bad-key-admitted', admitted: 1, sent: 2, statuses: [204], requests: [admitted.id] },
      { code: 'auth-probe-unanswered', unanswered: 1, requests: [lost.id] },
    ]);
  });

  it('is inconclusive when a request got no response, or none was sent', () => {
    const lost = obs({ ...anonymous, status: null, error: 'TIMEOUT' });
    const f = authRejected([obs({ ...anonymous, status: 401 }), lost], 401);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'auth-probe-unanswered', unanswered: 1, requests: [lost.id] }]);
    expect(f.evidence).toEqual([lost.id]);
    const none = authRejected([], 401);
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-bad-key-requests' }]);
  });
});
