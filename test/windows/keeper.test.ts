/**
 * The window keeper against a simulated limiter on fake timers: the keeper's clock, its sleeps and
 * the server's windows all move together, so each test reads as the server's timeline.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { HttpProber } from '../../src/measure/http-prober.ts';
import type { Observation } from '../../src/measure/observation.ts';
import type { LimiterProfile } from '../../src/profile/types.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import { networkMargins, roundTripModel } from '../../src/measure/network.ts';
import { WindowKeeper, type FreshWindow } from '../../src/windows/keeper.ts';
import { windowSafeEnd } from '../../src/measure/window.ts';
import { obs, resetObservations, T0 } from '../helpers/observations.ts';
import { SAMPLE_PROFILE } from '../helpers/sample-results.ts';

const W = 60_000;
const LIMIT = 60;
const ORG = { label: 'starter-a', tier: 'starter', primary: { key: 'xh_test_primary' } } as unknown as OrgHandle;
const learned = <T>(value: T) => ({ value, how: '', evidence: [] });
const ALIGNED: LimiterProfile = {
  ...SAMPLE_PROFILE,
  read: {
    ...SAMPLE_PROFILE.read,
    algorithm: learned('fixed-aligned' as const),
    resetSteady: learned(true),
    phase: learned({ ms: 0, doubtMs: 100, clockOffsetMs: 0 }),
  },
};

interface SimOptions {
  /** Windows aligned to multiples of W, or starting at an org's first counted request (to the ms, or kept to its whole second). */
  readonly windows?: 'aligned' | 'first-request' | 'first-request-seconds';
  /** Requests counted before the test begins in the window under way (someone else's). */
  readonly countedBefore?: number;
  readonly headers?: boolean;
  /** Answers without a response, by 1-based request number. */
  readonly unanswered?: readonly number[];
  readonly latencyMs?: number;
  /** Remaining always Limit − 1 (fault remaining-stuck). */
  readonly remainingStuck?: boolean;
  /** Reset always a full window from now (fault reset-drifts). */
  readonly resetDrifts?: boolean;
}

/**
 * A limiter on the fake clock (Date.now is the server's and our wall clock; monotonic 0 is the
 * test's start): each request counts one read and is answered `latencyMs` later with the §8 headers.
 */
function simulate(options: SimOptions = {}) {
  const epoch = Date.now();
  /** Each organization's window, by the key it sends. */
  const windows = new Map<string, { start: number; end: number; count: number }>();
  let n = 0;
  const sent: Observation[] = [];
  const windowAt = (key: string, t: number) => {
    const window = windows.get(key);
    if (window && t >= window.start && t < window.end) return window;
    const start =
      options.windows === 'first-request'
        ? t
        : options.windows === 'first-request-seconds'
          ? Math.floor(t / 1000) * 1000
          : Math.floor(t / W) * W;
    const next = { start, end: start + W, count: window === undefined ? (options.countedBefore ?? 0) : 0 };
    windows.set(key, next);
    return next;
  };
  const prober = {
    edges: [{ label: 'edge-0', url: 'http://127.0.0.1:1' }],
    now: () => Date.now() - epoch,
    send: async (_edge: unknown, request: { key: string }) => {
      n += 1;
      const org = request.key === ORG.primary.key ? ORG.label : request.key;
      const at = Date.now();
      const latency = options.latencyMs ?? 2;
      await new Promise((resolve) => setTimeout(resolve, latency));
      const sentAt = at - epoch;
      if (options.unanswered?.includes(n)) {
        const o = obs({ org, status: null, sentAt, sentWall: at, doneAt: sentAt + latency });
        sent.push(o);
        return o;
      }
      const w = windowAt(org, at);
      w.count += 1;
      const admitted = w.count <= LIMIT;
      const remaining = options.remainingStuck ? LIMIT - 1 : Math.max(0, LIMIT - w.count);
      const headers =
        options.headers === false
          ? { limit: null, remaining: null, reset: null }
          : {
              limit: LIMIT,
              remaining,
              reset: options.resetDrifts ? Math.ceil(at / 1000) + W / 1000 : Math.ceil(w.end / 1000),
            };
      const o = obs({
        org,
        tier: 'starter',
        path: '/recruiter/jobs',
        status: admitted ? 200 : 429,
        sentAt,
        sentWall: at,
        latencyMs: latency,
        serverMs: at,
        ...headers,
      });
      sent.push(o);
      return o;
    },
  } as unknown as HttpProber;
  return { prober, sent, epoch };
}

function keeperOver(
  sim: ReturnType<typeof simulate>,
  profile: LimiterProfile | null = null,
  profileNow: () => LimiterProfile | null = () => profile,
  profileLearned: () => Promise<LimiterProfile | null> = async () => profileNow(),
) {
  const keeper = new WindowKeeper({
    contract: recruitingApi,
    prober: sim.prober,
    windowMs: W,
    signal: new AbortController().signal,
    clockOffsetMs: () => 0,
    clockUncertaintyMs: () => 10,
    wallNow: () => Date.now(),
    profileOf: profileNow,
    profileLearned,
    // The simulated server answers in a few ms: the margins of a loopback network.
    margins: () => networkMargins(roundTripModel(1)),
  });
  const send = sim.prober.send.bind(sim.prober);
  // Every answer is seen by the keeper, as the recorder's listener does in a run.
  (sim.prober as { send: typeof send }).send = async (...args) => {
    const o = await send(...args);
    keeper.observe(o);
    return o;
  };
  return keeper;
}

/** Awaits `work` while the fake clock runs (at most `windows` windows). */
async function settle<T>(work: Promise<T>, windows = 3): Promise<T> {
  let result: { value: T } | null = null;
  void work.then((value) => (result = { value }));
  for (let i = 0; i < (windows * W) / 50 && result === null; i++) await vi.advanceTimersByTimeAsync(50);
  if (result === null) throw new Error(`did not settle within ${windows} windows`);
  return (result as { value: T }).value;
}

const readOf =
  (sim: ReturnType<typeof simulate>, org: OrgHandle = ORG) =>
  () =>
    sim.prober.send(
      sim.prober.edges[0]!,
      { method: 'GET', path: '/recruiter/jobs', key: org.primary.key },
      { check: 'QUOTA-READ', phase: 'sequential', tier: 'starter', org: org.label },
    );

/** Runs fresh() to its end on the fake clock; the opener is a read. */
async function fresh(
  sim: ReturnType<typeof simulate>,
  keeper: WindowKeeper,
  needMs = 1_000,
): Promise<FreshWindow & { at: number }> {
  const result = await settle(keeper.fresh([ORG], 'read', { first: readOf(sim), units: [1], needMs: () => needMs }));
  return { ...result, at: Date.now() - sim.epoch };
}

beforeEach(() => {
  resetObservations();
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

/** Sets the fake clock `ms` into a 60 s window (T0 is a multiple of 60 s). */
const intoWindow = (ms: number) => vi.setSystemTime(T0 * 1000 + W + ms);

describe('WindowKeeper: the server shows the window fresh', () => {
  it('takes a window under way with half of it gone where a third is left and twice the need', async () => {
    intoWindow(30_000);
    const sim = simulate();
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    expect(sim.sent).toHaveLength(1);
  });

  it('takes the window under way at once on an untouched organization, its end the one the opener announced', async () => {
    intoWindow(5_000);
    const sim = simulate();
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(sim.sent).toHaveLength(1);
    expect(result.first).toBe(sim.sent[0]);
    // Reset T0 + 120 may be rounded up: the window is sure to last until a second before it (less the clock's ±10 ms).
    expect(result.window).toMatchObject({
      prior: [],
      placeBy: 'reset',
      resetEpochS: T0 + 120,
      sureEndAt: W - 5_000 - 1_000 - 10,
    });
  });

  it('waits for the next window when less than a third of this one is left, and pins its boundary between two openers', async () => {
    intoWindow(45_000);
    const sim = simulate();
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [before, first] = sim.sent.slice(-2) as [Observation, Observation];
    // The last opener of the old window counted there; the first of the new one shows it fresh.
    expect(before.rateLimit.remaining.value).toBeLessThan(LIMIT - 1);
    expect(first.rateLimit.remaining.value).toBe(LIMIT - 1);
    expect(result.first).toBe(first);
    expect(result.window).toMatchObject({
      openedAt: first.sentAt,
      openedUncertaintyMs: first.sentAt - before.sentAt,
      prior: [],
    });
    expect(result.window.sureEndAt).toBeUndefined();
    // Openers go shortly before the announced end (its earliest), not all the way through the window.
    expect(sim.sent.length).toBeLessThan(200);
    expect(sim.sent[1]!.sentAt).toBeGreaterThan(15_000 - 1_000 - 400);
  });

  it('does not take a window in which something else counted (Remaining lower than Limit less the opener)', async () => {
    intoWindow(1_000);
    const sim = simulate({ countedBefore: 3 });
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok && result.first.rateLimit.remaining.value).toBe(LIMIT - 1);
    expect(sim.sent[0]!.rateLimit.remaining.value).toBe(LIMIT - 4);
    expect(result.at).toBeGreaterThanOrEqual(W - 1_000);
  });

  it('takes the window our last request showed fresh (a Retry-After wait-out), that request in its ledger', async () => {
    intoWindow(500);
    const sim = simulate();
    const keeper = keeperOver(sim);
    const waitOut = await settle(readOf(sim)());
    const result = await fresh(sim, keeper);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.window.prior).toEqual([waitOut]);
    expect(result.first.rateLimit.remaining.value).toBe(LIMIT - 2);
  });

  it('takes a window just begun for a check that needs almost all of it, but one under way only with twice the need', async () => {
    intoWindow(2_000);
    const sim = simulate();
    // 50 s needed: the window under way (57 s left, less a second of rounding) has not twice that.
    const result = await fresh(sim, keeperOver(sim), 50_000);
    expect(result.ok).toBe(true);
    expect(result.at).toBeGreaterThanOrEqual(W - 2_000);
  });

  it('opens a window with the opener where the profile says windows start at the first request', async () => {
    intoWindow(40_000);
    const sim = simulate({ windows: 'first-request' });
    const firstRequest: LimiterProfile = {
      ...ALIGNED,
      read: { ...ALIGNED.read, algorithm: learned('fixed-first-request' as const) },
    };
    const result = await fresh(sim, keeperOver(sim, firstRequest), 50_000);
    expect(result.ok && result.window).toMatchObject({ opensAtFirstRequest: true, openedAt: 0 });
    expect(sim.sent).toHaveLength(1);
  });

  it('takes a window just begun even where the need, estimated from crowded latencies, exceeds it: the next leaves no more', async () => {
    intoWindow(30_000);
    const sim = simulate();
    const result = await fresh(sim, keeperOver(sim), 100_000);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.first.sentAt).toBeGreaterThanOrEqual(W - 30_000);
    expect(result.first.sentAt).toBeLessThan(W - 30_000 + 1_000);
  });

  it('places a window that starts with the opener from the opener itself, not between it and an opener a full window before (a bucket)', async () => {
    intoWindow(10_000);
    const sim = simulate({ windows: 'first-request' });
    const refilling: LimiterProfile = {
      ...ALIGNED,
      read: { ...ALIGNED.read, algorithm: learned('refilling' as const), resetSteady: learned(null) },
    };
    // Learned only once the first opener went (the discovery runs beside): that one finds a read of
    // ours counted before it; the next waits a full window for the bucket to fill.
    let profile: LimiterProfile | null = null;
    const keeper = keeperOver(sim, null, () => profile);
    const opener = readOf(sim);
    await settle(opener());
    const first = () => opener().finally(() => (profile = refilling));
    const result = await settle(keeper.fresh([ORG], 'read', { first, units: [1], needMs: () => 35_000 }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.window).toMatchObject({
      opensAtFirstRequest: true,
      openedUncertaintyMs: 0,
      openedAt: result.first.sentAt,
    });
    // The opener a full window after the one that found the bucket short.
    expect(result.first.sentAt).toBeLessThan(W + 1_000);
  });

  it('ends a window opened by the first request no later than a Reset that comes before a full window (starts kept to whole seconds)', async () => {
    // The opener at 40.5 s opens a window the server starts at 40 s: it ends at 100 s, 59.5 s after it.
    intoWindow(40_500);
    const sim = simulate({ windows: 'first-request-seconds' });
    const firstRequest: LimiterProfile = {
      ...ALIGNED,
      read: { ...ALIGNED.read, algorithm: learned('fixed-first-request' as const) },
    };
    const result = await fresh(sim, keeperOver(sim, firstRequest), 50_000);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.window.opensAtFirstRequest).toBe(true);
    expect(windowSafeEnd(result.window, result.first)).toBeLessThanOrEqual(59_500);
  });

  it('takes the window an opener opens just after a whole second where starts are kept to whole seconds: no later one is known to last longer', async () => {
    // A check that needs more than any such window is known to last (its end known to a second, and
    // the clock's 10 ms): the window the opener at 40.5 s opens is known to end 58.4 s after it, the
    // next (opened past 100 s by an opener of a loaded machine, 25 ms a round trip) 59 s less the
    // opener's lateness; that one is as good as any, and taken.
    intoWindow(40_500);
    const sim = simulate({ windows: 'first-request-seconds', latencyMs: 25 });
    const firstRequest: LimiterProfile = {
      ...ALIGNED,
      read: { ...ALIGNED.read, algorithm: learned('fixed-first-request' as const) },
    };
    const result = await fresh(sim, keeperOver(sim, firstRequest), 59_500);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.first.sentAt).toBeGreaterThanOrEqual(59_500);
    expect(result.first.sentAt).toBeLessThan(59_600);
    expect(result.first.sentAt - 59_500).toBeGreaterThan(10);
    expect(windowSafeEnd(result.window, result.first)).toBeLessThanOrEqual(119_500);
  });

  it('waits a full window after a request that got no answer: it may have counted in a window none announced', async () => {
    intoWindow(1_000);
    const sim = simulate({ unanswered: [1] });
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    expect(sim.sent[1]!.sentAt).toBeGreaterThanOrEqual(W);
  });
});

describe('WindowKeeper: a network that loses a request', () => {
  it('pins the boundary across a lost opener, without waiting a full window: the next Remaining shows what it counted', async () => {
    intoWindow(45_000);
    // The first opener shows the window under way (too little of it left); openers from shortly before
    // its end count in it until one is lost; the next ones catch the boundary.
    const lost = 40;
    const sim = simulate({ unanswered: [lost] });
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(sim.sent[lost - 1]!.status).toBeNull();
    // Pinned within the openers' spacing in the window right after the one under way, not a window later.
    expect(result.first.sentAt).toBeGreaterThanOrEqual(W - 45_000);
    expect(result.first.sentAt).toBeLessThan(W - 45_000 + 1_000);
    expect(result.window.openedUncertaintyMs).toBeLessThan(100);
  });
});

describe('WindowKeeper: boundaries where the server shows little', () => {
  it('pins a boundary by the Reset advancing where Remaining does not count down (remaining-stuck)', async () => {
    intoWindow(45_000);
    const sim = simulate({ remainingStuck: true });
    const result = await fresh(sim, keeperOver(sim));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [before, first] = sim.sent.slice(-2) as [Observation, Observation];
    expect(first.rateLimit.reset.value).toBe(before.rateLimit.reset.value! + W / 1000);
    expect(result.window).toMatchObject({ openedAt: first.sentAt, openedUncertaintyMs: first.sentAt - before.sentAt });
  });

  it('waits until the window of a second organization (ORG-ISOLATED) is surely over: no opener shows its end', async () => {
    intoWindow(1_000);
    const sim = simulate({ windows: 'first-request' });
    const other = { label: 'starter-b', tier: 'starter', primary: { key: 'starter-b' } } as unknown as OrgHandle;
    const keeper = keeperOver(sim);
    // The other organization's last read opened a window ending at 60 s (Reset rounded up, 61 s at the latest).
    await settle(readOf(sim, other)());
    const result = await settle(
      keeper.fresh([ORG, other], 'read', { first: readOf(sim), units: [1], needMs: () => 1_000 }),
    );
    expect(result.ok).toBe(true);
    expect(sim.sent[1]!.sentAt).toBeGreaterThan(W + 1_000);
  });
});

describe('WindowKeeper on a Reset that drifts (always a full window from now)', () => {
  const DRIFTING: LimiterProfile = { ...ALIGNED, read: { ...ALIGNED.read, resetSteady: learned(false) } };
  const search = (sim: ReturnType<typeof simulate>, keeper: WindowKeeper) =>
    settle(keeper.fresh([ORG], 'read', { first: readOf(sim), units: [1], needMs: () => 50_000 }), 8);

  it('finds no window for a check that needs most of one while the profile is unknown: the drifting end places none', async () => {
    intoWindow(10_000);
    const sim = simulate({ resetDrifts: true });
    expect((await search(sim, keeperOver(sim))).ok).toBe(false);
  });

  it('searches reads once more from when the profile is learned, and pins a boundary where its phase places one', async () => {
    intoWindow(10_000);
    const sim = simulate({ resetDrifts: true });
    let profile: LimiterProfile | null = null;
    const learnedLate = new Promise<LimiterProfile>((resolve) =>
      setTimeout(() => resolve((profile = DRIFTING)), 4 * W),
    );
    const result = await search(
      sim,
      keeperOver(
        sim,
        null,
        () => profile,
        () => learnedLate,
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // Pinned just past a boundary of the aligned windows (multiples of W on the server's clock).
    const first = sim.sent.at(-1)!;
    expect(first.rateLimit.remaining.value).toBe(LIMIT - 1);
    expect((first.sentWall - T0 * 1000) % W).toBeLessThan(1_000);
    expect(first.sentAt).toBeGreaterThan(4 * W - 10_000);
  });
});

describe('WindowKeeper on a server without rate-limit headers (waits by the clock)', () => {
  const NO_HEADERS: LimiterProfile = {
    ...ALIGNED,
    headers: learned(false),
    read: { ...ALIGNED.read, phase: learned({ ms: 0, doubtMs: 500, clockOffsetMs: 0 }) },
  };

  it('waits for the profile, then past the next boundary and its doubt, and places the window by that boundary', async () => {
    intoWindow(59_800);
    const sim = simulate({ headers: false });
    const result = await fresh(sim, keeperOver(sim, NO_HEADERS));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // The boundary 200 ms ahead, its ±500 ms, and the end margin (the profile said no headers: no opener first).
    expect(result.first.sentAt).toBe(200 + 500 + 60);
    expect(result.window).toMatchObject({ openedAt: 200 - 500, openedUncertaintyMs: 0, placeBy: 'timing' });
  });

  it('waits a window more when our request may lie past the nearest boundary', async () => {
    intoWindow(59_950);
    const sim = simulate({ headers: false });
    const keeper = keeperOver(sim, NO_HEADERS);
    await settle(readOf(sim)());
    const result = await fresh(sim, keeper);
    // Our read, answered 2 ms in, may have counted in the window the boundary 50 ms ahead opens (±500 ms).
    expect(result.ok && result.first.sentAt).toBe(50 + W + 500 + 60);
  });
});
