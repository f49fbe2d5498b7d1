/**
 * The window policies and the limiters that apply them, as pure functions of time (no server, no
 * sleeps): aligned windows with a phase, first-request windows, token buckets, counted refusals.
 */
import { describe, expect, it } from 'vitest';
import { TokenBuckets, WindowCounters, limiterFor, secondsUntil } from '../../src/reference-server/limiter.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { VariantName } from '../../src/reference-server/variants.ts';
import {
  alignedWindows,
  bucketReadyAt,
  bucketTokens,
  firstRequestWindows,
  ingestPhaseMs,
  policyFor,
  windowAt,
} from '../../src/reference-server/window-policy.ts';

const W = 2000;
const T0 = 1_700_000_000_000; // a multiple of W

describe('window rules', () => {
  it('aligned windows sit on multiples of W, shifted by the phase', () => {
    expect(windowAt(T0 + 1999, W)).toEqual({ startMs: T0, endMs: T0 + W });
    expect(windowAt(T0 + 2000, W)).toEqual({ startMs: T0 + W, endMs: T0 + 2 * W });
    expect(windowAt(T0 + 999, W, 1000)).toEqual({ startMs: T0 - 1000, endMs: T0 + 1000 });
    expect(windowAt(T0 + 1000, W, 1000)).toEqual({ startMs: T0 + 1000, endMs: T0 + 3000 });
    const rule = alignedWindows(W);
    const first = rule(undefined, T0 + 10);
    // Inside the window the stored span comes back as is; past it, the next aligned one.
    expect(rule(first, T0 + 1999)).toBe(first);
    expect(rule(first, T0 + 2000)).toEqual({ startMs: T0 + W, endMs: T0 + 2 * W });
  });

  it('first-request windows start at the request, last W, and start again only after they end', () => {
    const rule = firstRequestWindows(W);
    const opened = rule(undefined, T0 + 777);
    expect(opened).toEqual({ startMs: T0 + 777, endMs: T0 + 2777 });
    expect(rule(opened, T0 + 2776)).toBe(opened);
    expect(rule(opened, T0 + 5000)).toEqual({ startMs: T0 + 5000, endMs: T0 + 7000 });
  });

  it('the ingest phase is half a window in whole seconds', () => {
    expect([1000, 2000, 3000, 4000, 60_000].map(ingestPhaseMs)).toEqual([0, 1000, 1000, 2000, 30_000]);
  });
});

describe('WindowCounters', () => {
  it('aligned: exact admission, Remaining from used, a fresh count in the next window', () => {
    const c = new WindowCounters(alignedWindows(W));
    const results = Array.from({ length: 4 }, (_, i) => c.tryConsume('b', 1, 3, T0 + i));
    expect(results.map((r) => [r.admitted, r.used])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [false, 3],
    ]);
    expect(results[3]).toMatchObject({ resetMs: T0 + W, retryAtMs: T0 + W });
    expect(c.peek('b', 3, T0 + 1999)).toEqual({ used: 3, resetMs: T0 + W });
    expect(c.peek('b', 3, T0 + W)).toEqual({ used: 0, resetMs: T0 + 2 * W });
    expect(c.tryConsume('b', 1, 3, T0 + W + 1)).toMatchObject({ admitted: true, used: 1 });
  });

  it('first-request: a peek opens no window; the first counted unit does, and it ends W later', () => {
    const c = new WindowCounters(firstRequestWindows(W));
    // Before any counted unit, a peek reports the window a request now would open.
    expect(c.peek('b', 5, T0 + 100)).toEqual({ used: 0, resetMs: T0 + 2100 });
    expect(c.peek('b', 5, T0 + 900)).toEqual({ used: 0, resetMs: T0 + 2900 });
    expect(c.tryConsume('b', 1, 5, T0 + 1234)).toMatchObject({ admitted: true, used: 1, resetMs: T0 + 3234 });
    expect(c.peek('b', 5, T0 + 3233)).toEqual({ used: 1, resetMs: T0 + 3234 });
    // Expired: nothing counted, and the next window starts at the next counted request.
    expect(c.peek('b', 5, T0 + 4000)).toEqual({ used: 0, resetMs: T0 + 6000 });
    expect(c.tryConsume('b', 2, 5, T0 + 4500)).toMatchObject({ admitted: true, used: 2, resetMs: T0 + 6500 });
  });

  it('first-request: a refusal that counts nothing opens no window', () => {
    const c = new WindowCounters(firstRequestWindows(W));
    expect(c.tryConsume('b', 9, 5, T0)).toMatchObject({ admitted: false, used: 0 });
    expect(c.tryConsume('b', 1, 5, T0 + 500)).toMatchObject({ admitted: true, resetMs: T0 + 2500 });
  });

  it('countRefused: refused units are counted past the limit, admission stays exact', () => {
    const c = new WindowCounters(alignedWindows(W));
    const results = Array.from({ length: 6 }, (_, i) => c.tryConsume('b', 1, 3, T0 + i, true));
    expect(results.map((r) => [r.admitted, r.used])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [false, 4],
      [false, 5],
      [false, 6],
    ]);
    expect(c.tryConsume('b', 1, 3, T0 + W, true)).toMatchObject({ admitted: true, used: 1 });
  });

  it('consume counts unconditionally (the anonymous bucket, the racy fault)', () => {
    const c = new WindowCounters(alignedWindows(W, 1000));
    expect(c.consume('b', 2, 1, T0)).toEqual({ used: 2, resetMs: T0 + 1000 });
    expect(c.consume('b', 2, 1, T0 + 999)).toEqual({ used: 4, resetMs: T0 + 1000 });
    expect(c.consume('b', 1, 1, T0 + 1000)).toEqual({ used: 1, resetMs: T0 + 3000 });
  });
});

describe('token buckets', () => {
  it('refill continuously at Limit per window, up to the capacity', () => {
    expect(bucketTokens(undefined, 60, W, T0)).toBe(60);
    expect(bucketTokens({ tokens: 0, atMs: T0 }, 60, W, T0 + 1000)).toBe(30);
    expect(bucketTokens({ tokens: 50, atMs: T0 }, 60, W, T0 + 1000)).toBe(60);
    expect(bucketTokens({ tokens: -6, atMs: T0 }, 60, W, T0 + 100)).toBeCloseTo(-3);
    expect(bucketReadyAt(0, 1, 60, W, T0)).toBe(T0 + Math.ceil(W / 60));
    expect(bucketReadyAt(0, 60, 60, W, T0)).toBe(T0 + W);
    expect(bucketReadyAt(10, 5, 60, W, T0)).toBe(T0);
  });

  it('admit more than Limit within a window when the requests are spread out', () => {
    const b = new TokenBuckets(W);
    const burst = Array.from({ length: 60 }, () => b.tryConsume('b', 1, 60, T0));
    expect(burst.every((r) => r.admitted)).toBe(true);
    expect(burst.at(-1)).toMatchObject({ used: 60, resetMs: T0 + W });
    const refused = b.tryConsume('b', 1, 60, T0 + 1);
    expect(refused.admitted).toBe(false);
    // One token is back W/Limit ms after the burst: that is the honest Retry-After.
    expect(refused.retryAtMs).toBe(T0 + Math.ceil(W / 60));
    expect(secondsUntil(refused.retryAtMs, T0 + 1)).toBe(1);
    const later = b.tryConsume('b', 1, 60, T0 + Math.ceil(W / 60));
    expect(later.admitted).toBe(true);
    // Remaining is the whole tokens left; Reset is when the bucket is full again.
    // 1000 ms on: 0.02 + 30 tokens, full again 29.98 tokens (999.3 ms) later.
    expect(b.peek('b', 60, T0 + 1034)).toEqual({ used: 30, resetMs: T0 + 2034 });
  });

  it('report Remaining as floor(tokens) and Reset when full', () => {
    const b = new TokenBuckets(W);
    b.tryConsume('b', 10, 10, T0);
    // 250 ms later: 1.25 tokens.
    expect(b.peek('b', 10, T0 + 250)).toEqual({ used: 9, resetMs: T0 + W });
    expect(b.tryConsume('b', 1, 10, T0 + 250)).toMatchObject({ admitted: true, used: 10 });
    expect(b.tryConsume('b', 1, 10, T0 + 250)).toMatchObject({ admitted: false, retryAtMs: T0 + 400 });
  });

  it('countRefused leaves a debt the refill pays back first', () => {
    const b = new TokenBuckets(W);
    b.tryConsume('b', 10, 10, T0);
    expect(b.tryConsume('b', 1, 10, T0, true)).toMatchObject({ admitted: false, used: 11, retryAtMs: T0 + 400 });
    expect(b.tryConsume('b', 1, 10, T0 + 200)).toMatchObject({ admitted: false });
    expect(b.tryConsume('b', 1, 10, T0 + 400)).toMatchObject({ admitted: true });
  });
});

describe('policyFor', () => {
  const choose = (variants: VariantName[], faults: FaultName[] = []) => ({
    windowMs: W,
    variants: new Set(variants),
    faults: new Set(faults),
  });
  const resetAt = (policy: ReturnType<typeof policyFor>, now: number) => limiterFor(policy).peek('b', 10, now).resetMs;

  it('aligned windows by default, for both classes and the anonymous bucket', () => {
    for (const cls of ['read', 'ingest', 'anonymous'] as const)
      expect(resetAt(policyFor(cls, choose([])), T0 + 5)).toBe(T0 + W);
  });

  it('independent-class-windows shifts ingest only', () => {
    const c = choose(['independent-class-windows']);
    expect(resetAt(policyFor('read', c), T0 + 5)).toBe(T0 + W);
    expect(resetAt(policyFor('ingest', c), T0 + 5)).toBe(T0 + 1000);
    expect(resetAt(policyFor('ingest', c), T0 + 1005)).toBe(T0 + 3000);
  });

  it('first-request-windows for both classes; the anonymous bucket stays aligned', () => {
    const c = choose(['first-request-windows', 'independent-class-windows']);
    expect(resetAt(policyFor('read', c), T0 + 5)).toBe(T0 + 5 + W);
    expect(resetAt(policyFor('ingest', c), T0 + 5)).toBe(T0 + 5 + W);
    expect(resetAt(policyFor('anonymous', c), T0 + 5)).toBe(T0 + W);
  });

  it('whole-second-windows: a window starts at the whole second of the first counted request', () => {
    const c = choose(['whole-second-windows']);
    // The first request at T0 + 1,400 ms opens [T0 + 1,000, T0 + 1,000 + W): it ends 400 ms before a full window after it.
    expect(resetAt(policyFor('read', c), T0 + 1400)).toBe(T0 + 1000 + W);
    expect(resetAt(policyFor('anonymous', c), T0 + 1400)).toBe(T0 + W);
  });

  it('the token-bucket fault wins over window variants', () => {
    expect(policyFor('read', choose(['first-request-windows'], ['token-bucket'])).kind).toBe('token-bucket');
    expect(policyFor('anonymous', choose([], ['token-bucket'])).kind).toBe('windows');
  });
});
