/**
 * The faults that change the limiter itself (a token bucket, per-route counters) or what it tells
 * (a drifting Reset, no headers at all), seen over HTTP and judged by the server's own answers.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import {
  call,
  inOneWindow,
  keyOf,
  orgWithKey,
  raw,
  sequential,
  sleep,
  startTestTarget,
  statuses,
  untilNextWindow,
  type Answer,
  type TestTarget,
} from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const CANDIDATE = '/recruiter/candidates/demo-1';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Jane Doe\nGo\n' } as const;

const withFault = (fault: FaultName | null, windowMs = 2000): Promise<TestTarget> => startTestTarget({ windowMs, faults: fault ? [fault] : [] });

describe('token-bucket', () => {
  const W = 2000;

  it('admits more than Limit within a window: a request W/Limit after exhaustion gets a token back', async () => {
    const t = await withFault('token-bucket', W);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers: Answer[] = [];
    // Until the bucket runs dry (bounded: the refill over this loop is far less than its length).
    for (let i = 0; i < 200 && answers.at(-1)?.status !== 429; i++) answers.push(await call(t.edge(), JOBS, { key }));
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    const admitted = answers.filter((a) => a.status === 200);
    expect(admitted.length).toBeGreaterThanOrEqual(60);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([60]));
    expect(refused.remaining).toBe(0);
    // One token takes W/Limit (34 ms): Retry-After is the whole second at least.
    expect(Number(refused.headers['retry-after'])).toBe(1);
    expect(rateLimitErrorBody.parse(refused.json).retry_after_seconds).toBe(1);
    // Reset: when the bucket is full again, at most one window away.
    expect(refused.reset * 1000).toBeGreaterThan(refused.sentAt);
    expect(refused.reset).toBeLessThanOrEqual(Math.ceil((refused.receivedAt + W) / 1000));

    await sleep(Math.ceil((3 * W) / 60));
    const refilled = await call(t.edge(), JOBS, { key });
    expect(refilled.status).toBe(200);
    // Over Limit admitted in less than one window.
    expect(admitted.length + 1).toBeGreaterThan(60);
    expect(refilled.receivedAt - answers[0]!.sentAt).toBeLessThan(W);
  });

  it('the default target admits nothing more in the same window', async () => {
    const t = await withFault(null, W);
    const { answers } = await inOneWindow(W, async () => {
      const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const first = await sequential(61, () => call(t.edge(), JOBS, { key }));
      await sleep(Math.ceil((3 * W) / 60));
      return { answers: [...first, await call(t.edge(), JOBS, { key })] };
    });
    expect(statuses(answers.slice(59))).toEqual([200, 429, 429]);
  });
});

describe('per-route-quota', () => {
  it('after GET /recruiter/jobs is used up, another read endpoint is still admitted (the default target refuses it)', async () => {
    for (const [fault, expected] of [
      ['per-route-quota', [200, 59]],
      [null, [429, 0]],
    ] as const) {
      const t = await withFault(fault);
      const { answers } = await inOneWindow(t.windowMs, async () => {
        const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read', 'candidate.read', 'resume.parse']);
        const jobs = await sequential(61, () => call(t.edge(), JOBS, { key }));
        return { answers: [...jobs, await call(t.edge(), CANDIDATE, { key }), await call(t.edge(), UPLOAD, { ...upload, key })] };
      });
      expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
      expect([answers[61]!.status, answers[61]!.remaining]).toEqual(expected);
      // Ingest keeps one quota per organization either way.
      expect([answers[62]!.status, answers[62]!.remaining]).toEqual([200, 9]);
    }
  });

  it('keys of one org still share each route’s counter', async () => {
    const t = await withFault('per-route-quota');
    const { answers } = await inOneWindow(t.windowMs, async () => {
      const first = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const second = await keyOf(t.admin, first.orgId, ['jobs.read']);
      return { answers: await sequential(61, (i) => call(t.edge(), JOBS, { key: i % 2 === 0 ? first.key : second.key })) };
    });
    expect(statuses(answers.slice(59))).toEqual([200, 429]);
  });
});

describe('reset-drifts', () => {
  it('Reset is one window from now, so it moves within a window while admission counts on', async () => {
    const W = 3000;
    const t = await withFault('reset-drifts', W);
    await untilNextWindow(W, 30);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const first = await call(t.edge(), JOBS, { key });
    await sleep(1100);
    const second = await call(t.edge(), JOBS, { key });
    // Still one window (the count goes on), yet Reset moved.
    expect([first.remaining, second.remaining]).toEqual([59, 58]);
    expect(second.reset).toBeGreaterThan(first.reset);
    for (const a of [first, second]) {
      expect(a.reset).toBeGreaterThanOrEqual(Math.ceil(a.sentAt / 1000) + W / 1000);
      expect(a.reset).toBeLessThanOrEqual(Math.ceil(a.receivedAt / 1000) + W / 1000);
    }
  });
});


describe('no-rate-headers', () => {
  it('no X-RateLimit-* on any answer; admission stays exact and the 429 keeps its body and Retry-After', async () => {
    const t = await withFault('no-rate-headers');
    const { key, orgId } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const unscoped = await keyOf(t.admin, orgId, []);
    const others = [
      await call(t.edge(), JOBS),
      await call(t.edge(), JOBS, { key: unscoped.key }),
      await call(t.edge(), '/recruiter/nowhere', { key }),
      await call(t.edge(), '/recruiter/bootstrap', { method: 'HEAD', key }),
    ];
    expect(statuses(others)).toEqual([401, 403, 404, 200]);
    const { answers } = await inOneWindow(t.windowMs, async () => {
      const own = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      return { answers: await sequential(61, () => call(t.edge(), JOBS, { key: own.key })) };
    });
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    for (const a of [...others, ...answers]) expect(Object.keys(a.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
    const refused = answers[60]!;
    const wait = rateLimitErrorBody.parse(refused.json).retry_after_seconds;
    expect(Number(refused.headers['retry-after'])).toBe(wait);
    expect(wait).toBeGreaterThanOrEqual(1);
    const garbage = await raw(t.edge(), 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage.toLowerCase()).not.toContain('x-ratelimit-');
  });
});
