import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { HttpProber } from '../../src/measure/http-prober.ts';
import type { LimiterProfile } from '../../src/profile/types.ts';
import type { OrgHandle } from '../../src/procedures/handles.ts';
import { WindowKeeper } from '../../src/procedures/windows.ts';
import { CLIENT_WALL_AT_ZERO, T0, obs, resetObservations } from '../helpers/observations.ts';
import { SAMPLE_PROFILE } from '../helpers/sample-results.ts';

const WINDOW_MS = 60_000;
const ORG = { label: 'starter-a', tier: 'starter', primary: { key: 'xh_test_primary' } } as unknown as OrgHandle;
const ALIGNED: LimiterProfile = {
  ...SAMPLE_PROFILE,
  read: { ...SAMPLE_PROFILE.read, algorithm: { value: 'fixed-aligned', how: '', evidence: [] }, phase: { value: { ms: 0, doubtMs: 100, clockOffsetMs: 0 }, how: '', evidence: [] } },
};

/**
 * A keeper over a prober that never answers: a fresh window that needs polling comes back not ok
 * ("window sync failed"), so each test sees whether the keeper took a window without polling.
 */
function keeper(at: { readonly now: number }, profile: LimiterProfile = ALIGNED) {
  const prober = {
    edges: [{ label: 'edge-0', url: 'http://127.0.0.1:1' }],
    now: () => at.now,
    send: async () => obs({ status: null, org: ORG.label }),
  } as unknown as HttpProber;
  return new WindowKeeper({
    contract: recruitingApi,
    prober,
    windowMs: WINDOW_MS,
    signal: new AbortController().signal,
    clockOffsetMs: () => 0,
    clockUncertaintyMs: () => 10,
    wallNow: () => CLIENT_WALL_AT_ZERO + at.now,
    profileOf: () => profile,
  });
}

const read = (init: Parameters<typeof obs>[0]) => obs({ org: ORG.label, tier: 'starter', path: '/recruiter/jobs', ...init });

beforeEach(() => resetObservations());

describe('WindowKeeper on clock-aligned windows', () => {
  // Monotonic 59 s is a boundary: the client wall clock is T0 + 1 s at monotonic 0.
  const boundary = T0 * 1000 + WINDOW_MS - CLIENT_WALL_AT_ZERO;

  it('starts a check in the window a Retry-After wait-out opened, that read in its ledger', async () => {
    const at = { now: boundary + 1_000 };
    const windows = keeper(at);
    windows.observe(read({ status: 429, remaining: 0, reset: T0 + 60, sentAt: boundary - 300 }));
    const waitOut = read({ status: 200, remaining: 59, reset: T0 + 120, sentAt: boundary + 700, headersAt: boundary + 705 });
    windows.observe(waitOut);
    const sync = await windows.fresh([ORG], 'read');
    expect(sync.ok && sync.window).toMatchObject({ openedAt: boundary + 705, prior: [waitOut], resetEpochS: T0 + 120, opensAtFirstRequest: false });
  });

  it('polls for the next boundary once a third of that window is gone', async () => {
    const at = { now: boundary + 21_000 };
    const windows = keeper(at);
    windows.observe(read({ status: 429, remaining: 0, reset: T0 + 60, sentAt: boundary - 300 }));
    windows.observe(read({ status: 200, remaining: 59, reset: T0 + 120, sentAt: boundary + 700 }));
    expect((await windows.fresh([ORG], 'read')).ok).toBe(false);
  });

  it('polls when the server did not say whether that read counted (no Remaining)', async () => {
    const at = { now: boundary + 1_000 };
    const windows = keeper(at);
    windows.observe(read({ status: 429, limit: null, remaining: null, reset: null, sentAt: boundary - 300 }));
    windows.observe(read({ status: 200, limit: null, remaining: null, reset: null, sentAt: boundary + 700 }));
    expect((await windows.fresh([ORG], 'read')).ok).toBe(false);
  });

  it('takes the window under way when the organization sent nothing in it, with an empty ledger', async () => {
    const at = { now: boundary + 5_000 };
    const windows = keeper(at);
    windows.observe(read({ status: 200, remaining: 10, reset: T0 + 60, sentAt: boundary - 2_000 }));
    const sync = await windows.fresh([ORG], 'read');
    expect(sync.ok && sync.window).toMatchObject({ openedAt: boundary, prior: [], placeBy: 'reset' });
    // The ingest class of the organization is untouched too.
    expect((await windows.fresh([ORG], 'ingest')).ok).toBe(true);
  });

  it('finds the boundary through the clock estimate the phase was placed with, not a later one', async () => {
    // Placed while the server's clock was estimated 400 ms ahead of ours; the estimate says 0 now
    // (keeper's clockOffsetMs). The boundary the discovery found is 400 ms earlier on our clock.
    const placedAhead: LimiterProfile = { ...ALIGNED, read: { ...ALIGNED.read, phase: { value: { ms: 0, doubtMs: 100, clockOffsetMs: 400 }, how: '', evidence: [] } } };
    const sync = await keeper({ now: boundary + 5_000 }, placedAhead).fresh([ORG], 'read');
    expect(sync.ok && sync.window).toMatchObject({ openedAt: boundary - 400, openedUncertaintyMs: 1_100 });
  });

  it('polls when the organization sent a request in the window under way, or too much of it is gone', async () => {
    const at = { now: boundary + 5_000 };
    const touched = keeper(at);
    touched.observe(read({ status: 200, remaining: 58, reset: T0 + 120, sentAt: boundary + 1_000 }));
    expect((await touched.fresh([ORG], 'read')).ok).toBe(false);
    // Within the boundary's doubt (the phase's ±100 ms, and a second for an end rounded otherwise than
    // up), a request may have counted in either window.
    const atEdge = keeper(at);
    atEdge.observe(read({ status: 200, remaining: 10, reset: T0 + 60, sentAt: boundary - 60 }));
    expect((await atEdge.fresh([ORG], 'read')).ok).toBe(false);
    expect((await keeper({ now: boundary + 21_000 }).fresh([ORG], 'read')).ok).toBe(false);
  });

  it('takes a window under way only with time left for the check\'s round trips at the tier\'s recent round-trip time', async () => {
    const at = { now: boundary + 5_000 };
    const windows = keeper(at);
    expect((await windows.fresh([ORG], 'read', 1)).ok).toBe(false); // no round trip seen yet
    // Another organization of the tier answered in 100 ms: 53.9 s are sure to be left (60 s, 5 s gone, ±1.1 s).
    windows.observe(obs({ org: 'starter-b', tier: 'starter', path: '/recruiter/jobs', status: 200, sentAt: boundary + 4_000, doneAt: boundary + 4_100 }));
    expect((await windows.fresh([ORG], 'read', 200)).ok).toBe(true); // twice 200 × 100 ms: 40 s
    expect((await windows.fresh([ORG], 'read', 300)).ok).toBe(false); // 60 s
  });

  it('does not take a window under way within a second past the placed boundary: a server rounding its ends down or to nearest ends windows later', async () => {
    expect((await keeper({ now: boundary + 800 }).fresh([ORG], 'read')).ok).toBe(false);
    const sync = await keeper({ now: boundary + 1_200 }).fresh([ORG], 'read');
    expect(sync.ok && sync.window).toMatchObject({ openedAt: boundary, openedUncertaintyMs: 1_100 });
  });
});

describe('WindowKeeper on a server without rate-limit headers (waits by the clock)', () => {
  const boundary = T0 * 1000 + WINDOW_MS - CLIENT_WALL_AT_ZERO;
  const NO_HEADERS: LimiterProfile = {
    ...ALIGNED,
    headers: { value: false, how: '', evidence: [] },
    read: { ...ALIGNED.read, phase: { value: { ms: 0, doubtMs: 500, clockOffsetMs: 0 }, how: '', evidence: [] } },
  };
  afterEach(() => vi.useRealTimers());
  /** The phase's ±500 ms (its countdown read as rounded up). */
  const DOUBT = 500;

  /**
   * When fresh() resolves, ms after it was called, and the window it gives, on fake timers that move
   * the keeper's clock too; `lateMs`: the keeper's clock runs that much ahead of its timers once it waits.
   */
  async function waitFor(lastRead: number | null, calledAt: number, lateMs = 0): Promise<{ after: number; window: unknown }> {
    vi.useFakeTimers();
    const started = Date.now();
    const at = { late: 0, get now() { return calledAt + (Date.now() - started) + this.late; } };
    const windows = keeper(at, NO_HEADERS);
    if (lastRead !== null) windows.observe(read({ status: 200, limit: null, remaining: null, reset: null, sentAt: lastRead - 1, headersAt: lastRead, doneAt: lastRead }));
    let done: { after: number; window: unknown } | null = null;
    void windows.fresh([ORG], 'read').then((sync) => (done = { after: at.now - calledAt - lateMs, window: sync.ok && sync.window }));
    at.late = lateMs;
    await vi.advanceTimersByTimeAsync(2 * WINDOW_MS);
    return done!;
  }
  const resolvesAfter = async (lastRead: number | null, calledAt: number) => (await waitFor(lastRead, calledAt)).after;

  it('waits past the next boundary and its doubt', async () => {
    expect(await resolvesAfter(null, boundary - 200)).toBe(200 + DOUBT + 60);
  });

  it('waits a window more when the organization sent a request that may lie past the nearest boundary', async () => {
    // The boundary 50 ms ahead may have passed up to 450 ms ago: a read answered 50 ms ago may have counted in its window.
    expect(await resolvesAfter(boundary - 100, boundary - 50)).toBe(WINDOW_MS + 50 + DOUBT + 60);
  });

  it('places the window by the boundary it waited for, not by when its timer fired (late under load)', async () => {
    const { window } = await waitFor(null, boundary - 200, 300);
    expect(window).toMatchObject({ openedAt: boundary - DOUBT, openedUncertaintyMs: 0 });
  });
});
