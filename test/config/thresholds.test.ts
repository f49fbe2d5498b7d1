/** k6 threshold expressions: parsing (k6's grammar, one UsageError naming every malformed one) and evaluation. */
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../src/measure/histogram.ts';
import {
  bucketTags,
  evaluateThreshold,
  evaluateThresholds,
  type MetricBucket,
  type ThresholdData,
} from '../../src/verdicts/support/threshold-eval.ts';
import { parseThreshold, parseThresholds, type Threshold } from '../../src/config/thresholds.ts';

function one(key: string, expression: string): Threshold {
  const parsed = parseThreshold(key, expression);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value;
}

function bucket(tier: string, phase: string, status: number | null, latencies: readonly number[]): MetricBucket {
  const latency = new LatencyHistogram();
  for (const ms of latencies) latency.record(ms);
  return { tags: bucketTags(tier, phase, status), count: latencies.length, latency };
}

describe('parseThreshold', () => {
  it.each([
    [
      'http_req_duration',
      'p(95)<300',
      { metric: 'http_req_duration', aggregation: { kind: 'p', percentile: 95 }, operator: '<', value: 300 },
    ],
    [
      'http_req_duration',
      'p(99.9) <= 1000',
      { aggregation: { kind: 'p', percentile: 99.9 }, operator: '<=', value: 1000 },
    ],
    ['http_req_duration', 'avg<200', { aggregation: { kind: 'avg' }, operator: '<', value: 200 }],
    ['http_req_duration', 'med>=0', { aggregation: { kind: 'med' }, operator: '>=' }],
    ['http_req_duration', 'max<=1000', { aggregation: { kind: 'max' }, operator: '<=', value: 1000 }],
    ['http_req_duration', 'min > 0.5', { aggregation: { kind: 'min' }, operator: '>', value: 0.5 }],
    [
      'http_req_failed',
      'rate<0.01',
      { metric: 'http_req_failed', type: 'rate', aggregation: { kind: 'rate' }, value: 0.01 },
    ],
    [
      'http_reqs',
      'count>0',
      { metric: 'http_reqs', type: 'counter', aggregation: { kind: 'count' }, operator: '>', value: 0 },
    ],
    ['http_reqs', 'rate>=10', { aggregation: { kind: 'rate' }, operator: '>=' }],
    ['dropped_iterations', 'count==0', { metric: 'dropped_iterations', operator: '==', value: 0 }],
    ['http_reqs', 'count!=3', { operator: '!=' }],
    ['http_reqs', 'count===3', { operator: '===' }],
  ])('%s %s', (key, expression, expected) => {
    expect(one(key, expression)).toMatchObject(expected);
  });

  it('reads tag filters, k6 style', () => {
    expect(one('http_req_duration{status:429}', 'p(95)<100').filter).toEqual({ status: '429' });
    expect(one('http_req_duration{expected_response:true}', 'p(95)<300').filter).toEqual({ expected_response: 'true' });
    expect(one('http_req_failed{ scenario: over-quota , tier:"starter" }', 'rate<0.1').filter).toEqual({
      phase: 'over-quota',
      tier: 'starter',
    });
  });

  it.each([
    ['http_req_duration', 'p95<300', /is not a k6 threshold expression/],
    ['http_req_duration', 'p(95)<', /is not a k6 threshold expression/],
    ['http_req_duration', 'p(95)=300', /is not a k6 threshold expression/],
    ['http_req_duration', 'p(101)<300', /percentile 101 is outside 0-100/],
    ['http_req_duration', 'rate<0.1', /uses rate, which a trend metric does not have/],
    ['http_req_failed', 'p(95)<0.1', /uses p\(95\), which a rate metric does not have/],
    ['http_reqs', 'avg<3', /counter/],
    ['http_req_waiting', 'p(95)<300', /unknown metric http_req_waiting/],
    ['http_req_duration{colour:red}', 'p(95)<300', /unknown tag colour/],
    ['http_req_duration{status}', 'p(95)<300', /filter part 'status' is not tag:value/],
    ['http_req_duration{status:200', 'p(95)<300', /is not a metric name/],
  ])('refuses %s %s', (key, expression, problem) => {
    const parsed = parseThreshold(key, expression);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });
});

describe('parseThresholds', () => {
  it('parses a scenario record', () => {
    const parsed = parseThresholds({
      'http_req_duration{expected_response:true}': ['p(95)<300', 'avg<100'],
      http_req_failed: ['rate<0.01'],
    });
    expect(parsed.map((t) => `${t.key} ${t.source}`)).toEqual([
      'http_req_duration{expected_response:true} p(95)<300',
      'http_req_duration{expected_response:true} avg<100',
      'http_req_failed rate<0.01',
    ]);
  });

  it('names every malformed expression in one UsageError line', () => {
    let error: unknown;
    try {
      parseThresholds(
        { http_req_duration: ['p(95)<300', 'p95<300'], http_req_failed: ['rate<<0.01'], http_reqs: [] },
        'scenario starter: load.thresholds',
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ name: 'UsageError', code: 'TG_SCENARIO' });
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^scenario starter: load\.thresholds: /);
    expect(message).toContain("'p95<300'");
    expect(message).toContain("'rate<<0.01'");
    expect(message).toContain('http_reqs: expected a list');
  });
});

describe('evaluateThreshold', () => {
  const data: ThresholdData = {
    buckets: [
      bucket(
        'starter',
        'at-quota',
        200,
        Array.from({ length: 100 }, (_, i) => i + 1),
      ),
      bucket('starter', 'over-quota', 200, [10, 20]),
      bucket('starter', 'over-quota', 429, [1, 2, 3, 4]),
      bucket('starter', 'over-quota', 500, [50]),
      bucket('starter', 'over-quota', null, [5000]),
    ],
    dropped: [{ tags: { tier: 'starter', phase: 'over-quota' }, count: 3 }],
    durationS: 10,
  };

  it('takes percentiles, averages and extremes over the matching buckets', () => {
    expect(evaluateThreshold(one('http_req_duration{phase:at-quota}', 'p(95)<100'), data)).toMatchObject({
      verdict: 'pass',
      samples: 100,
    });
    expect(evaluateThreshold(one('http_req_duration{phase:at-quota}', 'p(95)<100'), data).observed).toBeCloseTo(95, 0);
    expect(evaluateThreshold(one('http_req_duration{phase:at-quota}', 'avg<50'), data)).toMatchObject({
      verdict: 'fail',
      observed: 50.5,
    });
    expect(evaluateThreshold(one('http_req_duration{status:429}', 'max<=4'), data)).toMatchObject({
      verdict: 'pass',
      observed: 4,
      samples: 4,
    });
    expect(evaluateThreshold(one('http_req_duration{status:429}', 'min>1'), data)).toMatchObject({
      verdict: 'fail',
      observed: 1,
    });
    expect(evaluateThreshold(one('http_req_duration{status:429}', 'med<3'), data).verdict).toBe('pass');
  });

  it('counts 2xx and 429 as expected; other statuses and transport failures as failed', () => {
    const failed = evaluateThreshold(one('http_req_failed', 'rate<0.01'), data);
    expect(failed).toMatchObject({ verdict: 'fail', samples: 108 });
    expect(failed.observed).toBeCloseTo(2 / 108, 6);
    expect(evaluateThreshold(one('http_req_failed{phase:at-quota}', 'rate<0.01'), data)).toMatchObject({
      verdict: 'pass',
      observed: 0,
    });
    expect(evaluateThreshold(one('http_req_duration{expected_response:false}', 'max<1000'), data)).toMatchObject({
      verdict: 'fail',
      observed: 5000,
      samples: 2,
    });
  });

  it('counts responses and dropped requests, and their rate per second', () => {
    expect(evaluateThreshold(one('http_reqs', 'count>100'), data)).toMatchObject({ verdict: 'pass', observed: 108 });
    expect(evaluateThreshold(one('http_reqs{status:429}', 'rate<1'), data)).toMatchObject({
      verdict: 'pass',
      observed: 0.4,
    });
    expect(evaluateThreshold(one('dropped_iterations', 'count==0'), data)).toMatchObject({
      verdict: 'fail',
      observed: 3,
    });
    expect(evaluateThreshold(one('dropped_iterations{phase:at-quota}', 'count==0'), data)).toMatchObject({
      verdict: 'pass',
      observed: 0,
    });
  });

  it('reports no data, never a pass, when nothing matches', () => {
    expect(evaluateThreshold(one('http_req_duration{status:503}', 'p(95)<100'), data)).toMatchObject({
      verdict: 'no-data',
      observed: null,
      samples: 0,
    });
    expect(evaluateThreshold(one('http_req_failed{tier:enterprise}', 'rate<0.01'), data)).toMatchObject({
      verdict: 'no-data',
    });
    expect(evaluateThresholds([one('http_reqs{tier:enterprise}', 'count==0')], data)[0]).toMatchObject({
      verdict: 'pass',
      observed: 0,
    });
  });
});
