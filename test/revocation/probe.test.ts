/**
 * The dense loop's stop rule, reading both clocks at one moment, the probing-load notes and how many
 * trials run at once: pure.
 */
import { describe, expect, test } from 'vitest';
import { readTogether, stopReason, type LoopView } from '../../src/revocation/probe.ts';
import { probingLoadNotes } from '../../src/revocation/trials.ts';
import { revocationTiming } from '../../src/revocation/task.ts';
import { inFlightCeiling, MAX_PROBES_IN_FLIGHT, trialsAtOnce } from '../../src/revocation/parallel.ts';

const timing = { settleMs: 500, maxMs: 8500 };
const view = (over: Partial<LoopView>): LoopView => ({
  now: 1000,
  revokeStartedAt: 100,
  revoke: 'returned',
  firstRejections: [400, 410, 420],
  aborted: false,
  ...over,
});

describe('stopReason', () => {
  test('keeps probing until every edge rejected and the settle period passed after the last', () => {
    expect(stopReason(view({ now: 919 }), timing)).toBeNull();
    expect(stopReason(view({ now: 920 }), timing)).toBe('settled');
    expect(stopReason(view({ now: 5000, firstRejections: [400, null, 420] }), timing)).toBeNull();
  });
  test('waits for the revoke call to return before settling', () => {
    expect(stopReason(view({ revoke: 'pending' }), timing)).toBeNull();
    expect(stopReason(view({ revoke: 'not-called', revokeStartedAt: null }), timing)).toBeNull();
  });
  test('stops at the time bound, on a failed hook, and when aborted', () => {
    expect(stopReason(view({ now: 8600, firstRejections: [null, null, null] }), timing)).toBe('max-time');
    expect(stopReason(view({ revoke: 'failed' }), timing)).toBe('revoke-failed');
    expect(stopReason(view({ aborted: true }), timing)).toBe('aborted');
  });
});

describe('readTogether', () => {
  const reads = (values: number[]) => () => values.shift()!;
  test('reads the wall clock between two monotonic reads and keeps the later one', () => {
    expect(readTogether(reads([10, 10.2]), reads([5000]))).toEqual({ at: 10.2, wall: 5000 });
  });
  test('reads both again while a pause falls between the monotonic reads', () => {
    // A 4.5 ms pause (a GC) around the first wall read: that pair would set the wall time 4.5 ms early.
    expect(readTogether(reads([10, 14.5, 20, 20.1]), reads([5000, 5010]))).toEqual({ at: 20.1, wall: 5010 });
  });
  test('is bounded: after four paused pairs the last stands', () => {
    const monotonic = reads([0, 5, 10, 15, 20, 25, 30, 35, 40, 45]);
    const wall = reads([1, 2, 3, 4, 5]);
    expect(readTogether(monotonic, wall)).toEqual({ at: 35, wall: 4 });
  });
});

test('probing load: says what a trial sends and whether the tier could carry it were HEAD counted', () => {
  const t = revocationTiming({ trials: 20, intervalMs: 10, settleMs: 2000 }, 3000);
  expect(t).toMatchObject({ maxMs: 10_000, leadMs: 30, confirmMs: 2000 });
  const starter = probingLoadNotes({
    edges: 3,
    chains: 1,
    timing: t,
    windowMs: 60_000,
    readQuota: 60,
    concurrencyCap: 5,
    tier: 'starter',
  });
  expect(starter[0]).toContain('about 300 per second');
  expect(starter[0]).toContain('609 to 3009 per trial');
  expect(starter[1]).toContain('could not carry even the shortest trial');
  const enterprise = probingLoadNotes({
    edges: 3,
    chains: 1,
    timing: t,
    windowMs: 60_000,
    readQuota: 2500,
    concurrencyCap: 2,
    tier: 'enterprise',
  });
  expect(enterprise).toHaveLength(2);
  expect(enterprise[1]).toContain('exceed the enterprise concurrency cap of 2');
  // Four trials at once: four times the probes per second, and four of the shortest trials on one quota.
  const four = probingLoadNotes({
    edges: 3,
    chains: 4,
    timing: t,
    windowMs: 60_000,
    readQuota: 2000,
    concurrencyCap: 1000,
    tier: 'enterprise',
  });
  expect(four[0]).toContain(
    'about 1200 per second (4 trials at once, each probing 3 edges every 10 ms), 609 to 3009 per trial',
  );
  expect(four[1]).toContain('could not carry even 4 of the shortest trials at once');
  expect(four).toHaveLength(2);
});

describe('trialsAtOnce', () => {
  const input = { requested: 4, trials: 20, edges: 3, concurrencyCap: 1000, connectionsPerEdge: 8, keyCapacity: null };
  test('as many as asked, never more than the trials', () => {
    expect(trialsAtOnce(input)).toEqual({ chains: 4, asked: 4, limits: [] });
    expect(trialsAtOnce({ ...input, trials: 2 })).toEqual({ chains: 2, asked: 2, limits: [] });
  });
  test("every trial's probes in flight fit under the organization's concurrency cap", () => {
    const capped = trialsAtOnce({ ...input, concurrencyCap: 7 });
    expect(capped).toEqual({
      chains: 2,
      asked: 4,
      limits: [{ by: 'concurrency-cap', allows: 2, concurrencyCap: 7, edges: 3 }],
    });
    // Even one trial over the cap: one at a time (probingLoadNotes says its probes exceed the cap).
    expect(trialsAtOnce({ ...input, concurrencyCap: 2 }).chains).toBe(1);
  });
  test("no trial's probe waits for a connection another trial holds", () => {
    expect(trialsAtOnce({ ...input, connectionsPerEdge: 3 })).toEqual({
      chains: 3,
      asked: 4,
      limits: [{ by: 'connections-per-edge', allows: 3, connectionsPerEdge: 3 }],
    });
  });
  test('a list of disposable keys: N trials on K chains need N + K keys', () => {
    expect(trialsAtOnce({ ...input, keyCapacity: 24 })).toEqual({ chains: 4, asked: 4, limits: [] });
    // Each limit that allows fewer than asked is named, the fewest deciding.
    expect(trialsAtOnce({ ...input, keyCapacity: 22, concurrencyCap: 9 })).toEqual({
      chains: 2,
      asked: 4,
      limits: [
        { by: 'concurrency-cap', allows: 3, concurrencyCap: 9, edges: 3 },
        { by: 'key-capacity', allows: 2, keys: 22, trials: 20 },
      ],
    });
    // Too few for even one chain: one, and the trials stop where the list runs out (a problem of the run).
    expect(trialsAtOnce({ ...input, keyCapacity: 20 })).toMatchObject({ chains: 1 });
  });
});

describe('inFlightCeiling', () => {
  const room = { edges: 3, concurrencyCap: 1000, connectionsPerEdge: MAX_PROBES_IN_FLIGHT + 64 };
  test("each trial's share of MAX_PROBES_IN_FLIGHT, of the organization's concurrency cap and of the prober's connections per edge", () => {
    expect(MAX_PROBES_IN_FLIGHT).toBe(16);
    // Alone, all 16; 4 trials at once, 4 each; 7, 2 each (16 / 7).
    expect([1, 4, 7].map((chains) => inFlightCeiling(room, chains))).toEqual([16, 4, 2]);
    // A cap of 36 over 4 trials and 3 edges: 3 each.
    expect(inFlightCeiling({ ...room, concurrencyCap: 36 }, 4)).toBe(3);
    // 8 connections per edge: 2 each for 3 trials, 1 for 7.
    expect(inFlightCeiling({ ...room, connectionsPerEdge: 8 }, 3)).toBe(2);
    expect(inFlightCeiling({ ...room, connectionsPerEdge: 8 }, 7)).toBe(1);
  });
  test('never below one: the cap then holds fewer trials at once (trialsAtOnce)', () => {
    expect(inFlightCeiling(room, 100)).toBe(1);
    expect(inFlightCeiling({ ...room, concurrencyCap: 5 }, 1)).toBe(1);
    expect(inFlightCeiling({ ...room, concurrencyCap: 2 }, 1)).toBe(1);
  });
});
