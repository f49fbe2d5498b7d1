/**
 * Where the discovery sends its expiry read: after the used-up window surely ended, and clear of any
 * clock-aligned boundary that reads spread over the next window could not tell from one the read opened.
 * And what it learns behind a network that loses requests: the same as on a clean one.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { discover, exhaustQuota, expiryReadAt, readsUntilRefused } from '../../src/profile/discover.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { inferProfile } from '../../src/profile/infer.ts';
import { systemClock } from '../../src/util/io.ts';
import { startTestFlakyProxy } from '../helpers/flaky-proxy.ts';
import { keyOf, orgWithKey, startTestTarget } from '../helpers/target.ts';
import { obs } from '../helpers/observations.ts';

const W = 2000;

describe('expiryReadAt', () => {
  it('an end known exactly: about half a window after it', () => {
    expect(expiryReadAt({ earliest: 10_000, latest: 10_000 }, W, 100)).toBe(11_150);
  });

  it('an end known to a second: the middle of what is clear of every aligned boundary, after its latest', () => {
    // Aligned boundaries lie in [12,000, 13,000] (one window on). The read goes past the latest end, its
    // rounding allowance (200 ms at 2 s windows) and the clearance: in [11,300, 12,000).
    expect(expiryReadAt({ earliest: 10_000, latest: 11_000 }, W, 100)).toBe(11_650);
  });

  it('an end too coarse for any clear stretch: half a window after its latest', () => {
    expect(expiryReadAt({ earliest: 9_000, latest: 11_000 }, W, 100)).toBe(12_000);
  });
});

describe('exhaustQuota', () => {
  /** A limiter of 60 per window whose window turns once, when `turnAfter` reads have come; counts reads in flight. */
  function limiter(turnAfter: number) {
    let served = 0;
    let used = 0;
    let inFlight = 0;
    const widest: number[] = [];
    const read = async () => {
      inFlight += 1;
      widest.push(inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      served += 1;
      if (served === turnAfter + 1) used = 0;
      used += 1;
      return obs({ status: used > 60 ? 429 : 200, limit: 60, remaining: Math.max(0, 60 - used) });
    };
    return { read, widest };
  }
  const bounds = { left: 59, batch: 4, perWindow: 125, going: () => true, rateLimited: 429 };

  it('batches never more than Remaining, then one read alone meets the first 429', async () => {
    const { read, widest } = limiter(Infinity);
    const sent = await exhaustQuota(read, bounds);
    expect(sent.at(-1)!.status).toBe(429);
    expect(sent.filter((o) => o.status === 429)).toHaveLength(1);
    expect(sent.length).toBe(61);
    expect(Math.max(...widest)).toBe(4);
    // The limiter's 60 (Remaining, from the first batch on) in 15 batches of 4, then the 429 alone.
    expect(widest.slice(-5)).toEqual([1, 2, 3, 4, 1]);
  });

  it('a window that turns during the last reads is used up anew, batched again, not read one at a time', async () => {
    // The window turns with 3 left: one at a time by then.
    const { read, widest } = limiter(57);
    const sent = await exhaustQuota(read, bounds);
    expect(sent.at(-1)!.status).toBe(429);
    expect(sent.length).toBe(57 + 61);
    expect(Math.max(...widest.slice(60))).toBe(4);
  });

  it('never sends more at once than Remaining shows left', async () => {
    const { read, widest } = limiter(Infinity);
    for (let i = 0; i < 57; i++) await read();
    const sent = await exhaustQuota(read, { ...bounds, left: 3 });
    // The 3 left at once, then the 429 alone.
    expect(sent.map((o) => o.status)).toEqual([200, 200, 200, 429]);
    expect(widest.slice(57)).toEqual([1, 2, 3, 1]);
  });

  it('stops at its bound per window when no 429 comes', async () => {
    const { read } = limiter(Infinity);
    const sent = await exhaustQuota(async () => ({ ...(await read()), status: 200 }), {
      ...bounds,
      left: null,
      perWindow: 30,
    });
    expect(sent.length).toBe(30);
  });
});

describe('readsUntilRefused', () => {
  /**
   * A bucket that gives one request back for each round trip since the last read arrived: a read
   * arriving alone finds one, reads arriving together share one. (A loaded machine's round trips are
   * as long as a bucket's refill.)
   */
  function bucket() {
    let tokens = 0;
    let inFlight = 0;
    return async () => {
      if (inFlight === 0) tokens += 1;
      const admitted = tokens > 0;
      if (admitted) tokens -= 1;
      inFlight += 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return obs({ status: admitted ? 200 : 429, limit: 60, remaining: 0 });
    };
  }
  const going = () => true;

  it('a few together: a bucket that keeps up with reads one after another refuses some of them', async () => {
    const alone = await readsUntilRefused(bucket(), { count: 8, batch: 1, going });
    expect(alone.map((o) => o.status)).toEqual(Array(8).fill(200));
    const together = await readsUntilRefused(bucket(), { count: 8, batch: 4, going });
    expect(together.map((o) => o.status)).toEqual([200, 429, 429, 429]);
  });

  it('a refusal with quota left (a concurrency cap) is no refusal of the quota: one at a time from there', async () => {
    let inFlight = 0;
    const capped = async () => {
      inFlight += 1;
      const within = inFlight <= 2;
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return obs({ status: within ? 200 : 429, limit: 60, remaining: 40 });
    };
    const reads = await readsUntilRefused(capped, { count: 7, batch: 4, going });
    // Two refused in the first four; then one at a time, each admitted, up to the bound.
    expect(reads.map((o) => o.status)).toEqual([200, 200, 429, 429, 200, 200, 200]);
  });
});

describe('discover behind a network that loses requests', () => {
  /** The reference target's limiter (2 s windows), learned through a proxy dropping every `dropOneIn`th request at `dropAt`. */
  async function learnedThrough(dropOneIn: number, dropAt: 'request' | 'response') {
    const t = await startTestTarget({ windowMs: W });
    const org = await orgWithKey(t.admin, 'starter');
    const unscoped = await keyOf(t.admin, org.orgId, []);
    const proxy = await startTestFlakyProxy({ target: t.edge(0), dropOneIn, pick: 'every', dropAt });
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    const recorder = new ObservationRecorder(null);
    const prober = new HttpProber({
      edges: [{ label: 'edge-0', url: proxy.url }],
      contract: recruitingApi,
      clock: systemClock,
      epoch: 0,
      recorder,
      timeoutMs: 5000,
      connectionsPerEdge: 4,
      signal: controller.signal,
    });
    onTestFinished(() => prober.close());
    const record = await discover({
      prober,
      contract: recruitingApi,
      tier: 'starter',
      org: 'starter-a',
      keys: { primary: org.key, unscoped: unscoped.key },
      windowMs: W,
      clockOffsetMs: () => 0,
      signal: controller.signal,
      runId: 'test',
    });
    return {
      profile: inferProfile(record),
      lost: record.all.filter((o) => o.status === null).length,
      dropped: proxy.dropped,
    };
  }

  for (const dropAt of ['request', 'response'] as const) {
    it(`learns what it learns on a clean network, with every 6th request lost (dropped at the ${dropAt})`, async () => {
      const { profile, lost, dropped } = await learnedThrough(6, dropAt);
      expect(lost).toBe(dropped);
      expect(lost).toBeGreaterThan(5);
      // The reference target: aligned windows, epoch Reset, one read counter across routes, separate
      // ingest counter, and only counted reads count (HEAD, 404, 403, 401 do not).
      expect({
        algorithm: profile.read.algorithm.value,
        resetFormat: profile.read.resetFormat.value,
        head: profile.counts.head.value,
        notFound: profile.counts['not-found'].value,
        forbidden: profile.counts.forbidden.value,
        unauthenticated: profile.counts.unauthenticated.value,
        shared: profile.readSharedAcrossRoutes.value,
        independent: profile.classesIndependent.value,
      }).toEqual({
        algorithm: 'fixed-aligned',
        resetFormat: 'epoch-seconds',
        head: false,
        notFound: false,
        forbidden: false,
        unauthenticated: false,
        shared: true,
        independent: true,
      });
    }, 20_000);
  }
});
