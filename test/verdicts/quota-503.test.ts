/**
 * A quota that refuses with 503 (issue 29, item 6): requests within the Limit admitted and every one
 * past it answered 503 fails QUOTA-READ / QUOTA-INGEST's 429 with a reason of its own; a 503 anywhere
 * else stays the wildcard it was.
 */
import { describe, expect, it } from 'vitest';
import { quotaExactVerdict, type QuotaExactInput } from '../../src/verdicts/quota-read-ingest.ts';
import type { Figure } from '../../src/contract/types.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { burstQuota, sequentialQuota, type ObsInit } from '../helpers/observations.ts';

const READ: Figure = { value: 10, atLeast: false };
const judged = (obs: readonly Observation[], window: QuotaExactInput['window'], variant: 'sequential' | 'burst') =>
  quotaExactVerdict(obs, { figure: READ, quotaClass: 'read', variant, window });

/** nginx's limit_req refusal: 503, an HTML page, no rate-limit headers, no Retry-After. */
const unavailable = (init: ObsInit): ObsInit => ({
  ...init,
  status: 503,
  limit: null,
  remaining: null,
  reset: null,
  retryAfter: null,
  bodyText: '<html>503 Service Temporarily Unavailable</html>',
  contentType: 'text/html',
});

const LIMIT_FIGURES = { limit: 10, unitsPerRequest: 1, spentBefore: 0, atLeast: false };

describe('a quota refused with 503', () => {
  it('fails a sequential series: 1–10 admitted, every request from 11 on answered 503', () => {
    const { obs, window } = sequentialQuota({
      limit: 10,
      sent: 14,
      tweak: (n, init) => (n > 10 ? unavailable(init) : init),
    });
    const f = judged(obs, window, 'sequential');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'quota-refused-with-503',
      firstRequest: 11,
      count: 4,
      admitted: 10,
      ...LIMIT_FIGURES,
    });
    expect(f.reasons).not.toContainEqual(expect.objectContaining({ code: 'outcome-unknown' }));
    expect(f.evidence).toEqual([obs[9]!.id, obs[10]!.id]);
  });

  it('fails a burst: exactly 10 admitted, every other one 503', () => {
    const { obs, window } = burstQuota({
      limit: 10,
      sent: 20,
      admittedIndices: Array.from({ length: 10 }, (_, i) => i + 1),
      statuses: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i + 11, 503])),
    });
    const f = judged(obs, window, 'burst');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'quota-refused-with-503',
      firstRequest: 11,
      count: 10,
      admitted: 10,
      ...LIMIT_FIGURES,
    });
  });

  it('leaves a 503 elsewhere a wildcard: one mid-series, or 503s after too few admissions', () => {
    const mid = sequentialQuota({ limit: 10, sent: 12, tweak: (n, init) => (n === 5 ? unavailable(init) : init) });
    const midFinding = judged(mid.obs, mid.window, 'sequential');
    expect(midFinding.reasons ?? []).not.toContainEqual(expect.objectContaining({ code: 'quota-refused-with-503' }));
    expect(midFinding.reasons).toContainEqual({ code: 'outcome-unknown', requests: [5], outcomes: ['503'] });

    const early = sequentialQuota({ limit: 10, sent: 14, tweak: (n, init) => (n > 9 ? unavailable(init) : init) });
    const earlyFinding = judged(early.obs, early.window, 'sequential');
    expect(earlyFinding.verdict).toBe('inconclusive');
    expect(earlyFinding.reasons).toContainEqual({
      code: 'outcome-unknown',
      requests: [10, 11, 12, 13, 14],
      outcomes: ['503', '503', '503', '503', '503'],
    });
  });

  it('leaves 503s beside 429s as they were', () => {
    const { obs, window } = sequentialQuota({
      limit: 10,
      sent: 14,
      tweak: (n, init) => (n > 12 ? unavailable(init) : init),
    });
    const f = judged(obs, window, 'sequential');
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toContainEqual({ code: 'outcome-unknown', requests: [13, 14], outcomes: ['503', '503'] });
  });
});
