/**
 * §7, §8 quotas per organization and tier over real HTTP: exact limits, Remaining, Reset,
 * Retry-After, sharing within an org and isolation between orgs. The target runs on a ManualClock:
 * every test opens a fresh window at a known instant, and crosses a boundary by moving the clock,
 * so Reset, Retry-After and Date have exact expected values.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import {
  call,
  count,
  keyOf,
  orgWithKey,
  sequential,
  statuses,
  useTarget,
  type Answer,
  resumeUpload,
  bulkUpload,
} from '../helpers/target.ts';

const W = 2000;
/** Where in its window each test starts: not on a second, so rounding shows. */
const INTO = 300;
const clock = new ManualClock();
const target = useTarget({ windowMs: W, clock });

const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const BULK = '/recruiter/jobs/vendor/resume-analysis/bulk';
const resume = resumeUpload;
const bulk = bulkUpload;

/** Concurrent batches of `size` (kept under the concurrency cap), `total` requests in all. */
async function inBatches(total: number, size: number, send: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let start = 0; start < total; start += size) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, total - start) }, send))));
  }
  return out;
}

/** A fresh window, INTO ms in; its end (epoch ms). */
function freshWindow(): number {
  return clock.toNextWindow(W, INTO) + W;
}

/** Seconds of `Date` as the server states them at the clock's time. */
const dateNow = () => Math.floor(clock.now() / 1000) * 1000;

describe('exact quota per tier', () => {
  it('starter read: 60 admitted, the 61st is 429; Remaining 59..0 and 0 on 429; Limit 60', async () => {
    const { admin, edge } = target();
    const end = freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
    const answers = await sequential(62, () => call(edge(), JOBS, { key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429, 429]);
    expect(answers.map((a) => a.remaining)).toEqual([...Array.from({ length: 60 }, (_, i) => 59 - i), 0, 0]);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([60]));
    expect(new Set(answers.map((a) => a.reset))).toEqual(new Set([end / 1000]));
    expect(rateLimitErrorBody.parse(answers[60]!.json)).toMatchObject({ status: 'error', code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('starter ingest: 10 single uploads admitted, the 11th is 429', async () => {
    const { admin, edge } = target();
    freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['resume.parse']);
    const answers = await sequential(11, () => call(edge(), UPLOAD, { ...resume, key }));
    expect(statuses(answers)).toEqual([...Array<number>(10).fill(200), 429]);
    expect(answers.map((a) => a.limit)).toEqual(Array<number>(11).fill(10));
    expect(answers.at(-1)!.remaining).toBe(0);
  });

  it('bulk counts one unit per resume and is refused whole when it does not fit', async () => {
    const { admin, edge } = target();
    freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['resume.parse.bulk', 'resume.parse']);
    const first = await call(edge(), BULK, { ...bulk(7), key });
    const tooMany = await call(edge(), BULK, { ...bulk(4), key });
    const fits = await call(edge(), BULK, { ...bulk(3), key });
    const single = await call(edge(), UPLOAD, { ...resume, key });
    const answers = [first, tooMany, fits, single];
    expect(statuses(answers)).toEqual([202, 429, 202, 429]);
    expect(answers.map((a) => a.remaining)).toEqual([3, 0, 0, 0]);
  });

  it('professional: read 300 and ingest 60 exactly', async () => {
    const { admin, edge } = target();
    freshWindow();
    const { key } = await orgWithKey(admin, 'professional');
    const reads = await inBatches(300, 20, () => call(edge(), JOBS, { key }));
    const overRead = await call(edge(), JOBS, { key });
    const ingest = await call(edge(), BULK, { ...bulk(60), key });
    const overIngest = await call(edge(), UPLOAD, { ...resume, key });
    expect(count(reads, 200)).toBe(300);
    expect([overRead, ingest, overIngest].map((a) => [a.status, a.limit])).toEqual([
      [429, 300],
      [202, 60],
      [429, 60],
    ]);
  });

  it('enterprise custom limits: the org’s own figures are enforced and announced', async () => {
    const { admin, edge } = target();
    freshWindow();
    const { key } = await orgWithKey(admin, 'enterprise', undefined, { read: 2600, ingest: 700, concurrency: 150 });
    const reads = await inBatches(2600, 100, () => call(edge(), JOBS, { key }));
    const overRead = await call(edge(), JOBS, { key });
    const ingest = await call(edge(), BULK, { ...bulk(700), key });
    const overIngest = await call(edge(), BULK, { ...bulk(1), key });
    expect(count(reads, 200)).toBe(2600);
    expect(new Set(reads.map((a) => a.limit))).toEqual(new Set([2600]));
    expect([overRead, ingest, overIngest].map((a) => [a.status, a.limit])).toEqual([
      [429, 2600],
      [202, 700],
      [429, 700],
    ]);
  });
});

describe('windows, Reset and Retry-After', () => {
  it('Reset is the window end in epoch seconds, constant up to its last millisecond; then a fresh count', async () => {
    const { admin, edge } = target();
    const end = freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
    const early = await sequential(3, () => call(edge(), JOBS, { key }));
    clock.set(end - 1);
    const last = await call(edge(), JOBS, { key });
    clock.set(end);
    const next = await call(edge(), JOBS, { key });
    expect([...early, last].map((a) => [a.remaining, a.reset])).toEqual([
      [59, end / 1000],
      [58, end / 1000],
      [57, end / 1000],
      [56, end / 1000],
    ]);
    expect([next.remaining, next.reset]).toEqual([59, (end + W) / 1000]);
    // Date is the server clock's second, read with Reset: Reset lies in (Date, Date + W].
    expect([early[0]!.date, last.date, next.date]).toEqual([end - W, end - 1000, end]);
  });

  it('Retry-After equals retry_after_seconds and is the whole seconds left until Reset', async () => {
    const { admin, edge } = target();
    const end = freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
    await sequential(60, () => call(edge(), JOBS, { key }));
    const waits: [number, number, number][] = [];
    // 1700, 1000, 999 and 1 ms left in the window.
    for (const at of [end - W + INTO, end - 1000, end - 999, end - 1]) {
      clock.set(at);
      const refused = await call(edge(), JOBS, { key });
      expect([refused.status, refused.reset]).toEqual([429, end / 1000]);
      expect(refused.date).toBe(dateNow());
      waits.push([
        Number(refused.headers['retry-after']),
        rateLimitErrorBody.parse(refused.json).retry_after_seconds,
        end - at,
      ]);
    }
    expect(waits).toEqual([
      [2, 2, 1700],
      [1, 1, 1000],
      [1, 1, 999],
      [1, 1, 1],
    ]);
  });

  it('a client that waits Retry-After out is admitted in the next window, not a millisecond before', async () => {
    const { admin, edge } = target();
    const end = freshWindow();
    const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
    clock.set(end - 1000);
    const refused = (await sequential(61, () => call(edge(), JOBS, { key }))).at(-1)!;
    expect(refused.status).toBe(429);
    const retryAfterMs = Number(refused.headers['retry-after']) * 1000;
    clock.advance(retryAfterMs - 1);
    const early = await call(edge(), JOBS, { key });
    clock.advance(1);
    const retried = await call(edge(), JOBS, { key });
    expect([early.status, early.reset]).toEqual([429, refused.reset]);
    expect([retried.status, retried.remaining, retried.reset]).toEqual([200, 59, refused.reset + W / 1000]);
  });
});

describe('per organization, not per key', () => {
  it('two keys of one org share its quota; another org of the tier is untouched', async () => {
    const { admin, edge } = target();
    freshWindow();
    const first = await orgWithKey(admin, 'starter', ['jobs.read']);
    const second = await keyOf(admin, first.orgId, ['jobs.read']);
    const other = await orgWithKey(admin, 'starter', ['jobs.read']);
    const shared = await sequential(62, (i) => call(edge(), JOBS, { key: i % 2 === 0 ? first.key : second.key }));
    const isolated = await call(edge(), JOBS, { key: other.key });
    expect(count(shared.slice(0, 60), 200)).toBe(60);
    expect(statuses(shared.slice(60))).toEqual([429, 429]);
    expect(shared[60]!.remaining).toBe(0);
    expect([isolated.status, isolated.remaining]).toEqual([200, 59]);
  });

  it('refused and invalid requests consume nothing; HEAD /recruiter/bootstrap peeks without counting', async () => {
    const { admin, edge } = target();
    freshWindow();
    const { key, orgId } = await orgWithKey(admin, 'starter', ['jobs.read', 'jobs.create']);
    const unscoped = await keyOf(admin, orgId, []);
    const answers = [
      await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key }),
      await call(edge(), JOBS, { key: unscoped.key }),
      await call(edge(), '/recruiter/jobs/create', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
      await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key }),
      await call(edge(), JOBS, { key }),
      await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key }),
    ];
    expect(answers.map((a) => [a.status, a.remaining])).toEqual([
      [200, 60],
      [403, 60],
      [400, 60],
      [200, 60],
      [200, 59],
      [200, 59],
    ]);
  });
});
