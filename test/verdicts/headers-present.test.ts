import { describe, expect, it } from 'vitest';
import { headersPresentVerdict } from '../../src/verdicts/hdr-present.ts';
import { obs } from '../helpers/observations.ts';

describe('HDR-PRESENT', () => {
  it('passes all three on every response: 2xx, 429, 401, 403 and HEAD', () => {
    const list = [
      obs({ status: 200 }),
      obs({ status: 200, method: 'HEAD' }),
      obs({ status: 429 }),
      obs({ status: 401 }),
      obs({ status: 403 }),
    ];
    const f = headersPresentVerdict(list);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual([list[0]!.id, list[2]!.id, list[3]!.id, list[4]!.id]);
    expect(f.data).toEqual({
      byStatus: {
        '200': { total: 2, missing: 0 },
        '429': { total: 1, missing: 0 },
        '401': { total: 1, missing: 0 },
        '403': { total: 1, missing: 0 },
      },
      lacking: [],
    });
  });

  it('fails a 4xx without the headers, and a HEAD missing one', () => {
    const unauth = obs({ status: 401, limit: null, remaining: null, reset: null });
    const head = obs({ status: 200, method: 'HEAD', reset: null });
    const f = headersPresentVerdict([obs(), unauth, head]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'rate-limit-headers-missing',
        missing: 2,
        responses: 3,
        statuses: [200, 401],
        firstRequests: [unauth.id, head.id],
      },
    ]);
    expect(f.data?.lacking).toEqual([
      {
        request: unauth.id,
        status: 401,
        method: 'GET',
        path: '/recruiter/jobs',
        lacks: ['Limit', 'Remaining', 'Reset'],
      },
      { request: head.id, status: 200, method: 'HEAD', path: '/recruiter/bootstrap', lacks: ['Reset'] },
    ]);
    expect(f.evidence).toEqual([unauth.id, head.id]);
  });

  it("counts a garbage value as present (its value is other checks' business)", () => {
    expect(headersPresentVerdict([obs({ reset: 'soon', limit: '' })]).verdict).toBe('pass');
  });

  it('ignores transport failures, noting them, and is inconclusive when nothing answered', () => {
    const f = headersPresentVerdict([obs(), obs({ status: null })]);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'unanswered-ignored', requests: 1 }]);
    expect(f.data?.byStatus).toEqual({ '200': { total: 1, missing: 0 } });
    const none = headersPresentVerdict([obs({ status: null }), obs({ status: null })]);
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-answers-to-judge', sent: 2 }]);
    expect(headersPresentVerdict([]).reasons).toEqual([{ code: 'no-answers-to-judge', sent: 0 }]);
  });
});
