/**
 * Each quota fault's misbehaviour, seen over HTTP: the faulty target breaks exactly the promise the
 * fault names. The targets run on a ManualClock: every test's requests fall in one window, and the
 * racy fault's gap between reading and counting ends when the test moves the clock.
 */
import { describe, expect, it } from 'vitest';
import { RACY_GAP_MS, type FaultName } from '../../src/reference-server/faults.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import {
  call,
  count,
  keyOf,
  orgWithKey,
  sequential,
  startTestTarget,
  statuses,
  type Answer,
  type TestTarget,
  resumeUpload,
  bulkUpload,
} from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = resumeUpload;
const bulk = bulkUpload;

const clock = new ManualClock();
const withFault = (fault: FaultName | null): Promise<TestTarget> =>
  startTestTarget({ faults: fault ? [fault] : [], clock });

/** `n` sequential reads by one fresh starter org. */
async function starterReads(t: TestTarget, n: number): Promise<Answer[]> {
  const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
  return sequential(n, () => call(t.edge(), JOBS, { key }));
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
      const first = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const other = await keyOf(t.admin, first.orgId, ['jobs.read']);
      const own = await sequential(61, () => call(t.edge(), JOBS, { key: first.key }));
      const answers = [...own, await call(t.edge(), JOBS, { key: other.key })];
      expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
      expect(answers[61]!.status).toBe(second);
    }
  });

  it('global-quota makes orgs of a tier share one bucket; another tier is untouched', async () => {
    const t = await withFault('global-quota');
    const a = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const b = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const pro = await orgWithKey(t.admin, 'professional', ['jobs.read']);
    const first = await sequential(30, () => call(t.edge(), JOBS, { key: a.key }));
    const second = await sequential(31, () => call(t.edge(), JOBS, { key: b.key }));
    const answers = [...first, ...second, await call(t.edge(), JOBS, { key: pro.key })];
    expect(answers[30]!.remaining).toBe(29);
    expect(statuses(answers.slice(59, 61))).toEqual([200, 429]);
    expect([answers[61]!.status, answers[61]!.remaining]).toEqual([200, 299]);
  });

  it('racy-admission over-admits a concurrent burst but stays exact for sequential traffic', async () => {
    /** Send `n` at once; under the fault, admissions that fit when read wait out the gap on the clock: let it pass. */
    const together = async (racy: boolean, n: number, send: () => Promise<Answer>): Promise<Answer[]> => {
      const answers = Promise.all(Array.from({ length: n }, send));
      if (racy) {
        await clock.untilPending(n);
        clock.advance(RACY_GAP_MS);
      }
      return answers;
    };
    /** Ingest 59 of 60, then a burst of 10 single uploads. */
    const burst = async (t: TestTarget, racy: boolean) => {
      const { key } = await orgWithKey(t.admin, 'professional', ['resume.parse', 'resume.parse.bulk']);
      const [prefill] = await together(racy, 1, () => call(t.edge(), `${UPLOAD}/bulk`, { ...bulk(59), key }));
      const shots = await together(racy, 10, () => call(t.edge(), UPLOAD, { ...upload, key }));
      return { prefill: prefill!, shots };
    };
    const racy = await withFault('racy-admission');
    // The gaps below add up to 186 ms: all in one window.
    clock.toNextWindow(racy.windowMs);
    const over = await burst(racy, true);
    expect(over.prefill.status).toBe(202);
    // All ten read 59 counted before any of them counted itself.
    expect(count(over.shots, 200)).toBe(10);

    const clean = await burst(await withFault(null), false);
    expect(count(clean.shots, 200)).toBe(1);

    // One at a time, each read counts before the next one looks: exactly Limit, and the next one is
    // refused without waiting (nothing left to race for).
    const { key } = await orgWithKey(racy.admin, 'starter', ['jobs.read']);
    const reads = [];
    for (let i = 0; i < 60; i++) reads.push(...(await together(true, 1, () => call(racy.edge(), JOBS, { key }))));
    reads.push(await call(racy.edge(), JOBS, { key }));
    expect(statuses(reads)).toEqual([...Array<number>(60).fill(200), 429]);
    expect(reads.map((a) => a.remaining).slice(58)).toEqual([1, 0, 0]);
  });
});
