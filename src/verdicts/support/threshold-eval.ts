/**
 * Evaluates parsed thresholds over a whole run: the harness's LoadSummary, or the points of every
 * k6 runner merged (which k6 cannot do: its thresholds are per instance). Both engines reduce their
 * responses to the same tagged buckets first, so a threshold means the same on either. Pure.
 */
import { LatencyHistogram } from '../../measure/histogram.ts';
import { isExpectedStatus } from '../../measure/outcome.ts';
import type { LoadSummary } from '../../measure/aggregate.ts';
import {
  aggregationName,
  compare,
  describeThreshold,
  type Threshold,
  type ThresholdTag,
} from '../../config/thresholds.ts';

export type BucketTag = Exclude<ThresholdTag, 'scenario'>;

/** Responses sharing one tag set: their count and latency. `status` is '' for "no response". */
export interface MetricBucket {
  readonly tags: Readonly<Record<BucketTag, string>>;
  readonly count: number;
  readonly latency: LatencyHistogram;
}

/** Requests scheduled but never sent, per tier and phase. */
export interface DroppedCount {
  readonly tags: Readonly<Pick<Record<BucketTag, string>, 'tier' | 'phase'>>;
  readonly count: number;
}

export interface ThresholdData {
  readonly buckets: readonly MetricBucket[];
  readonly dropped: readonly DroppedCount[];
  /** Length of the measured run, seconds: the denominator of a counter's `rate`. */
  readonly durationS: number;
}

export type ThresholdVerdict = 'pass' | 'fail' | 'no-data';

export interface ThresholdOutcome {
  /** `http_req_duration{status:429} p(95)<100`. */
  readonly threshold: string;
  readonly verdict: ThresholdVerdict;
  /** The aggregated figure compared, or null without data. */
  readonly observed: number | null;
  /** How many samples the figure is over. */
  readonly samples: number;
  /** "p(95) = 12.30 ms over 1200 responses". */
  readonly detail: string;
}

export function bucketTags(tier: string | null, phase: string, status: number | null): Record<BucketTag, string> {
  return {
    tier: tier ?? '',
    phase,
    status: status === null ? '' : String(status),
    expected_response: String(isExpectedStatus(status)),
  };
}

/** The harness's aggregated run as threshold data; `dropped` comes from the driver's own tallies. */
export function thresholdDataFromSummary(summary: LoadSummary, dropped: readonly DroppedCount[] = []): ThresholdData {
  const buckets: MetricBucket[] = [];
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const phase of summary.phases) {
    if (phase.count > 0) {
      start = Math.min(start, phase.startedAt);
      end = Math.max(end, phase.endedAt);
    }
    for (const b of phase.buckets) {
      buckets.push({ tags: bucketTags(phase.tier, phase.phase, b.status), count: b.count, latency: b.latency });
    }
  }
  return { buckets, dropped, durationS: end > start ? (end - start) / 1000 : 0 };
}

function matches(tags: Readonly<Partial<Record<BucketTag, string>>>, filter: Threshold['filter']): boolean {
  for (const [tag, value] of Object.entries(filter) as [BucketTag, string][]) {
    if (tags[tag] !== value) return false;
  }
  return true;
}

export function evaluateThreshold(threshold: Threshold, data: ThresholdData): ThresholdOutcome {
  const name = describeThreshold(threshold);
  const agg = aggregationName(threshold.aggregation);
  const judged = (observed: number | null, samples: number, detail: string): ThresholdOutcome => ({
    threshold: name,
    verdict: observed === null ? 'no-data' : compare(observed, threshold.operator, threshold.value) ? 'pass' : 'fail',
    observed: observed === null ? null : round(observed),
    samples,
    detail,
  });
  if (threshold.metric === 'dropped_iterations') {
    const count = data.dropped.filter((d) => matches(d.tags, threshold.filter)).reduce((n, d) => n + d.count, 0);
    const observed = threshold.aggregation.kind === 'rate' ? perSecond(count, data.durationS) : count;
    return judged(observed, count, `${agg} = ${fmt(observed)} (${count} dropped)`);
  }
  const selected = data.buckets.filter((b) => matches(b.tags, threshold.filter));
  const count = selected.reduce((n, b) => n + b.count, 0);
  switch (threshold.metric) {
    case 'http_reqs': {
      const observed = threshold.aggregation.kind === 'rate' ? perSecond(count, data.durationS) : count;
      return judged(observed, count, `${agg} = ${fmt(observed)} over ${count} responses`);
    }
    case 'http_req_failed': {
      const failed = selected.filter((b) => b.tags.expected_response !== 'true').reduce((n, b) => n + b.count, 0);
      const observed = count === 0 ? null : failed / count;
      return judged(
        observed,
        count,
        count === 0 ? 'no responses matched' : `rate = ${fmt(observed)} (${failed} of ${count} failed)`,
      );
    }
    case 'http_req_duration': {
      const latency = LatencyHistogram.merged(selected.map((b) => b.latency));
      const observed = trendValue(latency, threshold);
      return judged(
        observed,
        latency.count,
        latency.count === 0 ? 'no responses matched' : `${agg} = ${fmt(observed)} ms over ${latency.count} responses`,
      );
    }
  }
}

export function evaluateThresholds(thresholds: readonly Threshold[], data: ThresholdData): readonly ThresholdOutcome[] {
  return thresholds.map((t) => evaluateThreshold(t, data));
}

function trendValue(latency: LatencyHistogram, threshold: Threshold): number | null {
  const a = threshold.aggregation;
  switch (a.kind) {
    case 'avg':
      return latency.avgMs();
    case 'min':
      return latency.minMs();
    case 'max':
      return latency.maxMs();
    case 'med':
      return latency.percentileMs(50);
    case 'p':
      return latency.percentileMs(a.percentile);
    case 'count':
    case 'rate':
      // parseThreshold refuses these on a trend.
      return null;
  }
}

function perSecond(count: number, durationS: number): number | null {
  return durationS > 0 ? count / durationS : null;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function fmt(n: number | null): string {
  if (n === null) return '—';
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 1 ? 4 : 2);
}
