/**
 * Each quota fault's misbehaviour, seen over HTTP: the faulty target breaks exactly the promise the
 * fault names. Every test runs inside one server window (fresh org, Reset checked, retried once).
 */
import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/reference-server/faults.ts';
import { call, count, inOneWindow, keyOf, orgWithKey, sequential, startTestTarget, statuses, type Answer, type TestTarget } from '../helpers/target.ts';

const WINDOW_MS = 2000;
const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Jane Doe\nRust\n' } as const;
const bulk = (n: number) =>
  ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resumes: Array.from({ length: n }, (_, i) => ({ name: `r${i}.txt`, content_base64: 'SmFuZQ==' })) }),
  }) as const;

const withFault = (fault: FaultName | null): Promise<TestTarget> => startTestTarget({ windowMs: WINDOW_MS, faults: fault ? [fault] : [] });

/** `n` sequential reads by one fresh starter org, in one window. */
async function starterReads(t: TestTarget, n: number): Promise<Answer[]> {
  const { answers } = await inOneWindow(WINDOW_MS, async () => {
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    return { answers: await sequential(n, () => call(t.edge(), JOBS, { key })) };
  });
  return answers;
}

describe('quota faults', () => {
  it('quota-off-by-one admits Limit+1 (Remaining floors at 0)', async () => {
    const answers = await starterReads(await withFault('quota-off-by-one'), 62);
    expect(statuses(answers)).toEqual([...Array<number>(61).fill(200), 429]);
    expect(answers.slice(58).map((a) => a.remaining)).toEqual([1, 0, 0, 0]);
  });

  it('quota-early answers 429 once Limit-1 were admitted', async () => {
    const answers = await starterReads(await withFault('quota-early'), 60);
    expect(statuses(answers)).toEqual([...Array<number>(59).fill(200), 429]);
    expect([answers[58]!.remaining, answers[59]!.remaining, answers[59]!.limit]).toEqual([1, 0, 60]);
  });

  it('remaining-stuck shows Limit-1 on every admitted response, while admission stays exact', async () => {
    const answers = await starterReads(await withFault('remaining-stuck'), 61);
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    expect(new Set(answers.slice(0, 60).map((a) => a.remaining))).toEqual(new Set([59]));
    expect(answers[60]!.remaining).toBe(0);
  });

  it('limit-header-wrong announces Limit+1 on reads (ingest unchanged) while admitting exactly Limit', async () => {
    const t = await withFault('limit-header-wrong');
    const answers = await starterReads(t, 61);
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([61]));
    // Remaining is consistent with the announced figure, so only the Limit header is wrong.
    expect(answers.map((a) => a.remaining)).toEqual([...Array.from({ length: 60 }, (_, i) => 60 - i), 0]);
    const { key } = await orgWithKey(t.admin, 'starter', ['resume.parse']);
    expect((await call(t.edge(), UPLOAD, { ...upload, key })).limit).toBe(10);
  });

  it('per-key-quota lets a second key of an exhausted org through (the clean target shares one quota)', async () => {
    for (const [fault, second] of [
      ['per-key-quota', 200],
      [null, 429],
    ] as const) {
      const t = await withFault(fault);
      const { answers } = await inOneWindow(WINDOW_MS, async () => {
        const first = await orgWithKey(t.admin, 'starter', ['jobs.read']);
        const other = await keyOf(t.admin, first.orgId, ['jobs.read']);
        const own = await sequential(61, () => call(t.edge(), JOBS, { key: first.key }));
        return { answers: [...own, await call(t.edge(), JOBS, { key: other.key })] };
      });
      expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
      expect(answers[61]!.status).toBe(second);
    }
  });

  it('global-quota makes orgs of a tier share one bucket; another tier is untouched', async () => {
    const t = await withFault('global-quota');
    const { answers } = await inOneWindow(WINDOW_MS, async () => {
      const a = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const b = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const pro = await orgWithKey(t.admin, 'professional', ['jobs.read']);
      const first = await sequential(30, () => call(t.edge(), JOBS, { key: a.key }));
      const second = await sequential(31, () => call(t.edge(), JOBS, { key: b.key }));
      return { answers: [...first, ...second, await call(t.edge(), JOBS, { key: pro.key })] };
    });
    expect(answers[30]!.remaining).toBe(29);
    expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
    expect([answers[61]!.status, answers[61]!.remaining]).toEqual([200, 299]);
  });

  it('racy-admission over-admits a concurrent burst but stays exact for sequential traffic', async () => {
    const burst = async (t: TestTarget) =>
      inOneWindow(WINDOW_MS, async () => {
        const { key } = await orgWithKey(t.admin, 'professional', ['resume.parse', 'resume.parse.bulk']);
        // Warm ten keep-alive connections so the burst leaves together.
        const warm = await Promise.all(Array.from({ length: 10 }, () => call(t.edge(), '/recruiter/bootstrap', { key })));
        const prefill = await call(t.edge(), `${UPLOAD}/bulk`, { ...bulk(59), key });
        const shots = await Promise.all(Array.from({ length: 10 }, () => call(t.edge(), UPLOAD, { ...upload, key })));
        return { answers: [...warm, prefill, ...shots], shots, prefill };
      });
    const racy = await withFault('racy-admission');
    const over = await burst(racy);
    expect(over.prefill.status).toBe(202);
    expect(count(over.shots, 200)).toBeGreaterThan(1);

    const clean = await burst(await withFault(null));
    expect(count(clean.shots, 200)).toBe(1);

    const sequentialReads = await starterReads(racy, 61);
    expect(statuses(sequentialReads)).toEqual([...Array<number>(60).fill(200), 429]);
  });
});
