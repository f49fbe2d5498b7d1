/**
 * The faults that change the limiter itself (a token bucket, per-route counters) or what it tells
 * (a drifting Reset, no headers at all), seen over HTTP and judged by the server's own answers. The
 * targets run on a ManualClock: refills and drifts are read at exact instants.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import {
  call,
  keyOf,
  orgWithKey,
  raw,
  sequential,
  startTestTarget,
  statuses,
  type TestTarget,
  resumeUpload,
} from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const CANDIDATE = '/recruiter/candidates/demo-1';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = resumeUpload;

const clock = new ManualClock();
const withFault = (fault: FaultName | null, windowMs = 2000): Promise<TestTarget> =>
  startTestTarget({ windowMs, faults: fault ? [fault] : [], clock });

describe('token-bucket', () => {
  const W = 2000;
  /** One token takes W/Limit: 33.3 ms, whole ms rounded up. */
  const ONE_TOKEN_MS = Math.ceil(W / 60);

  it('admits more than Limit within a window: a request W/Limit after exhaustion gets a token back', async () => {
    const t = await withFault('token-bucket', W);
    clock.toNextWindow(W, 500);
    const dryAt = clock.now();
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = await sequential(61, () => call(t.edge(), JOBS, { key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([60]));
    const refused = answers[60]!;
    expect(refused.remaining).toBe(0);
    // One token is the whole second at least.
    expect(Number(refused.headers['retry-after'])).toBe(1);
    expect(rateLimitErrorBody.parse(refused.json).retry_after_seconds).toBe(1);
    // Reset: when the bucket is full again, one window after it ran dry (in whole seconds, rounded up).
    expect(refused.reset).toBe(Math.ceil((dryAt + W) / 1000));

    clock.advance(ONE_TOKEN_MS - 1);
    const early = await call(t.edge(), JOBS, { key });
    clock.advance(1);
    const refilled = await call(t.edge(), JOBS, { key });
    // The 61st admission, ONE_TOKEN_MS into a window that admitted 60.
    expect([early.status, refilled.status]).toEqual([429, 200]);
  });

  it('the default target admits nothing more in the same window', async () => {
    const t = await withFault(null, W);
    const end = clock.toNextWindow(W, 500) + W;
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const first = await sequential(61, () => call(t.edge(), JOBS, { key }));
    clock.advance(3 * ONE_TOKEN_MS);
    const later = await call(t.edge(), JOBS, { key });
    clock.set(end - 1);
    const last = await call(t.edge(), JOBS, { key });
    expect(statuses([...first.slice(59), later, last])).toEqual([200, 429, 429, 429]);
  });
});

describe('per-route-quota', () => {
  it('after GET /recruiter/jobs is used up, another read endpoint is still admitted (the default target refuses it)', async () => {
    for (const [fault, expected] of [
      ['per-route-quota', [200, 59]],
      [null, [429, 0]],
    ] as const) {
      const t = await withFault(fault);
      const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read', 'candidate.read', 'resume.parse']);
      const jobs = await sequential(61, () => call(t.edge(), JOBS, { key }));
      const answers = [
        ...jobs,
        await call(t.edge(), CANDIDATE, { key }),
        await call(t.edge(), UPLOAD, { ...upload, key }),
      ];
      expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
      expect([answers[61]!.status, answers[61]!.remaining]).toEqual(expected);
      // Ingest keeps one quota per organization either way.
      expect([answers[62]!.status, answers[62]!.remaining]).toEqual([200, 9]);
    }
  });

  it('keys of one org still share each route’s counter', async () => {
    const t = await withFault('per-route-quota');
    const first = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const second = await keyOf(t.admin, first.orgId, ['jobs.read']);
    const answers = await sequential(61, (i) => call(t.edge(), JOBS, { key: i % 2 === 0 ? first.key : second.key }));
    expect(statuses(answers.slice(59))).toEqual([200, 429]);
  });
});

describe('reset-drifts', () => {
  it('Reset is one window from now, so it moves within a window while admission counts on', async () => {
    const W = 3000;
    const t = await withFault('reset-drifts', W);
    const start = clock.toNextWindow(W, 30);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const first = await call(t.edge(), JOBS, { key });
    clock.advance(1100);
    const second = await call(t.edge(), JOBS, { key });
    // Still one window (the count goes on), yet Reset moved: ceil(now in seconds) + W.
    expect([first.remaining, second.remaining]).toEqual([59, 58]);
    expect([first.reset, second.reset]).toEqual([(start + 1000 + W) / 1000, (start + 2000 + W) / 1000]);
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
    const own = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = await sequential(61, () => call(t.edge(), JOBS, { key: own.key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    for (const a of [...others, ...answers])
      expect(Object.keys(a.headers).filter((h) => h.startsWith('x-ratelimit-'))).toEqual([]);
    const refused = answers[60]!;
    const wait = rateLimitErrorBody.parse(refused.json).retry_after_seconds;
    expect(Number(refused.headers['retry-after'])).toBe(wait);
    expect(wait).toBeGreaterThanOrEqual(1);
    const garbage = await raw(t.edge(), 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage.toLowerCase()).not.toContain('x-ratelimit-');
  });
});
