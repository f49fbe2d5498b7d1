/**
 * Latency in bounded memory: an HDR histogram (3 significant digits, microsecond resolution) plus
 * exact count, sum, min and max. A million samples cost the same few tens of kilobytes as ten.
 */
import * as hdr from 'hdr-histogram-js';

/** Microseconds per millisecond: values are recorded as integer µs and reported in ms. */
const US_PER_MS = 1000;

export interface LatencyStats {
  readonly count: number;
  readonly avgMs: number | null;
  readonly minMs: number | null;
  readonly medMs: number | null;
  readonly p90Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  readonly maxMs: number | null;
}

export class LatencyHistogram {
  readonly #histogram = hdr.build({ numberOfSignificantValueDigits: 3, bitBucketSize: 32, autoResize: true });
  #count = 0;
  #sumMs = 0;
  #minMs = Number.POSITIVE_INFINITY;
  #maxMs = Number.NEGATIVE_INFINITY;

  record(ms: number): void {
    const value = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.#histogram.recordValue(Math.round(value * US_PER_MS));
    this.#count += 1;
    this.#sumMs += value;
    if (value < this.#minMs) this.#minMs = value;
    if (value > this.#maxMs) this.#maxMs = value;
  }

  /** Fold another histogram into this one (tag filters merge status buckets). */
  add(other: LatencyHistogram): void {
    if (other.#count === 0) return;
    this.#histogram.add(other.#histogram);
    this.#count += other.#count;
    this.#sumMs += other.#sumMs;
    this.#minMs = Math.min(this.#minMs, other.#minMs);
    this.#maxMs = Math.max(this.#maxMs, other.#maxMs);
  }

  get count(): number {
    return this.#count;
  }

  /** ms at percentile p (0-100), or null when empty. Exact at 0 and 100. */
  percentileMs(p: number): number | null {
    if (this.#count === 0) return null;
    if (p <= 0) return this.#minMs;
    if (p >= 100) return this.#maxMs;
    return Math.min(this.#histogram.getValueAtPercentile(p) / US_PER_MS, this.#maxMs);
  }

  avgMs(): number | null {
    return this.#count === 0 ? null : this.#sumMs / this.#count;
  }

  minMs(): number | null {
    return this.#count === 0 ? null : this.#minMs;
  }

  maxMs(): number | null {
    return this.#count === 0 ? null : this.#maxMs;
  }

  stats(): LatencyStats {
    return {
      count: this.#count,
      avgMs: round(this.avgMs()),
      minMs: round(this.minMs()),
      medMs: round(this.percentileMs(50)),
      p90Ms: round(this.percentileMs(90)),
      p95Ms: round(this.percentileMs(95)),
      p99Ms: round(this.percentileMs(99)),
      maxMs: round(this.maxMs()),
    };
  }

  static merged(parts: Iterable<LatencyHistogram>): LatencyHistogram {
    const merged = new LatencyHistogram();
    for (const part of parts) merged.add(part);
    return merged;
  }
}

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms * 1000) / 1000;
}
