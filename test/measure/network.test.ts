import { describe, expect, it } from 'vitest';
import {
  NetworkMeter,
  UNMEASURED,
  figuresOf,
  heldUploadFigures,
  networkMargins,
  probePace,
  roundTripModel,
  type NetworkMargins,
} from '../../src/measure/network.ts';

describe('network margins', () => {
  it('differ, every one, between a 1 ms and a 100 ± 20 ms round-trip network', () => {
    const near = networkMargins(roundTripModel(1));
    const far = networkMargins(roundTripModel(100, 20));
    for (const name of Object.keys(near) as (keyof NetworkMargins)[]) {
      expect({ name, larger: far[name] > near[name] }).toEqual({ name, larger: true });
    }
  });

  it('rest on their floors where nothing was measured, and grow with late timers', () => {
    const floors = networkMargins(UNMEASURED);
    const late = networkMargins({ ...UNMEASURED, timerLateMs: 500 });
    expect(late.windowEndMs).toBeGreaterThan(floors.windowEndMs);
    expect(late.openerLeadMs).toBeGreaterThan(floors.openerLeadMs);
  });
});

describe('probePace', () => {
  it('one probe in flight where the round trip is shorter than the interval (loopback)', () => {
    expect(probePace(roundTripModel(1), 10)).toEqual({ asked: 1, inFlight: 1, everyMs: 10 });
    expect(probePace(UNMEASURED, 10)).toEqual({ asked: 1, inFlight: 1, everyMs: 10 });
    // A loaded machine's loopback: 6 ± 2 ms, out for 8 ms at most.
    expect(probePace(roundTripModel(6, 2), 10).inFlight).toBe(1);
  });

  it('at 100 ± 20 ms, one in flight per interval a slow round trip spans', () => {
    // The median (100 ms) and as much again as it strays above the fastest (80 ms): 120 ms out, so 12
    // at a 10 ms interval, 3 at 50 ms.
    const far = roundTripModel(100, 20);
    expect(probePace(far, 10)).toEqual({ asked: 12, inFlight: 12, everyMs: 10 });
    expect(probePace(far, 50).inFlight).toBe(3);
    expect(probePace(far, 200).inFlight).toBe(1);
  });

  it('held to fewer in flight, spread over the fastest round trip instead of sent in bursts', () => {
    // 2 out of the 12 asked for: one every 40 ms (80 ms over 2), so no burst comes back together.
    expect(probePace(roundTripModel(100, 20), 10, 2)).toEqual({ asked: 12, inFlight: 2, everyMs: 40 });
    // A median stretched by load (the fastest still 80 ms) spreads them no further.
    expect(probePace(figuresOf([80, 400, 420], 0), 10, 2).everyMs).toBe(40);
    expect(probePace(roundTripModel(100, 20), 10, 0).inFlight).toBe(1);
  });

  it("a connection's handshakes among the first round trips do not move it: two fast ones outweigh one slow", () => {
    // Before the first trial: a probe that opened its connection (three round trips) and two that did not.
    expect(probePace(figuresOf([240, 80, 82], 0), 10).asked).toBe(9);
  });
});

describe('figuresOf', () => {
  it('reads the fastest, median, slow (p90) and slowest round trips, and the spread above the fastest', () => {
    const trips = Array.from({ length: 10 }, (_, i) => 80 + i * 2);
    expect(figuresOf(trips, 3)).toEqual({
      samples: 10,
      minMs: 80,
      medianMs: 88,
      p90Ms: 96,
      maxMs: 98,
      spreadMs: 16,
      timerLateMs: 3,
    });
  });
});

describe('heldUploadFigures', () => {
  it('bounds the held-upload inequalities by the fastest round trip, the spread and the timers', () => {
    // 80 ± 10 ms round trips, timers 2 ms late.
    expect(heldUploadFigures([80, 70, 90, Number.NaN], 2)).toEqual({
      reads: 3,
      fastestTripMs: 70,
      slowestTripMs: 90,
      strayMs: 20,
      readLateMs: 2,
      arrivedAfterMs: 20,
      arrivedBeforeAnswerMs: 70 + 2 * 20 + 2,
      answeredBeforeMs: 20 + 2,
    });
  });

  it('keeps a floor under the spread where the round trips do not spread (loopback), and is null without one', () => {
    expect(heldUploadFigures([0.4, 0.4], 0)).toMatchObject({ strayMs: 1, arrivedBeforeAnswerMs: 2.4 });
    expect(heldUploadFigures([], 0)).toBeNull();
  });

  it('grows with the distance: every bound larger at 100 ± 20 ms than at 1 ms', () => {
    const near = heldUploadFigures([1, 1.2], 0)!;
    const far = heldUploadFigures([80, 100, 120], 0)!;
    for (const name of ['arrivedAfterMs', 'arrivedBeforeAnswerMs', 'answeredBeforeMs'] as const)
      expect({ name, larger: far[name] > near[name] }).toEqual({ name, larger: true });
  });
});

describe('NetworkMeter', () => {
  it("keeps each edge's round trips apart, and all of them for the run", () => {
    const meter = new NetworkMeter({ lateMs: () => 2, close: () => {} });
    for (const ms of [10, 12, 14]) meter.roundTrip('edge-0', ms);
    meter.roundTrip('edge-1', 100);
    meter.roundTrip('edge-1', Number.NaN);
    expect(meter.figures('edge-0')).toMatchObject({ samples: 3, minMs: 10, maxMs: 14, timerLateMs: 2 });
    expect(meter.figures('edge-1')).toMatchObject({ samples: 1, minMs: 100 });
    expect(meter.figures()).toMatchObject({ samples: 4, maxMs: 100 });
    expect(meter.runFigures()).toMatchObject({ samples: 4, minMs: 10 });
    expect(meter.margins('edge-1').openerLeadMs).toBeGreaterThan(meter.margins('edge-0').openerLeadMs);
  });
});
