import { describe, expect, it } from 'vitest';
import { rateLimitBodyVerdict } from '../../src/verdicts/err-429-body.ts';
import { reasonText } from '../../src/catalogue/reasons/index.ts';
import { obs, rateLimitBody } from '../helpers/observations.ts';

describe('ERR-429-BODY', () => {
  it('passes every 429 carrying the §7 body, ignoring non-429s', () => {
    const a = obs({ status: 429 });
    const b = obs({ status: 429, body: { ...rateLimitBody(12), request_id: 'r-1' } });
    const f = rateLimitBodyVerdict([obs({ status: 200 }), a, b]);
    expect(f.verdict).toBe('pass');
    expect(f.data).toEqual({ failing: 0, total: 2 });
    expect(f.evidence).toEqual([a.id, b.id]);
    expect(f.reasons).toEqual([{ code: 'non-429-ignored', observations: 1 }]);
  });

  it('fails a wrong code and names the field', () => {
    const bad = obs({ status: 429, body: { ...rateLimitBody(5), code: 'TOO_MANY_REQUESTS' } });
    const f = rateLimitBodyVerdict([obs({ status: 429 }), bad]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'rate-limit-body-invalid',
        request: bad.id,
        issues: [expect.stringMatching(/^code: .*RATE_LIMIT_EXCEEDED/)],
      },
    ]);
    expect(f.evidence).toEqual([bad.id]);
  });

  it('fails a missing, fractional, negative or string retry_after_seconds', () => {
    for (const retry of [undefined, 1.5, -1, '30']) {
      const body: Record<string, unknown> = { status: 'error', code: 'RATE_LIMIT_EXCEEDED', message: 'later' };
      if (retry !== undefined) body['retry_after_seconds'] = retry;
      const f = rateLimitBodyVerdict([obs({ status: 429, body })]);
      expect(f.verdict, String(retry)).toBe('fail');
      expect(f.reasons).toEqual([
        {
          code: 'rate-limit-body-invalid',
          request: expect.any(Number),
          issues: [expect.stringMatching(/^retry_after_seconds: /)],
        },
      ]);
    }
  });

  it('fails status and message of the wrong type, all reported', () => {
    const f = rateLimitBodyVerdict([
      obs({ status: 429, body: { status: 'fail', code: 'RATE_LIMIT_EXCEEDED', message: 42, retry_after_seconds: 3 } }),
    ]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'rate-limit-body-invalid',
        request: expect.any(Number),
        issues: [expect.stringMatching(/^status: /), expect.stringMatching(/^message: /)],
      },
    ]);
  });

  it('fails a body that is not JSON, quoting it with its Content-Type', () => {
    const text = obs({ status: 429, bodyText: 'Too Many Requests' });
    const f = rateLimitBodyVerdict([text, obs({ status: 429, bodyText: 'Slow down' }), obs({ status: 429 })]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'body-not-json', request: text.id, contentType: 'text/plain', excerpt: 'Too Many Requests', bytes: 17 },
      { code: 'rate-limit-bodies-failing', failing: 2, total: 3 },
    ]);
    expect(f.reasons?.map(reasonText)).toEqual([
      "body is not JSON (Content-Type text/plain): 'Too Many Requests'",
      '2 of 3 429 bodies fail',
    ]);
    const emptyBody = obs({ status: 429, bodyText: '', contentType: null });
    const empty = rateLimitBodyVerdict([emptyBody]);
    expect(empty.reasons).toEqual([
      { code: 'body-not-json', request: emptyBody.id, contentType: null, excerpt: '', bytes: 0 },
    ]);
    expect(empty.reasons?.map(reasonText)).toEqual(['body is empty (no Content-Type)']);
    const array = rateLimitBodyVerdict([obs({ status: 429, body: [1, 2] })]);
    expect(array.verdict).toBe('fail');
    expect(array.reasons).toEqual([
      { code: 'rate-limit-body-invalid', request: expect.any(Number), issues: [expect.stringMatching(/^\(body\): /)] },
    ]);
  });

  it('is inconclusive without a 429', () => {
    const f = rateLimitBodyVerdict([obs({ status: 200 }), obs({ status: null })]);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'never-refused', sent: 2 }]);
    expect(rateLimitBodyVerdict([]).verdict).toBe('inconclusive');
  });
});
