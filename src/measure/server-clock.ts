/**
 * The server's clock, estimated from `Date` headers and round-trip times, never assumed to be ours.
 * Each response bounds the offset: the server stamped Date (floored to the second) somewhere between
 * our send and our receipt, so offset ∈ [D − receivedWall, D + 1000 − sentWall]. Intersecting those
 * intervals over many responses narrows the estimate to well under a second.
 */
import type { Observation } from './observation.ts';

export interface ClockEstimate {
  /** Server clock minus client clock, ms (from Date and round-trip time). */
  readonly offsetMs: number;
  /** Half-width of the estimate's error bound, ms. */
  readonly uncertaintyMs: number;
  readonly samples: number;
}

export interface OffsetInterval {
  readonly low: number;
  readonly high: number;
  readonly samples: number;
}

/** When the response headers arrived, on the sender's wall clock (its send time where none arrived). */
export const receivedWall = (o: Observation): number => o.sentWall + ((o.headersAt ?? o.sentAt) - o.sentAt);

export function offsetBounds(o: Observation): { low: number; high: number } | null {
  if (o.date === null || o.headersAt === null) return null;
  const dateMs = Date.parse(o.date);
  if (!Number.isFinite(dateMs)) return null;
  return { low: dateMs - receivedWall(o), high: dateMs + 1000 - o.sentWall };
}

/** Fold one more response into the interval. Inconsistent samples (a stepped clock) restart it. */
export function narrowOffset(current: OffsetInterval | null, o: Observation): OffsetInterval | null {
  const bounds = offsetBounds(o);
  if (!bounds) return current;
  if (!current) return { ...bounds, samples: 1 };
  const low = Math.max(current.low, bounds.low);
  const high = Math.min(current.high, bounds.high);
  if (low > high) return { ...bounds, samples: 1 };
  return { low, high, samples: current.samples + 1 };
}

export function clockEstimate(interval: OffsetInterval | null): ClockEstimate | null {
  if (!interval) return null;
  return {
    offsetMs: Math.round((interval.low + interval.high) / 2),
    uncertaintyMs: Math.ceil((interval.high - interval.low) / 2),
    samples: interval.samples,
  };
}
