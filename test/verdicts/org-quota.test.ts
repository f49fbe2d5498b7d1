import { describe, expect, it } from 'vitest';
import { orgIsolatedVerdict, orgSharedVerdict } from '../../src/verdicts/org-shared-isolated.ts';
import { T0, obs, sequentialQuota, type ObsInit } from '../helpers/observations.ts';
import type { Sequence } from '../helpers/observations.ts';

/** One more request right after a sequence, in the same window unless told otherwise. */
function next(seq: Sequence, init: ObsInit): ReturnType<typeof obs> {
  const last = seq.obs.at(-1)!;
  return obs({ sentAt: last.doneAt + 1, serverMs: Date.parse(last.date!) + 500, reset: seq.windowEnd, ...init });
}

describe('ORG-SHARED', () => {
  it('passes when the second key of the organization is refused after the first used the quota', () => {
    const seq = sequentialQuota({ limit: 60 });
    const keyB = next(seq, { status: 429, remaining: 0, key: 'xh_test_…zz99' });
    const f = orgSharedVerdict({ keyA: seq.obs, keyB, limit: 60, window: seq.window });
    expect(f.verdict).toBe('pass');
    expect(f.data).toEqual({
      limit: 60,
      refusedId: seq.obs[60]!.id,
      probeId: keyB.id,
      probeStatus: 429,
      probeRemaining: 0,
    });
    expect(seq.obs[60]!.status).toBe(429);
    expect(f.evidence).toEqual([seq.obs[60]!.id, keyB.id]);
  });

  it('fails when the second key is admitted: a per-key quota', () => {
    const seq = sequentialQuota({ limit: 60 });
    const keyB = next(seq, { status: 200, remaining: 59 });
    const f = orgSharedVerdict({ keyA: seq.obs, keyB, limit: 60, window: seq.window });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'quota-per-key', remaining: '59' }]);
    expect(f.evidence).toEqual([seq.obs[60]!.id, keyB.id]);
  });

  it('is inconclusive when the window rolled over before the second key asked', () => {
    const seq = sequentialQuota({ limit: 60 });
    const keyB = next(seq, {
      status: 200,
      remaining: 59,
      reset: seq.windowEnd + 60,
      serverMs: seq.windowEnd * 1000 + 5,
    });
    const f = orgSharedVerdict({ keyA: seq.obs, keyB, limit: 60, window: seq.window });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      { code: 'window-rolled-over-between', refusalReset: seq.windowEnd, requestReset: seq.windowEnd + 60 },
    ]);
  });

  it('is inconclusive when the first key was never refused, or the second got neither 2xx nor 429', () => {
    const seq = sequentialQuota({ limit: 60, sent: 60 });
    const f = orgSharedVerdict({ keyA: seq.obs, keyB: next(seq, { status: 429 }), limit: 60, window: seq.window });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'never-refused', sent: 60 }]);
    const full = sequentialQuota({ limit: 60 });
    const unauthorized = next(full, { status: 401 });
    const g = orgSharedVerdict({ keyA: full.obs, keyB: unauthorized, limit: 60, window: full.window });
    expect(g.verdict).toBe('inconclusive');
    expect(g.reasons).toEqual([
      { code: 'neither-admitted-nor-refused', party: 'second key', outcome: '401', requestId: unauthorized.id },
    ]);
  });

  it('takes the first key rejected again right after as proof, whatever Reset says (a Reset that is no epoch, or none)', () => {
    const seq = sequentialQuota({ limit: 60, tweak: (_n, init) => ({ ...init, reset: null }) });
    const keyB = next(seq, { status: 200, remaining: null, reset: null });
    const again = next(seq, { status: 429, remaining: null, reset: null });
    const f = orgSharedVerdict({
      keyA: seq.obs,
      keyB,
      keyAAgain: again,
      limit: 60,
      window: { ...seq.window, lengthMs: 1 },
    });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'quota-per-key', remaining: null },
      { code: 'first-party-refused-again', requestId: again.id },
    ]);
    // Without the bracket, and past the window's safe end by timing: nothing decides.
    const g = orgSharedVerdict({
      keyA: seq.obs,
      keyB,
      keyAAgain: next(seq, { status: 200, reset: null }),
      limit: 60,
      window: { ...seq.window, lengthMs: 1 },
    });
    expect(g.verdict).toBe('inconclusive');
    expect(g.reasons).toEqual([{ code: 'window-not-shown-in-force', refusedId: seq.obs[60]!.id, requestId: keyB.id }]);
  });

  it('is inconclusive when the second key is admitted on a counter already used, or on a refilling limiter', () => {
    const seq = sequentialQuota({ limit: 60 });
    const used = next(seq, { status: 200, remaining: 0 });
    const f = orgSharedVerdict({ keyA: seq.obs, keyB: used, limit: 60, window: seq.window });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'admitted-on-used-counter', remaining: 0 }]);
    const fresh = next(seq, { status: 200, remaining: 59 });
    const g = orgSharedVerdict({ keyA: seq.obs, keyB: fresh, limit: 60, window: seq.window, refilling: true });
    expect(g.verdict).toBe('inconclusive');
    expect(g.reasons).toEqual([{ code: 'refilling-limiter' }]);
  });

  it('judges by the server clock when it is 30 s off the client', () => {
    const seq = sequentialQuota({ limit: 60, clockOffsetMs: 30_000 });
    const keyB = next(seq, { status: 429, clockOffsetMs: 30_000 });
    expect(orgSharedVerdict({ keyA: seq.obs, keyB, limit: 60, window: seq.window }).verdict).toBe('pass');
  });
});

describe('ORG-ISOLATED', () => {
  it('passes when the other organization is admitted with its own full quota', () => {
    const seq = sequentialQuota({ limit: 60, check: 'ORG-ISOLATED', phase: 'exhaust' });
    const other = next(seq, { status: 200, remaining: 59, org: 'starter-b', phase: 'other-org' });
    const f = orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60 });
    expect(f.verdict).toBe('pass');
    expect(f.data).toEqual({
      limit: 60,
      refusedId: seq.obs[60]!.id,
      probeId: other.id,
      probeStatus: 200,
      probeRemaining: 59,
    });
    expect(f.evidence).toEqual([seq.obs[60]!.id, other.id]);
  });

  it('fails when the other organization is refused: a quota shared across organizations', () => {
    const seq = sequentialQuota({ limit: 60 });
    const other = next(seq, { status: 429, org: 'starter-b' });
    const f = orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60 });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'quota-shared-across-orgs' }]);
  });

  it("fails when the other organization was charged for the first one's requests", () => {
    const seq = sequentialQuota({ limit: 60 });
    const other = next(seq, { status: 200, remaining: 20, org: 'starter-b' });
    const f = orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60 });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'other-org-quota-spent', remaining: 20, spent: 39 }]);
  });

  it('is inconclusive when the window rolled over before the probe (a shared quota would pass too)', () => {
    const seq = sequentialQuota({ limit: 60 });
    const other = next(seq, {
      status: 200,
      remaining: 59,
      org: 'starter-b',
      reset: seq.windowEnd + 60,
      serverMs: seq.windowEnd * 1000 + 5,
    });
    const f = orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60 });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      { code: 'window-rolled-over-between', refusalReset: seq.windowEnd, requestReset: seq.windowEnd + 60 },
    ]);
    expect(orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60, window: seq.window }).verdict).toBe(
      'inconclusive',
    );
  });

  it('is not thrown off by a Reset given as a delta, which ticks every second', () => {
    // 150 ms before a second ticks over, so the deltas of the series differ.
    const seq = sequentialQuota({ limit: 60, resetStyle: 'delta', serverStartMs: (T0 + 20) * 1000 + 900 });
    expect(new Set(seq.obs.map((o) => o.rateLimit.reset.raw)).size).toBe(2);
    const last = seq.obs.at(-1)!;
    const other = next(seq, {
      status: 200,
      remaining: 59,
      org: 'starter-b',
      reset: last.rateLimit.reset.raw,
      serverMs: Date.parse(last.date!) + 100,
    });
    expect(orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60 }).verdict).toBe('pass');
    expect(orgIsolatedVerdict({ exhausted: seq.obs, other, otherLimit: 60, window: seq.window }).verdict).toBe('pass');
  });

  it('passes without any rate-limit header when the first organization is rejected again right after', () => {
    const seq = sequentialQuota({
      limit: 60,
      tweak: (_n, init) => ({ ...init, reset: null, remaining: null, limit: null }),
    });
    const other = next(seq, { status: 200, remaining: null, reset: null, limit: null, org: 'starter-b' });
    const again = next(seq, { status: 429, remaining: null, reset: null, limit: null });
    const f = orgIsolatedVerdict({
      exhausted: seq.obs,
      other,
      exhaustedAgain: again,
      otherLimit: 60,
      window: { ...seq.window, lengthMs: 1 },
    });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ probeId: other.id, probeStatus: 200, probeRemaining: null });
    expect(f.reasons).toEqual([{ code: 'first-party-refused-again', requestId: again.id }]);
  });

  it('measures again in the next window when the first party was never refused because its window rolled over among its requests', () => {
    // 60 reads from 200 ms before a boundary: the window turns at the 34th, and none is refused.
    const seq = sequentialQuota({ limit: 60, sent: 61, serverStartMs: T0 * 1000 + 59_800 });
    expect(seq.obs.some((o) => o.status === 429)).toBe(false);
    const f = orgIsolatedVerdict({
      exhausted: seq.obs,
      other: next(seq, { org: 'starter-b' }),
      otherLimit: 60,
      window: seq.window,
    });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      { code: 'never-refused', sent: 61 },
      { code: 'window-rolled-over', from: T0 + 60, to: T0 + 120, atRequest: 34 },
    ]);
    expect(f.measureAgain).toBe('next-window');
    const g = orgSharedVerdict({ keyA: seq.obs, keyB: next(seq, {}), limit: 60, window: seq.window });
    expect(g.reasons).toEqual([
      { code: 'never-refused', sent: 61 },
      { code: 'window-rolled-over', from: T0 + 60, to: T0 + 120, atRequest: 34 },
    ]);
    expect(g.measureAgain).toBe('next-window');
  });

  it('is inconclusive when the first organization was never refused, or the probe was not admitted', () => {
    const seq = sequentialQuota({ limit: 60, sent: 60 });
    const f = orgIsolatedVerdict({ exhausted: seq.obs, other: next(seq, {}), otherLimit: 60 });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'never-refused', sent: 60 }]);
    expect(f.measureAgain).toBeUndefined();
    const full = sequentialQuota({ limit: 60 });
    const unavailable = next(full, { status: 503 });
    const g = orgIsolatedVerdict({ exhausted: full.obs, other: unavailable, otherLimit: 60 });
    expect(g.verdict).toBe('inconclusive');
    expect(g.reasons).toEqual([
      { code: 'neither-admitted-nor-refused', party: 'other organization', outcome: '503', requestId: unavailable.id },
    ]);
  });
});
