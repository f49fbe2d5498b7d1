import { describe, expect, it } from 'vitest';
import { retryAfterVerdict } from '../../src/verdicts/retry-after.ts';
import { T0, obs, rateLimitBody } from '../helpers/observations.ts';
import type { ObsInit } from '../helpers/observations.ts';

/** A 429 at server time T0 + 20 s in the window ending T0 + 60: the honest wait is 40 s. */
function rejected(init: ObsInit = {}) {
  return obs({
    status: 429,
    serverMs: (T0 + 20) * 1000 + 300,
    reset: T0 + 60,
    retryAfter: 40,
    body: rateLimitBody(40),
    remaining: 0,
    ...init,
  });
}
/** The request sent after waiting `waitS` from the 429's receipt. */
function after(r: ReturnType<typeof rejected>, waitS: number, init: ObsInit = {}) {
  return obs({ sentAt: r.headersAt! + waitS * 1000, serverMs: (T0 + 20) * 1000 + 300 + waitS * 1000, ...init });
}

describe('RETRY-AFTER', () => {
  it('passes: Retry-After = body = Reset − Date, and waiting it out is admitted', () => {
    const r = rejected();
    const a = after(r, 40);
    const f = retryAfterVerdict({ rejected: r, afterWait: a, waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual([r.id, a.id]);
    expect(f.data).toEqual({
      rejectedStatus: 429,
      retryAfter: 40,
      bodyRetryAfter: 40,
      reset: T0 + 60,
      date: T0 + 20,
      untilReset: 40,
      waitedMs: 40_000,
      afterWaitStatus: 200,
    });
  });

  it('fails Retry-After disagreeing with the body', () => {
    const r = rejected({ retryAfter: 45 });
    const f = retryAfterVerdict({ rejected: r, afterWait: after(r, 45), waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'retry-after-body-mismatch', retryAfter: 45, body: 40 },
      { code: 'retry-after-disagrees-with-reset', retryAfter: 45, untilReset: 40 },
    ]);
    expect(f.evidence).toContain(r.id);
  });

  it('fails a short Retry-After: still 429 after waiting it out', () => {
    const r = rejected({ retryAfter: 10, body: rateLimitBody(10) });
    const a = after(r, 10, { status: 429, retryAfter: 30, body: rateLimitBody(30) });
    const f = retryAfterVerdict({ rejected: r, afterWait: a, waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'retry-after-disagrees-with-reset', retryAfter: 10, untilReset: 40 },
      { code: 'refused-after-wait', retryAfter: 10, again: 30 },
    ]);
    expect(f.evidence).toEqual([r.id, a.id]);
  });

  it('allows one second of rounding between Retry-After and Reset − Date', () => {
    const r = rejected({ retryAfter: 41, body: rateLimitBody(41) });
    expect(retryAfterVerdict({ rejected: r, afterWait: after(r, 41), waitedMs: null, windowSeconds: 60 }).verdict).toBe(
      'pass',
    );
  });

  it('judges Reset − Date by the server clock when the client is 30 s off', () => {
    const r = rejected({ clockOffsetMs: 30_000, sentWall: (T0 + 20) * 1000 - 30_000 });
    expect(Date.parse(r.date!) - r.sentWall).toBeGreaterThanOrEqual(29_000);
    const f = retryAfterVerdict({ rejected: r, afterWait: after(r, 40), waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ untilReset: 40 });
  });

  it('fails a Retry-After that is an HTTP-date or garbage, and a body without the field', () => {
    const date = rejected({ retryAfter: 'Mon, 24 Nov 2025 16:01:00 GMT' });
    const f = retryAfterVerdict({ rejected: date, afterWait: null, waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'retry-after-http-date', raw: 'Mon, 24 Nov 2025 16:01:00 GMT' },
      { code: 'retry-after-untestable', raw: 'Mon, 24 Nov 2025 16:01:00 GMT' },
    ]);
    const garbage = rejected({
      retryAfter: '40s',
      body: { status: 'error', code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' },
    });
    const g = retryAfterVerdict({ rejected: garbage, afterWait: null, waitedMs: null, windowSeconds: 60 });
    expect(g.verdict).toBe('fail');
    expect(g.reasons).toEqual([
      { code: 'header-not-integer', header: 'Retry-After', raw: '40s', request: garbage.id },
      { code: 'retry-after-body-missing', request: garbage.id },
      { code: 'retry-after-untestable', raw: '40s' },
    ]);
    const withoutHeader = rejected({ retryAfter: null });
    const absent = retryAfterVerdict({ rejected: withoutHeader, afterWait: null, waitedMs: null, windowSeconds: 60 });
    expect(absent.verdict).toBe('fail');
    expect(absent.reasons).toContainEqual({ code: 'header-absent', header: 'Retry-After', request: withoutHeader.id });
  });

  it('is inconclusive when the wait was not honoured or not tried', () => {
    const r = rejected();
    const short = retryAfterVerdict({
      rejected: r,
      afterWait: after(r, 30, { status: 429 }),
      waitedMs: null,
      windowSeconds: 60,
    });
    expect(short.verdict).toBe('inconclusive');
    expect(short.reasons).toEqual([{ code: 'waited-too-little', waitedMs: 30_000, retryAfter: 40 }]);
    const none = retryAfterVerdict({ rejected: r, afterWait: null, waitedMs: null, windowSeconds: 60 });
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-request-after-wait' }]);
    const lost = retryAfterVerdict({
      rejected: r,
      afterWait: after(r, 40, { status: null }),
      waitedMs: null,
      windowSeconds: 60,
    });
    expect(lost.verdict).toBe('inconclusive');
    expect(lost.reasons).toEqual([{ code: 'unexpected-after-wait', outcome: 'ECONNRESET' }]);
  });

  it('is inconclusive when the wait cannot be measured (NaN)', () => {
    const r = rejected();
    const f = retryAfterVerdict({
      rejected: r,
      afterWait: after(r, 40, { status: 429 }),
      waitedMs: Number.NaN,
      windowSeconds: 60,
    });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'wait-unknown' }]);
  });

  it('is inconclusive when the request meant to be rejected was not a 429', () => {
    const f = retryAfterVerdict({ rejected: obs({ status: 200 }), afterWait: null, waitedMs: null });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'never-refused', sent: 1 }]);
    expect(f.data?.rejectedStatus).toBe(200);
  });

  it('notes, rather than fails, a Reset it cannot use for agreement (HDR-RESET judges it)', () => {
    const r = rejected({ reset: (T0 + 60) * 1000 });
    const f = retryAfterVerdict({ rejected: r, afterWait: after(r, 40), waitedMs: null, windowSeconds: 60 });
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([
      { code: 'reset-agreement-unchecked', reset: String((T0 + 60) * 1000), date: T0 + 20, windowSeconds: 60 },
    ]);
    expect(f.data).toMatchObject({ retryAfter: 40, reset: null, untilReset: null });
    const noDate = retryAfterVerdict({ rejected: rejected({ date: null }), afterWait: null, waitedMs: null });
    expect(noDate.reasons).toContainEqual({
      code: 'reset-agreement-unchecked',
      reset: String(T0 + 60),
      date: null,
      windowSeconds: 86_400,
    });
  });
});
