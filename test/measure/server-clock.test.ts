import { describe, expect, it } from 'vitest';
import { clockEstimate, narrowOffset, offsetBounds, type OffsetInterval } from '../../src/measure/server-clock.ts';
import { CLIENT_WALL_AT_ZERO, httpDate, obs } from '../helpers/observations.ts';

/** Responses to requests sent every 137 ms, 6 ms round trip, from a server `offsetMs` ahead of us. */
function responses(offsetMs: number, count: number) {
  return Array.from({ length: count }, (_, i) =>
    obs({ sentAt: 1000 + i * 137, latencyMs: 6, clockOffsetMs: offsetMs }),
  );
}

function fold(list: ReturnType<typeof responses>): OffsetInterval | null {
  return list.reduce<OffsetInterval | null>((interval, o) => narrowOffset(interval, o), null);
}

describe('server clock estimate', () => {
  it('bounds the offset by one response: [Date − received, Date + 1 s − sent]', () => {
    const o = obs({ sentAt: 500, latencyMs: 10, date: httpDate(1_764_000_100) });
    const sentWall = CLIENT_WALL_AT_ZERO + 500;
    expect(offsetBounds(o)).toEqual({ low: 1_764_000_100_000 - (sentWall + 10), high: 1_764_000_101_000 - sentWall });
  });

  it('ignores responses without a usable Date, or without a response', () => {
    expect(offsetBounds(obs({ date: null }))).toBeNull();
    expect(offsetBounds(obs({ date: 'garbage' }))).toBeNull();
    expect(offsetBounds(obs({ status: null }))).toBeNull();
    const start: OffsetInterval = { low: -5, high: 5, samples: 3 };
    expect(narrowOffset(start, obs({ date: 'Thu, 99 Foo 2025 99:99:99 GMT' }))).toBe(start);
  });

  it('narrows as responses land at different points of the second', () => {
    const list = responses(0, 20);
    const first = narrowOffset(null, list[0]!)!;
    const all = fold(list)!;
    expect(first.high - first.low).toBe(1006);
    expect(all.samples).toBe(20);
    expect(all.high - all.low).toBeLessThan(first.high - first.low);
    expect(all.high - all.low).toBeLessThanOrEqual(60);
    expect(all.low).toBeLessThanOrEqual(0);
    expect(all.high).toBeGreaterThanOrEqual(0);
  });

  it.each([30_000, -30_000, 1_234])('finds a %i ms skew within its bounds', (offset) => {
    const interval = fold(responses(offset, 20))!;
    expect(interval.low).toBeLessThanOrEqual(offset);
    expect(interval.high).toBeGreaterThanOrEqual(offset);
    const estimate = clockEstimate(interval)!;
    expect(Math.abs(estimate.offsetMs - offset)).toBeLessThanOrEqual(estimate.uncertaintyMs);
    expect(estimate.uncertaintyMs).toBeLessThanOrEqual(60);
    expect(estimate.samples).toBe(20);
  });

  it('restarts on an inconsistent sample (a stepped clock) and follows the new offset', () => {
    const before = fold(responses(0, 10))!;
    const stepped = responses(30_000, 5);
    const after = stepped.reduce<OffsetInterval | null>((interval, o) => narrowOffset(interval, o), before)!;
    expect(after.samples).toBe(5);
    expect(after.low).toBeLessThanOrEqual(30_000);
    expect(after.high).toBeGreaterThanOrEqual(30_000);
  });

  it('has no estimate before any sample', () => {
    expect(clockEstimate(null)).toBeNull();
    expect(clockEstimate({ low: 100, high: 300, samples: 2 })).toEqual({
      offsetMs: 200,
      uncertaintyMs: 100,
      samples: 2,
    });
  });
});
