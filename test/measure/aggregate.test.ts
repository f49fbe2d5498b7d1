import { describe, expect, it } from 'vitest';
import { LoadAggregator, summarizeObservations } from '../../src/measure/aggregate.ts';
import { LatencyHistogram } from '../../src/measure/histogram.ts';
import { loadPhaseName } from '../../src/measure/tags.ts';
import { T0, obs, sequentialQuota } from '../helpers/observations.ts';

describe('LoadAggregator', () => {
  it('tallies each org window by its Reset: admitted, rejected, other, lowest Remaining, evidence', () => {
    const first = sequentialQuota({ limit: 5, sent: 8, phase: loadPhaseName('at-quota') }).obs;
    const second = sequentialQuota({
      limit: 5,
      sent: 3,
      phase: loadPhaseName('at-quota'),
      serverStartMs: (T0 + 60) * 1000 + 50,
    }).obs;
    const odd = obs({ status: 500, phase: loadPhaseName('at-quota'), serverMs: (T0 + 61) * 1000, reset: T0 + 120 });
    const summary = summarizeObservations([...first, ...second, odd], 60);
    expect(summary.windowS).toBe(60);
    expect(summary.windows).toHaveLength(2);
    const [w1, w2] = summary.windows;
    expect(w1).toMatchObject({
      org: 'starter-a',
      tier: 'starter',
      endS: T0 + 60,
      basis: 'reset',
      admitted: 5,
      rejected: 3,
      other: 0,
      limitHeader: 5,
      minRemainingAdmitted: 0,
      rejectedWithRemaining: 0,
      phases: ['at-quota'],
    });
    expect(w1!.lastAdmittedIds).toEqual(first.slice(2, 5).map((o) => o.id));
    expect(w1!.firstRejectedIds).toEqual(first.slice(5, 8).map((o) => o.id));
    expect(w2).toMatchObject({ endS: T0 + 120, admitted: 3, rejected: 0, other: 1, minRemainingAdmitted: 2 });
  });

  it('counts 429s that still reported quota left', () => {
    const summary = summarizeObservations([obs({ status: 429, remaining: 4 }), obs({ status: 429, remaining: 0 })], 60);
    expect(summary.windows[0]).toMatchObject({ rejected: 2, rejectedWithRemaining: 1 });
  });

  it('falls back to the Date-derived fixed window when Reset is not an epoch, and says so', () => {
    const millis = sequentialQuota({ limit: 3, resetStyle: 'millis' }).obs;
    const summary = summarizeObservations(millis, 60);
    expect(summary.windows).toEqual([
      expect.objectContaining({ endS: T0 + 60, basis: 'date', admitted: 3, rejected: 1 }),
    ]);
    const mixed = summarizeObservations([obs({ reset: T0 + 60 }), obs({ reset: 'soon' })], 60);
    expect(mixed.windows).toEqual([expect.objectContaining({ basis: 'mixed', admitted: 2 })]);
  });

  it('leaves responses it cannot place unattributed, with bounded evidence', () => {
    const lost = [1, 2, 3, 4].map(() => obs({ status: null }));
    const summary = summarizeObservations([...lost, obs({ date: 'garbage', reset: 'x' })], 60);
    expect(summary.windows).toEqual([]);
    expect(summary.phases[0]).toMatchObject({
      count: 5,
      unattributed: 5,
      unattributedIds: lost.slice(0, 3).map((o) => o.id),
    });
  });

  it('summarises each phase: latency per status, basis of measurement, span', () => {
    const aggregator = new LoadAggregator(60);
    const a = obs({ phase: loadPhaseName('over-quota'), sentAt: 100, latencyMs: 9, intendedAt: 90 });
    const b = obs({ phase: loadPhaseName('over-quota'), sentAt: 120, latencyMs: 4, status: 429 });
    const c = obs({ phase: loadPhaseName('over-quota'), sentAt: 130, status: null, error: 'TIMEOUT', doneAt: 5130 });
    for (const o of [a, b, c]) aggregator.add(o);
    const [phase] = aggregator.summary().phases;
    expect(phase).toMatchObject({
      tier: 'starter',
      phase: loadPhaseName('over-quota'),
      orgs: 1,
      count: 3,
      startedAt: 90,
      endedAt: 5130,
      latencyBasis: { intended: 1, sent: 2 },
    });
    const byStatus = Object.fromEntries(phase!.buckets.map((bucket) => [String(bucket.status), bucket]));
    expect(byStatus['200']!.count).toBe(1);
    expect(byStatus['200']!.latency.maxMs()).toBe(20); // from the intended send at 90 to the end at 110
    expect(byStatus['429']!.latency.maxMs()).toBe(5);
    expect(byStatus['null']!.latency.maxMs()).toBe(5000);
    expect(phase!.startedWall).toBe(a.sentWall);
  });
});

describe('LatencyHistogram', () => {
  it('reports exact min/max/count and close percentiles; empty is null', () => {
    const h = new LatencyHistogram();
    expect(h.stats()).toEqual({
      count: 0,
      avgMs: null,
      minMs: null,
      medMs: null,
      p90Ms: null,
      p95Ms: null,
      p99Ms: null,
      maxMs: null,
    });
    for (let ms = 1; ms <= 100; ms++) h.record(ms);
    h.record(Number.NaN);
    h.record(-4);
    const s = h.stats();
    expect(s.count).toBe(102);
    expect(s.minMs).toBe(0);
    expect(s.maxMs).toBe(100);
    expect(s.p95Ms).toBeGreaterThanOrEqual(94);
    expect(s.p95Ms).toBeLessThanOrEqual(96);
    const merged = LatencyHistogram.merged([h, new LatencyHistogram()]);
    expect(merged.count).toBe(102);
    expect(merged.maxMs()).toBe(100);
  });
});
