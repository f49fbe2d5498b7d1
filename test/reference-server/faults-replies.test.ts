/**
 * Each fault that bends the §7/§8 reply (headers, Retry-After, 429 body), seen over HTTP. The targets
 * run on a ManualClock: each test starts at a known instant of a fresh window, so Reset and
 * Retry-After have exact expected values, and waiting is moving the clock.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import { RETRY_AFTER_MISMATCH_S, RETRY_AFTER_SHORT_BY_S, type FaultName } from '../../src/reference-server/faults.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, sequential, startTestTarget, type Answer, type TestTarget } from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const clock = new ManualClock();
const withFault = (fault: FaultName, windowMs = 2000): Promise<TestTarget> =>
  startTestTarget({ windowMs, faults: [fault], clock });

/** Exhaust a fresh starter org's reads; the last answer is the 429. */
async function exhaust(t: TestTarget): Promise<{ answers: Answer[]; key: string }> {
  const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
  return { answers: await sequential(61, () => call(t.edge(), JOBS, { key })), key };
}

describe('reply faults', () => {
  it('reset-relative sends seconds until the reset instead of an epoch', async () => {
    const t = await withFault('reset-relative', 3000);
    const { key } = await orgWithKey(t.admin, 'starter');
    const resets: number[] = [];
    // 3000, 1500, 1000 and 1 ms before the window ends.
    for (const into of [0, 1500, 2000, 2999]) {
      clock.toNextWindow(3000, into);
      resets.push((await call(t.edge(), JOBS, { key })).reset);
    }
    expect(resets).toEqual([3, 2, 1, 1]);
  });

  it('reset-millis sends the window end in epoch milliseconds', async () => {
    const t = await withFault('reset-millis', 3000);
    const { key } = await orgWithKey(t.admin, 'starter');
    const start = clock.toNextWindow(3000, 1234);
    expect((await call(t.edge(), JOBS, { key })).reset).toBe(start + 3000);
  });

  it('retry-after-mismatch sends a Retry-After header larger than retry_after_seconds', async () => {
    const { answers } = await exhaust(await withFault('retry-after-mismatch'));
    const refused = answers.at(-1)!;
    const body = rateLimitErrorBody.parse(refused.json);
    expect(Number(refused.headers['retry-after'])).toBe(body.retry_after_seconds + RETRY_AFTER_MISMATCH_S);
  });

  it('retry-after-short states a wait that ends inside the window: waiting it out still gets 429', async () => {
    const t = await withFault('retry-after-short', 4000);
    const end = clock.toNextWindow(4000, 100) + 4000;
    const { answers, key } = await exhaust(t);
    const refused = answers.at(-1)!;
    const stated = Number(refused.headers['retry-after']);
    expect(rateLimitErrorBody.parse(refused.json).retry_after_seconds).toBe(stated);
    // 3.9 s are left: the honest wait is 4 s.
    expect([refused.reset * 1000, stated]).toEqual([end, 4 - RETRY_AFTER_SHORT_BY_S]);
    clock.advance(stated * 1000);
    const again = await call(t.edge(), JOBS, { key });
    expect([again.status, again.reset]).toEqual([429, refused.reset]);
  });

  it('headers-missing-on-errors drops X-RateLimit-* from 4xx other than 429', async () => {
    const t = await withFault('headers-missing-on-errors');
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.create']);
    const errors = [
      await call(t.edge(), JOBS),
      await call(t.edge(), JOBS, { key }),
      await call(t.edge(), '/nowhere', { key }),
      await call(t.edge(), JOBS, { method: 'PATCH', key }),
      await call(t.edge(), '/recruiter/jobs/create', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: '[',
      }),
    ];
    expect(errors.map((a) => a.status)).toEqual([401, 403, 404, 405, 400]);
    for (const a of errors) expect([a.limit, a.remaining, a.reset].every(Number.isNaN)).toBe(true);
    const ok = await call(t.edge(), '/recruiter/bootstrap', { key });
    expect(Number.isNaN(ok.limit)).toBe(false);
    const { answers } = await exhaust(t);
    expect(answers.at(-1)!.status).toBe(429);
    expect(answers.at(-1)!.remaining).toBe(0);
  });

  it('wrong-429-body sends code TOO_MANY_REQUESTS and no retry_after_seconds', async () => {
    const { answers } = await exhaust(await withFault('wrong-429-body'));
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    expect(rateLimitErrorBody.safeParse(refused.json).success).toBe(false);
    expect(refused.json).toMatchObject({ status: 'error', code: 'TOO_MANY_REQUESTS' });
    expect(refused.json).not.toHaveProperty('retry_after_seconds');
    expect(Number.isInteger(Number(refused.headers['retry-after']))).toBe(true);
  });
});
