import { describe, expect, it } from 'vitest';
import { TAIL_BEFORE_LIMIT, seriesShape, seriesShapeText } from '../../src/suite/series-shape.ts';
import { readFit } from '../../src/suite/read-fit.ts';

const base = { batch: 99, windowMs: 60_000, bulk: 'auto' } as const;

describe('seriesShape', () => {
  it('goes one at a time where the series fits its share of the window', () => {
    const shape = seriesShape({ ...base, left: 59, roundTripMs: 90 });
    expect(shape).toMatchObject({ bulk: 0, concurrency: 1, tailBefore: 59, rounds: 62 });
  });

  it("spends Enterprise's bulk together at 90 ms round trips, the tail one at a time from before the Limit", () => {
    const shape = seriesShape({ ...base, left: 2499, roundTripMs: 90 });
    expect(shape.bulk + shape.tailBefore).toBe(2499);
    expect(shape.tailBefore).toBeGreaterThanOrEqual(TAIL_BEFORE_LIMIT);
    expect(shape.concurrency).toBeGreaterThan(1);
    expect(shape.concurrency).toBeLessThanOrEqual(99);
    // Its round trips one after another keep within half the window, at the round trip planned by.
    expect(shape.rounds * 90).toBeLessThanOrEqual(30_000);
    expect(readFit(() => shape.rounds, 90, 60_000).fits).toBe(true);
    expect(seriesShapeText(shape)).toMatch(/^a bulk of \d+ at \d+ at once, then \d+ one at a time past the Limit/);
  });

  it('needs more at once the longer the round trip, and as few as fit', () => {
    const near = seriesShape({ ...base, left: 2499, roundTripMs: 20 });
    const far = seriesShape({ ...base, left: 2499, roundTripMs: 150 });
    expect(far.concurrency).toBeGreaterThan(near.concurrency);
    expect(far.tailBefore).toBeLessThan(near.tailBefore);
  });

  it('says a series that cannot keep within a window even at the cap does not fit', () => {
    const shape = seriesShape({ ...base, left: 2499, batch: 4, roundTripMs: 150 });
    expect(shape.concurrency).toBe(4);
    expect(readFit(() => shape.rounds, 150, 60_000).fits).toBe(false);
  });

  it("always: the bulk at the cap and the shortest tail, whatever the distance ('always' exercises the bulk)", () => {
    const shape = seriesShape({ ...base, bulk: 'always', left: 59, batch: 4, roundTripMs: 1 });
    expect(shape).toMatchObject({ bulk: 57, concurrency: 4, tailBefore: TAIL_BEFORE_LIMIT });
  });

  it('keeps a series too short to split, or a cap of one, one at a time', () => {
    expect(seriesShape({ ...base, bulk: 'always', left: 2, roundTripMs: 1 })).toMatchObject({ bulk: 0 });
    const oneAtATime = seriesShape({ ...base, left: 2499, batch: 1, roundTripMs: 90 });
    expect(oneAtATime).toMatchObject({ bulk: 0 });
    expect(readFit(() => oneAtATime.rounds, 90, 60_000).fits).toBe(false);
  });
});
