/**
 * Each conformant variant's behaviour, seen over HTTP and judged by the server's own headers: what
 * the spec allows where it is silent (window start, what counts, class phases, how the cap answers),
 * alone and combined.
 * The targets run on a ManualClock, so where a window starts and ends is known to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { VariantName } from '../../src/reference-server/variants.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { InFlight } from '../../src/reference-server/limiter.ts';
import {
  call,
  keyOf,
  orgWithKey,
  sequential,
  startTestTarget,
  statuses,
  track,
  type TestTarget,
  resumeUpload,
  bulkUpload,
} from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const HEAD = { method: 'HEAD' } as const;
const BOOTSTRAP = '/recruiter/bootstrap';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = resumeUpload;
const bulk = bulkUpload;

const clock = new ManualClock();
const withVariants = (variants: VariantName[], windowMs = 2000, faults: FaultName[] = []): Promise<TestTarget> =>
  startTestTarget({ windowMs, variants, faults, clock });

/** The Reset (epoch s) of a window of `windowMs` opened now: its end, rounded up to a whole second. */
const openedNow = (windowMs: number) => Math.ceil((clock.now() + windowMs) / 1000);

describe('first-request-windows', () => {
  const W = 3000;

  it("an org's window starts at its first counted request: Reset = first + W, constant, and another org's differs", async () => {
    const t = await withVariants(['first-request-windows'], W);
    clock.toNextWindow(W, 250);
    const a = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const b = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    // Before any counted request, a HEAD reports the window a request now would open.
    const peek = await call(t.edge(), BOOTSTRAP, { ...HEAD, key: a.key });
    expect([peek.status, peek.remaining, peek.reset]).toEqual([200, 60, openedNow(W)]);
    clock.advance(800);
    const first = await call(t.edge(), JOBS, { key: a.key });
    expect([first.status, first.remaining, first.reset]).toEqual([200, 59, openedNow(W)]);
    expect(first.reset).toBeGreaterThan(peek.reset);
    clock.advance(1200);
    const second = await call(t.edge(), JOBS, { key: a.key });
    const other = await call(t.edge(), JOBS, { key: b.key });
    // Still a's first window (1.2 s of 3 s): same Reset, the count goes on.
    expect([second.remaining, second.reset]).toEqual([58, first.reset]);
    // b's window opened 1.2 s later: its own phase.
    expect([other.remaining, other.reset]).toEqual([59, openedNow(W)]);
    expect(other.reset).toBeGreaterThan(first.reset);
  });

  it('after a window ends nothing counts until the next request, which opens a new window at its own time', async () => {
    const W2 = 2000;
    const t = await withVariants(['first-request-windows'], W2);
    clock.toNextWindow(W2, 570);
    const opened = clock.now();
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = await sequential(61, () => call(t.edge(), JOBS, { key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    const refused = answers[60]!;
    expect(refused.reset).toBe(answers[0]!.reset);
    // Retry-After = ceil((end − now) / 1000), the end 2 s after the request that opened the window.
    clock.advance(1100);
    const later = await call(t.edge(), JOBS, { key });
    expect([refused.headers['retry-after'], later.headers['retry-after']]).toEqual(['2', '1']);
    expect(rateLimitErrorBody.parse(later.json).retry_after_seconds).toBe(1);
    clock.set(opened + W2 - 1);
    expect((await call(t.edge(), JOBS, { key })).status).toBe(429);
    // The window is over; idle past it, and off the second, nothing opens a new one.
    clock.set(opened + W2 + 430);
    const idle = await call(t.edge(), BOOTSTRAP, { ...HEAD, key });
    expect([idle.remaining, idle.reset]).toEqual([60, openedNow(W2)]);
    clock.advance(200);
    const next = await call(t.edge(), JOBS, { key });
    expect([next.status, next.remaining, next.reset]).toEqual([200, 59, openedNow(W2)]);
  });

  it('combines with head-counts: the first HEAD opens the window and counts', async () => {
    const t = await withVariants(['first-request-windows', 'head-counts'], W);
    clock.toNextWindow(W, 640);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const head = await call(t.edge(), BOOTSTRAP, { ...HEAD, key });
    expect([head.status, head.remaining, head.reset]).toEqual([200, 59, openedNow(W)]);
    clock.advance(1100);
    const read = await call(t.edge(), JOBS, { key });
    expect([read.remaining, read.reset]).toEqual([58, head.reset]);
  });

  it('combines with faults: reset-relative states the seconds left in the first-request window', async () => {
    const t = await withVariants(['first-request-windows'], W, ['reset-relative']);
    clock.toNextWindow(W, 640);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const first = await call(t.edge(), JOBS, { key });
    clock.advance(1100);
    const later = await call(t.edge(), JOBS, { key });
    // 3 s left, then 1.9 s.
    expect([first.reset, later.reset]).toEqual([3, 2]);
  });
});

describe('whole-second-windows', () => {
  it("an org's window starts at the whole second of its first counted request: Reset is that second + W, exactly", async () => {
    const W = 3000;
    const t = await withVariants(['whole-second-windows'], W);
    clock.toNextWindow(W, 250);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    clock.advance(1400);
    const opened = clock.now();
    const first = await call(t.edge(), JOBS, { key });
    const second = Math.floor(opened / 1000);
    expect([first.status, first.remaining, first.reset]).toEqual([200, 59, second + W / 1000]);
    // The window ends 650 ms before a full window after the first request: a read then opens a new one.
    clock.set((second + W / 1000) * 1000 - 1);
    expect((await call(t.edge(), JOBS, { key })).remaining).toBe(58);
    clock.set((second + W / 1000) * 1000);
    const next = await call(t.edge(), JOBS, { key });
    expect([next.remaining, next.reset]).toEqual([59, second + (2 * W) / 1000]);
  });
});

describe('head-counts', () => {
  it('each HEAD /recruiter/bootstrap consumes one read (the default target counts none)', async () => {
    for (const [variants, expected] of [
      [['head-counts'], [59, 58, 57]],
      [[], [60, 60, 59]],
    ] as const) {
      const t = await withVariants([...variants]);
      const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
      const head = () => call(t.edge(), BOOTSTRAP, { ...HEAD, key });
      const answers = [await head(), await head(), await call(t.edge(), JOBS, { key })];
      expect(answers.map((a) => a.remaining)).toEqual(expected);
    }
  });

  it('a HEAD over the read quota is refused with 429, Retry-After and no body', async () => {
    const t = await withVariants(['head-counts']);
    clock.toNextWindow(t.windowMs, 700);
    const { key } = await orgWithKey(t.admin, 'starter', []);
    const answers = await sequential(61, () => call(t.edge(), BOOTSTRAP, { ...HEAD, key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), 429]);
    const refused = answers[60]!;
    expect([refused.remaining, refused.text]).toEqual([0, '']);
    // 1.3 s left in the window.
    expect(refused.headers['retry-after']).toBe('2');
  });
});

describe('independent-class-windows', () => {
  const W = 3000;

  it('read windows sit on multiples of W, ingest windows half a window (1 s) later', async () => {
    const t = await withVariants(['independent-class-windows'], W);
    // 500 ms into a read window: the ingest window started 2.5 s ago and ends in 0.5 s.
    const readStart = clock.toNextWindow(W, 500);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read', 'resume.parse']);
    const read = await call(t.edge(), JOBS, { key });
    const ingest = await call(t.edge(), UPLOAD, { ...upload, key });
    expect([read.status, ingest.status]).toEqual([200, 200]);
    expect([read.reset * 1000, ingest.reset * 1000]).toEqual([readStart + W, readStart + 1000]);
    clock.advance(1000);
    const ingestLater = await call(t.edge(), UPLOAD, { ...upload, key });
    expect([ingestLater.remaining, ingestLater.reset * 1000]).toEqual([9, readStart + 1000 + W]);
  });

  it('the ingest quota comes back at its own boundary, the read count goes on', async () => {
    const t = await withVariants(['independent-class-windows'], W);
    // Just after a read boundary: the ingest boundary is then 1 s in, the next read one 3 s in.
    const readStart = clock.toNextWindow(W, 30);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read', 'resume.parse']);
    const read = await call(t.edge(), JOBS, { key });
    const uploads = await sequential(11, () => call(t.edge(), UPLOAD, { ...upload, key }));
    expect(statuses(uploads)).toEqual([...Array<number>(10).fill(200), 429]);
    const refused = uploads[10]!;
    expect([refused.reset * 1000, read.reset * 1000]).toEqual([readStart + 1000, readStart + W]);
    clock.set(refused.reset * 1000 - 1);
    const stillRefused = await call(t.edge(), UPLOAD, { ...upload, key });
    clock.set(refused.reset * 1000);
    const again = await call(t.edge(), UPLOAD, { ...upload, key });
    const readAgain = await call(t.edge(), JOBS, { key });
    expect(stillRefused.status).toBe(429);
    expect([again.status, again.remaining, again.reset]).toEqual([200, 9, refused.reset + W / 1000]);
    expect([readAgain.remaining, readAgain.reset]).toEqual([58, read.reset]);
  });
});

describe('counts-rejected', () => {
  it('refused requests count, admission stays exact, and the next window starts afresh', async () => {
    const t = await withVariants(['counts-rejected']);
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = await sequential(80, () => call(t.edge(), JOBS, { key }));
    expect(statuses(answers)).toEqual([...Array<number>(60).fill(200), ...Array<number>(20).fill(429)]);
    expect(answers.slice(58).map((a) => a.remaining)).toEqual([1, 0, ...Array<number>(20).fill(0)]);
    // The 20 counted refusals do not reach into the next window: exactly Limit again.
    clock.set(answers[79]!.reset * 1000);
    const next = await sequential(61, () => call(t.edge(), JOBS, { key }));
    expect(statuses(next)).toEqual([...Array<number>(60).fill(200), 429]);
    expect(next[0]!.remaining).toBe(59);
  });

  it('a refused bulk counts its resumes: a smaller one that would have fitted is refused too', async () => {
    for (const [variants, expected] of [
      [['counts-rejected'], [202, 429, 429]],
      [[], [202, 429, 202]],
    ] as const) {
      const t = await withVariants([...variants]);
      const { key } = await orgWithKey(t.admin, 'starter', ['resume.parse.bulk']);
      const bulkCall = (n: number) => call(t.edge(), `${UPLOAD}/bulk`, { ...bulk(n), key });
      const answers = [await bulkCall(7), await bulkCall(4), await bulkCall(3)];
      expect(statuses(answers)).toEqual(expected);
    }
  });
});

describe('counts-errors', () => {
  it('403 and 404 answers to an organization consume one read; 400 and 405 do not', async () => {
    const t = await withVariants(['counts-errors']);
    const { key, orgId } = await orgWithKey(t.admin, 'starter', ['jobs.read', 'jobs.create']);
    const unscoped = await keyOf(t.admin, orgId, []);
    const answers = [
      await call(t.edge(), JOBS, { key }),
      await call(t.edge(), JOBS, { key: unscoped.key }),
      await call(t.edge(), UPLOAD, { ...upload, key: unscoped.key }),
      await call(t.edge(), '/recruiter/nowhere', { key }),
      await call(t.edge(), JOBS, { method: 'DELETE', key }),
      await call(t.edge(), '/recruiter/jobs/create', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
      await call(t.edge(), BOOTSTRAP, { ...HEAD, key }),
      await call(t.edge(), JOBS, { key }),
    ];
    expect(answers.map((a) => [a.status, a.remaining])).toEqual([
      [200, 59],
      [403, 58],
      // A refused ingest call counts as a read too, and reports the read quota it drew on.
      [403, 57],
      [404, 56],
      [405, 56],
      [400, 56],
      [200, 56],
      [200, 55],
    ]);
    expect(answers[2]!.limit).toBe(60);
  });

  it('once the reads are used up, a forbidden or unknown call is answered 429 (the limiter stands before them)', async () => {
    const t = await withVariants(['counts-errors']);
    const { key, orgId } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const unscoped = await keyOf(t.admin, orgId, []);
    const reads = await sequential(60, () => call(t.edge(), JOBS, { key }));
    const answers = [
      ...reads,
      await call(t.edge(), JOBS, { key: unscoped.key }),
      await call(t.edge(), '/recruiter/nowhere', { key }),
    ];
    expect(statuses(answers.slice(58))).toEqual([200, 200, 429, 429]);
    for (const refused of answers.slice(60)) {
      expect(refused.remaining).toBe(0);
      expect(Number(refused.headers['retry-after'])).toBe(rateLimitErrorBody.parse(refused.json).retry_after_seconds);
    }
  });
});

describe('cap-queues', () => {
  const PARSE_MS = 1500;

  it('a request beyond the cap waits until a held one finishes, then is served: never more than the cap at once', async () => {
    const t = await startTestTarget({ windowMs: 2000, variants: ['cap-queues'], parseMs: PARSE_MS, clock });
    clock.toNextWindow(2000);
    const { key } = await orgWithKey(t.admin, 'starter', ['resume.parse', 'jobs.read']);
    const waiting = clock.pending;
    const held = Array.from({ length: 5 }, () => track(call(t.edge(), UPLOAD, { ...upload, key })));
    await clock.untilPending(waiting + 5);
    const extra = track(call(t.edge(), JOBS, { key }));
    // Queued: its bounded wait for a slot is on the clock, and it is not answered.
    await clock.untilPending(waiting + 6);
    expect(extra.done()).toBe(false);
    clock.advance(PARSE_MS);
    expect(statuses(await Promise.all(held.map((h) => h.answer)))).toEqual([200, 200, 200, 200, 200]);
    const served = await extra.answer;
    expect([served.status, served.remaining]).toEqual([200, 59]);
    // The slot came before the wait ran out: nothing is left on the clock.
    expect(clock.pending).toBe(waiting);
  });

  it('slots go to the waiting requests in arrival order; a request that waits too long gets null (the edge answers 429)', async () => {
    const slots = new InFlight();
    const held = Array.from({ length: 2 }, () => slots.acquire('org', 2)!);
    const order: string[] = [];
    const never = () => new Promise<never>(() => {});
    const a = slots.queue('org', 2, never).then((r) => (order.push('a'), r));
    const b = slots.queue('org', 2, never).then((r) => (order.push('b'), r));
    // Its patience runs out at once: no slot.
    expect(await slots.queue('org', 2, () => Promise.resolve())).toBeNull();
    held[1]!();
    const releaseA = await a;
    expect(releaseA).not.toBeNull();
    held[0]!();
    expect(await b).not.toBeNull();
    expect(order).toEqual(['a', 'b']);
    // Two held again (a and b): a third is not admitted at once.
    expect(slots.acquire('org', 2)).toBeNull();
    releaseA!();
    expect(slots.acquire('org', 2)).not.toBeNull();
  });
});

describe('synchronous-bulk', () => {
  const PARSE_MS = 1500;

  it('a bulk upload is parsed before its answer, holding its slot as long as a single upload; the default answers 202 at once', async () => {
    for (const variants of [['synchronous-bulk'], []] as VariantName[][]) {
      const t = await startTestTarget({ windowMs: 2000, variants, parseMs: PARSE_MS, clock });
      clock.toNextWindow(2000);
      const { key } = await orgWithKey(t.admin, 'starter', ['resume.parse.bulk']);
      const waiting = clock.pending;
      const answer = track(call(t.edge(), `${UPLOAD}/bulk`, { ...bulk(5), key }));
      if (variants.length === 0) {
        expect((await answer.answer).status).toBe(202);
        continue;
      }
      // Its parse time is on the clock, and it is not answered until that has passed.
      await clock.untilPending(waiting + 1);
      expect(answer.done()).toBe(false);
      clock.advance(PARSE_MS);
      const parsed = await answer.answer;
      expect([parsed.status, parsed.remaining]).toEqual([202, 5]);
    }
  });
});
