/**
 * §7, §8 quotas per organization and tier over real HTTP: exact limits, Remaining, Reset,
 * Retry-After, sharing within an org and isolation between orgs. Every quota test provisions a
 * fresh org and runs inside one server window (checked with the server's Reset; retried once).
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import {
  call,
  count,
  inOneWindow,
  keyOf,
  orgWithKey,
  sequential,
  sleep,
  statuses,
  useTarget,
  type Answer,
} from '../helpers/target.ts';

const WINDOW_MS = 2000;
const small = useTarget({ windowMs: WINDOW_MS });
const large = useTarget({ windowMs: 4000 });

const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const BULK = '/recruiter/jobs/vendor/resume-analysis/bulk';
const resume = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Jane Doe\nTypeScript\n' } as const;
const bulk = (n: number) =>
  ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resumes: Array.from({ length: n }, (_, i) => ({ name: `r${i}.txt`, content_base64: 'SmFuZSBEb2U=' })) }),
  }) as const;

/** Concurrent batches of `size` (kept under the concurrency cap), `total` requests in all. */
async function inBatches(total: number, size: number, send: () => Promise<Answer>): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let start = 0; start < total; start += size) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(size, total - start) }, send))));
  }
  return out;
}

describe('exact quota per tier', () => {
  it('starter read: 60 admitted, the 61st is 429; Remaining 59..0 and 0 on 429; Limit 60', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
      return { answers: await sequential(62, () => call(edge(), JOBS, { key })) };
    });
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429, 429]);
    expect(answers.map((a) => a.remaining)).toEqual([...Array.from({ length: 60 }, (_, i) => 59 - i), 0, 0]);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([60]));
    expect(rateLimitErrorBody.parse(answers[60]!.json)).toMatchObject({ status: 'error', code: 'RATE_LIMIT_EXCEEDED' });
  });

  it('starter ingest: 10 single uploads admitted, the 11th is 429', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key } = await orgWithKey(admin, 'starter', ['resume.parse']);
      return { answers: await sequential(11, () => call(edge(), UPLOAD, { ...resume, key })) };
    });
    expect(statuses(answers)).toEqual([...Array<number>(10).fill(200), 429]);
    expect(answers.map((a) => a.limit)).toEqual(Array<number>(11).fill(10));
    expect(answers.at(-1)!.remaining).toBe(0);
  });

  it('bulk counts one unit per resume and is refused whole when it does not fit', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key } = await orgWithKey(admin, 'starter', ['resume.parse.bulk', 'resume.parse']);
      const first = await call(edge(), BULK, { ...bulk(7), key });
      const tooMany = await call(edge(), BULK, { ...bulk(4), key });
      const fits = await call(edge(), BULK, { ...bulk(3), key });
      const single = await call(edge(), UPLOAD, { ...resume, key });
      return { answers: [first, tooMany, fits, single] };
    });
    expect(statuses(answers)).toEqual([202, 429, 202, 429]);
    expect(answers.map((a) => a.remaining)).toEqual([3, 0, 0, 0]);
  });

  it('professional: read 300 and ingest 60 exactly', async () => {
    const { admin, edge } = large();
    const { answers } = await inOneWindow(4000, async () => {
      const { key } = await orgWithKey(admin, 'professional');
      const reads = await inBatches(300, 20, () => call(edge(), JOBS, { key }));
      const overRead = await call(edge(), JOBS, { key });
      const ingest = await call(edge(), BULK, { ...bulk(60), key });
      const overIngest = await call(edge(), UPLOAD, { ...resume, key });
      return { answers: [...reads, overRead, ingest, overIngest] };
    });
    expect(count(answers.slice(0, 300), 200)).toBe(300);
    expect(answers.slice(300).map((a) => [a.status, a.limit])).toEqual([
      [429, 300],
      [202, 60],
      [429, 60],
    ]);
  });

  it('enterprise custom limits: the org’s own figures are enforced and announced', async () => {
    const { admin, edge } = large();
    const { answers } = await inOneWindow(4000, async () => {
      const { key } = await orgWithKey(admin, 'enterprise', undefined, { read: 2600, ingest: 700, concurrency: 150 });
      const reads = await inBatches(2600, 100, () => call(edge(), JOBS, { key }));
      const overRead = await call(edge(), JOBS, { key });
      const ingest = await call(edge(), BULK, { ...bulk(700), key });
      const overIngest = await call(edge(), BULK, { ...bulk(1), key });
      return { answers: [...reads, overRead, ingest, overIngest] };
    });
    expect(count(answers.slice(0, 2600), 200)).toBe(2600);
    expect(new Set(answers.slice(0, 2600).map((a) => a.limit))).toEqual(new Set([2600]));
    expect(answers.slice(2600).map((a) => [a.status, a.limit])).toEqual([
      [429, 2600],
      [202, 700],
      [429, 700],
    ]);
  });
});

describe('Reset and Retry-After', () => {
  it('Reset is the window end in epoch seconds, constant within the window', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key } = await orgWithKey(admin, 'starter');
      return { answers: await sequential(5, () => call(edge(), JOBS, { key })) };
    });
    for (const a of answers) {
      expect(Number.isInteger(a.reset)).toBe(true);
      expect((a.reset * 1000) % WINDOW_MS).toBe(0);
      // The window containing the moment the server answered ends at Reset.
      expect(a.reset * 1000).toBeGreaterThan(a.sentAt);
      expect(a.reset * 1000).toBeLessThanOrEqual(a.receivedAt + WINDOW_MS);
    }
  });

  it('Retry-After equals retry_after_seconds, agrees with Reset, and waiting it out succeeds', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
      return { answers: await sequential(61, () => call(edge(), JOBS, { key })) };
    });
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    const body = rateLimitErrorBody.parse(refused.json);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBe(body.retry_after_seconds);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((refused.reset * 1000 - refused.receivedAt) / 1000)));
    expect(retryAfter).toBeLessThanOrEqual(Math.max(1, Math.ceil((refused.reset * 1000 - refused.sentAt) / 1000)));
  });

  it('a client that waits Retry-After out is admitted in the next window', async () => {
    const { admin, edge } = small();
    const run = await inOneWindow(WINDOW_MS, async () => {
      const own = await orgWithKey(admin, 'starter', ['jobs.read']);
      return { answers: await sequential(61, () => call(edge(), JOBS, { key: own.key })), key: own.key };
    });
    const refused = run.answers.at(-1)!;
    expect(refused.status).toBe(429);
    await sleep(Number(refused.headers['retry-after']) * 1000);
    const retried = await call(edge(), JOBS, { key: run.key });
    expect(retried.status).toBe(200);
    expect(retried.reset).toBeGreaterThan(refused.reset);
  });
});

describe('per organization, not per key', () => {
  it('two keys of one org share its quota; another org of the tier is untouched', async () => {
    const { admin, edge } = small();
    const run = await inOneWindow(WINDOW_MS, async () => {
      const first = await orgWithKey(admin, 'starter', ['jobs.read']);
      const second = await keyOf(admin, first.orgId, ['jobs.read']);
      const other = await orgWithKey(admin, 'starter', ['jobs.read']);
      const shared = await sequential(62, (i) => call(edge(), JOBS, { key: i % 2 === 0 ? first.key : second.key }));
      const isolated = await call(edge(), JOBS, { key: other.key });
      return { answers: [...shared, isolated] };
    });
    expect(count(run.answers.slice(0, 60), 200)).toBe(60);
    expect(statuses(run.answers.slice(60, 62))).toEqual([429, 429]);
    expect(run.answers[60]!.remaining).toBe(0);
    const isolated = run.answers[62]!;
    expect([isolated.status, isolated.remaining]).toEqual([200, 59]);
  });

  it('refused and invalid requests consume nothing; HEAD /recruiter/bootstrap peeks without counting', async () => {
    const { admin, edge } = small();
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const { key, orgId } = await orgWithKey(admin, 'starter', ['jobs.read', 'jobs.create']);
      const unscoped = await keyOf(admin, orgId, []);
      const head1 = await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key });
      const forbidden = await call(edge(), JOBS, { key: unscoped.key });
      const invalid = await call(edge(), '/recruiter/jobs/create', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{' });
      const head2 = await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key });
      const counted = await call(edge(), JOBS, { key });
      const head3 = await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key });
      return { answers: [head1, forbidden, invalid, head2, counted, head3] };
    });
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
