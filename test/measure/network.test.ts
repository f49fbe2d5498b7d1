import { describe, expect, it } from 'vitest';
import {
  NetworkMeter,
  UNMEASURED,
  figuresOf,
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
  it('one probe in flight where the round trip is shorter than the interval (loopback), and nothing to ramp up', () => {
    expect(probePace(roundTripModel(1), 10)).toEqual({ inFlight: 1, rampMs: 3 });
    expect(probePace(UNMEASURED, 10)).toEqual({ inFlight: 1, rampMs: 0 });
  });

  it('at 100 ± 20 ms, one in flight per interval a slow round trip and its spread span, opened before the call', () => {
    // p90 116 ms, spread 36 ms above the fastest (80 ms): 152 ms out, so 16 at a 10 ms interval, 4 at 50 ms.
    const far = roundTripModel(100, 20);
    expect(probePace(far, 10)).toEqual({ inFlight: 16, rampMs: 15 * 10 + 3 * 116 });
    expect(probePace(far, 50).inFlight).toBe(4);
    expect(probePace(far, 200).inFlight).toBe(1);
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
