import { describe, expect, it } from 'vitest';
import { quotaExactVerdict, type QuotaExactInput } from '../../src/verdicts/quota-read-ingest.ts';
import type { Figure } from '../../src/contract/types.ts';
import { headerValue, type Observation } from '../../src/measure/observation.ts';
import { T0, burstQuota, sequentialQuota, type ObsInit } from '../helpers/observations.ts';

const STARTER_READ: Figure = { value: 60, atLeast: false };
const ENTERPRISE_READ: Figure = { value: 2500, atLeast: true };

function sequential(obs: readonly Observation[], window: QuotaExactInput['window'], figure = STARTER_READ) {
  return quotaExactVerdict(obs, { figure, quotaClass: 'read', variant: 'sequential', window });
}
function burst(obs: readonly Observation[], window: QuotaExactInput['window'], figure = STARTER_READ) {
  return quotaExactVerdict(obs, { figure, quotaClass: 'read', variant: 'burst', window });
}
const idsAt = (obs: readonly Observation[], ...ns: number[]) => ns.map((n) => obs[n - 1]!.id);

describe('QUOTA-READ sequential', () => {
  it('passes when requests 1–60 are admitted and 61 gets 429', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual(idsAt(obs, 60, 61));
    expect(f.data).toMatchObject({ limit: 60, admissible: 60, spentBefore: 0, admitted: 60, refused: 1, first429: 61 });
    expect(f.data).not.toHaveProperty('unitsPerRequest');
  });

  it('fails a 429 one request early: 429 at request 60, expected at 61', () => {
    // The task keeps going to Limit + 1 after an early 429, so 60 and 61 are both rejected.
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 59, sent: 61 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.data).toMatchObject({ limit: 60, admissible: 60, first429: 60 });
    expect(f.reasons).toEqual([
      {
        code: 'refused-early',
        firstRefusedAt: 60,
        together: [],
        admittedBefore: 59,
        admissible: 60,
        unclearBefore: 0,
        limit: 60,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
    ]);
    expect(f.evidence).toEqual(idsAt(obs, 59, 60));
  });

  it('fails one request late: Limit + 1 admitted', () => {
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 61 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'admitted-past-limit',
        admittedAt: 61,
        firstRefusedAt: 62,
        sent: obs.length,
        limit: 60,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
    ]);
    expect(f.evidence).toEqual(idsAt(obs, 60, 61, 62));
  });

  it('fails a server that never says 429', () => {
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 1000, sent: 63 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'admitted-past-limit',
        admittedAt: 61,
        firstRefusedAt: null,
        sent: 63,
        limit: 60,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
    ]);
  });

  it('fails a request admitted again after a 429', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      admitted: 59,
      sent: 62,
      tweak: (n, init) =>
        n === 62
          ? { ...init, status: 200, remaining: 0, retryAfter: null, body: { status: 'success', data: [] } }
          : init,
    });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'admitted-after-refusal', admittedAt: 62, firstRefusedAt: 60 });
  });

  it('is inconclusive, not pass or fail, when the window rolls over mid-check', () => {
    // 150 ms before the boundary: about 25 requests in the old window, the rest in a fresh one.
    const { obs, window } = sequentialQuota({ limit: 60, serverStartMs: (T0 + 60) * 1000 - 150 });
    expect(new Set(obs.map((o) => o.rateLimit.reset.value))).toEqual(new Set([T0 + 60, T0 + 120]));
    const f = sequential(obs, window);
    expect(f.verdict).toBe('inconclusive');
    const rolledAt = obs.findIndex((o) => o.rateLimit.reset.value === T0 + 120) + 1;
    expect(f.reasons).toEqual([{ code: 'window-rolled-over', from: T0 + 60, to: T0 + 120, atRequest: rolledAt }]);
  });

  it('judges a rollover that hides an early 429 inconclusive too', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      admitted: 59,
      sent: 61,
      serverStartMs: (T0 + 60) * 1000 - 100,
    });
    expect(sequential(obs, window).verdict).toBe('inconclusive');
  });

  it.each([30_000, -30_000])('judges by the server clock when it is %i ms off the client', (offset) => {
    const good = sequentialQuota({ limit: 60, clockOffsetMs: offset });
    expect(Math.abs(good.obs[0]!.sentWall - Date.parse(good.obs[0]!.date!))).toBeGreaterThanOrEqual(29_000);
    expect(sequential(good.obs, good.window).verdict).toBe('pass');
    const early = sequentialQuota({ limit: 60, admitted: 59, sent: 61, clockOffsetMs: offset });
    const f = sequential(early.obs, early.window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual(expect.objectContaining({ code: 'refused-early', firstRefusedAt: 60 }));
  });

  it.each(['millis', 'delta'] as const)(
    'still judges the count when Reset is %s, placing requests by timing',
    (resetStyle) => {
      const { obs, window } = sequentialQuota({ limit: 60, resetStyle });
      const f = sequential(obs, window);
      expect(f.verdict).toBe('pass');
      expect(f.reasons).toEqual([
        {
          code: 'inside-window-by-timing',
          placedBy: 'reset',
          lackingReset: 61,
          responses: 61,
          requests: 61,
          windowMs: window.lengthMs,
          uncertaintyMs: window.openedUncertaintyMs,
        },
      ]);
    },
  );

  it('is inconclusive when Reset is unusable and the requests outlast the learned window', () => {
    const { obs, window } = sequentialQuota({ limit: 60, resetStyle: 'millis' });
    const f = sequential(obs, { ...window, lengthMs: 100 });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([
      expect.objectContaining({ code: 'finished-after-safe-end', placedBy: 'reset', windowMs: 100 }),
    ]);
  });

  it('reads whether a request without an answer counted from the Remaining around it', () => {
    // Request 30 got no answer; Remaining went 31 -> 29 across it: the server admitted it.
    const counted = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 30 ? { ...init, status: null, error: 'ECONNRESET' } : init),
    });
    const f = sequential(counted.obs, counted.window);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([
      { code: 'lost-request-counted', atRequest: 30, error: 'ECONNRESET', remainingBefore: 31, remainingAfter: 29 },
    ]);
    // Remaining went 31 -> 30 across it: it never reached the limiter, and the 429 comes one request later.
    const notCounted = sequentialQuota({
      limit: 60,
      sent: 62,
      remainingAt: (n) => (n < 30 ? 60 - n : Math.max(0, 61 - n)),
      tweak: (n, init) =>
        n === 30 ? { ...init, status: null, error: 'ECONNRESET' } : n === 61 ? { ...init, status: 200 } : init,
    });
    const g = sequential(notCounted.obs, notCounted.window);
    expect(g.verdict).toBe('pass');
    expect(g.reasons).toContainEqual(
      expect.objectContaining({ code: 'lost-request-not-counted', atRequest: 30, error: 'ECONNRESET' }),
    );
  });

  it('does not read one fewer across a lost request as "not counted" where it counts later (a fall of two further on)', () => {
    // Request 30 lost and counted after 31: Remaining 31 → 30 across it, then 30 → 28; the 429 comes at 61, as it should.
    const late = sequentialQuota({
      limit: 60,
      remainingAt: (used) => (used === 31 ? 30 : 60 - used),
      tweak: (n, init) => (n === 30 ? { ...init, status: null, error: 'ECONNRESET' } : init),
    });
    expect([28, 30, 31].map((i) => late.obs[i]!.rateLimit.remaining.value)).toEqual([31, 30, 28]);
    const f = sequential(late.obs, late.window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toContainEqual({ code: 'outcome-unknown', requests: [30], outcomes: ['ECONNRESET'] });
  });

  it('treats a transport failure it cannot read as a wildcard: inconclusive, naming it, measured again', () => {
    // Lost just before the 429: no admitted answer after it says whether it counted.
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 60 ? { ...init, status: null, error: 'ECONNRESET' } : init),
    });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'outcome-unknown', requests: [60], outcomes: ['ECONNRESET'] }]);
    expect(f.evidence).toEqual(idsAt(obs, 60));
    expect(f.measureAgain).toBe('next-window');
  });

  it('is inconclusive when fewer than Limit + 1 were sent', () => {
    const { obs, window } = sequentialQuota({ limit: 60, sent: 60 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'too-few-requests', sent: 60, needed: 61, allAdmitted: true }]);
  });

  it('judges a non-Enterprise server against the published figure, whatever Limit it announces', () => {
    const { obs, window } = sequentialQuota({ limit: 59, admitted: 59, sent: 61 });
    const f = sequential(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'announced-limit-off-published', announced: 59, published: 60 });
    expect(f.data).toMatchObject({ limit: 60, admissible: 60 });
  });
});

describe('QUOTA-READ Enterprise (figures are minimums)', () => {
  it('judges against the announced Limit when it is above the minimum', () => {
    const { obs, window } = sequentialQuota({ limit: 2600 });
    const f = sequential(obs, window, ENTERPRISE_READ);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.data).toMatchObject({ limit: 2600, admissible: 2600, spentBefore: 0, first429: 2601 });
    const early = sequentialQuota({ limit: 2600, admitted: 2500, sent: 2601 });
    const g = sequential(early.obs, early.window, ENTERPRISE_READ);
    expect(g.verdict).toBe('fail');
    expect(g.reasons).toContainEqual(expect.objectContaining({ code: 'refused-early', firstRefusedAt: 2501 }));
  });

  it('fails an announced Limit below the minimum, even when the server honours it exactly', () => {
    const { obs, window } = sequentialQuota({ limit: 2400, sent: 2501 });
    const f = sequential(obs, window, ENTERPRISE_READ);
    expect(f.verdict).toBe('fail');
    expect(f.reasons?.[0]).toEqual({ code: 'limit-below-minimum', announced: 2400, publishedMinimum: 2500 });
  });

  it('fails an announced Limit below the minimum even when the server admits the minimum', () => {
    const { obs, window } = sequentialQuota({ limit: 2400, admitted: 2500 });
    const f = sequential(obs, window, ENTERPRISE_READ);
    expect(f.verdict).toBe('fail');
    expect(f.reasons?.[0]).toEqual({ code: 'limit-below-minimum', announced: 2400, publishedMinimum: 2500 });
    expect(f.evidence).toContain(obs[0]!.id);
  });

  it('without one announced Limit, fails only a shortfall against the minimum', () => {
    const varying = (n: number) => 2500 + (n % 2);
    const ok = sequentialQuota({ limit: 2600, tweak: (n, init) => ({ ...init, limit: varying(n) }) });
    const f = sequential(ok.obs, ok.window, ENTERPRISE_READ);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'no-announced-limit', publishedMinimum: 2500 }]);
    const short = sequentialQuota({
      limit: 2600,
      admitted: 2000,
      sent: 2001,
      tweak: (n, init) => ({ ...init, limit: varying(n) }),
    });
    expect(sequential(short.obs, short.window, ENTERPRISE_READ).verdict).toBe('fail');
  });
});

describe('QUOTA-READ against a figure declared in the config (exact: the contract is the figure)', () => {
  const DECLARED_READ: Figure = { value: 3000, atLeast: false, declared: true };
  const headerless = (n: number, init: ObsInit): ObsInit => ({ ...init, limit: null, remaining: null, reset: null });

  it('passes exactly the declared figure, saying what it was judged against', () => {
    const { obs, window } = sequentialQuota({ limit: 3000 });
    const f = sequential(obs, window, DECLARED_READ);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 3000, admissible: 3000, spentBefore: 0 });
    expect(f.reasons).toEqual([{ code: 'limit-declared-in-config', limit: 3000, announced: 3000 }]);
  });

  it('fails a server that enforces the Limit it announces instead of the declared one', () => {
    const { obs, window } = sequentialQuota({ limit: 2600, sent: 3001 });
    const f = sequential(obs, window, DECLARED_READ);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual(
      expect.objectContaining({ code: 'refused-early', firstRefusedAt: 2601, limit: 3000 }),
    );
    expect(f.reasons).toContainEqual({ code: 'limit-declared-in-config', limit: 3000, announced: 2600 });
    // Against the published minimum alone, the same answers pass: the server announced 2600 and kept to it.
    expect(sequential(obs, window, ENTERPRISE_READ).verdict).toBe('pass');
  });

  it('without rate-limit headers, judges exactly where the published minimum judges only a shortfall', () => {
    const exact = sequentialQuota({ limit: 3000, tweak: headerless });
    expect(sequential(exact.obs, exact.window, DECLARED_READ).verdict).toBe('pass');
    expect(sequential(exact.obs, exact.window, ENTERPRISE_READ).verdict).toBe('inconclusive');
    const over = sequentialQuota({ limit: 3000, admitted: 3001, sent: 3002, tweak: headerless });
    const f = sequential(over.obs, over.window, DECLARED_READ);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'admitted-past-limit',
        admittedAt: 3001,
        firstRefusedAt: 3002,
        sent: 3002,
        limit: 3000,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
      { code: 'limit-declared-in-config', limit: 3000, announced: null },
      {
        code: 'inside-window-by-timing',
        placedBy: 'reset',
        lackingReset: 3002,
        responses: 3002,
        requests: 3002,
        windowMs: over.window.lengthMs,
        uncertaintyMs: over.window.openedUncertaintyMs,
      },
    ]);
    const short = sequentialQuota({ limit: 3000, admitted: 2999, sent: 3001, tweak: headerless });
    expect(sequential(short.obs, short.window, DECLARED_READ).verdict).toBe('fail');
  });
});

describe('QUOTA-READ burst (2 × Limit released together)', () => {
  it('passes exactly Limit admitted of 2 × Limit', () => {
    const { obs, window } = burstQuota({ limit: 60 });
    const f = burst(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 60, admissible: 60, admitted: 60, refused: 60 });
    expect(f.data!.series).toHaveLength(120);
    expect(f.evidence).toHaveLength(2);
  });

  it('passes exactly Limit admitted in any order', () => {
    const evens = Array.from({ length: 60 }, (_, i) => 2 * (i + 1));
    const lastSixty = Array.from({ length: 60 }, (_, i) => 61 + i);
    for (const admittedIndices of [evens, lastSixty]) {
      const { obs, window } = burstQuota({ limit: 60, admittedIndices });
      expect(burst(obs, window).verdict).toBe('pass');
    }
  });

  it('fails Limit + 1 admitted, citing the excess', () => {
    const { obs, window } = burstQuota({ limit: 60, admittedIndices: Array.from({ length: 61 }, (_, i) => i + 1) });
    const f = burst(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'burst-admitted-past-limit',
        admitted: 61,
        sent: 120,
        refused: 59,
        limit: 60,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
    ]);
    expect(f.evidence.length).toBeGreaterThanOrEqual(2);
    expect(f.evidence.every((id) => obs.some((o) => o.id === id))).toBe(true);
  });

  it('fails fewer than Limit admitted when every other got 429', () => {
    const { obs, window } = burstQuota({ limit: 60, admittedIndices: Array.from({ length: 59 }, (_, i) => i + 1) });
    const f = burst(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'burst-admitted-short',
        admitted: 59,
        sent: 120,
        refused: 61,
        limit: 60,
        unitsPerRequest: 1,
        spentBefore: 0,
        atLeast: false,
      },
    ]);
  });

  it('treats transport failures as wildcards: inconclusive when they could make it exact', () => {
    const { obs, window } = burstQuota({
      limit: 60,
      admittedIndices: Array.from({ length: 59 }, (_, i) => i + 1),
      failures: [60],
    });
    const f = burst(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.data).toMatchObject({ admissible: 60, admitted: 59, refused: 60 });
    expect(f.data!.series).toHaveLength(120);
    expect(f.evidence).toEqual([obs[59]!.id]);
    expect(f.reasons).toEqual([{ code: 'outcome-unknown', requests: [60], outcomes: ['TIMEOUT'] }]);
  });

  it('reads a lost request by the values of Remaining the admissions took: all of them taken, it was not admitted', () => {
    // Request 100 (a 429 had it been answered) was lost: the 60 admitted answers carry 59 … 0, one each.
    const { obs, window } = burstQuota({ limit: 60, failures: [100] });
    const f = burst(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ admitted: 60, refused: 59 });
    expect(f.data!.series).toHaveLength(120);
    expect(f.reasons).toEqual([
      {
        code: 'lost-request-not-admitted',
        atRequest: 100,
        error: 'TIMEOUT',
        admitted: 60,
        values: 60,
        lost: 1,
        missing: 0,
        limit: 60,
      },
    ]);
  });

  it('reads a lost request admitted early in the burst by the value missing among later admissions', () => {
    // Request 6 (second batch) was admitted and its answer lost: its value is missing, admissions after it carry lower ones.
    const { obs, window } = burstQuota({ limit: 60, failures: [6] });
    const f = burst(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ admitted: 60, refused: 60 });
    expect(f.data!.series).toHaveLength(120);
    expect(f.reasons).toEqual([
      expect.objectContaining({ code: 'lost-request-admitted', atRequest: 6, error: 'TIMEOUT', missing: 1 }),
    ]);
  });

  it('reads lost requests some of which were admitted: each missing value taken by one the order allows, the rest not admitted', () => {
    // Request 6 admitted (its value missing among later admissions); 100, sent after 429s came back, not.
    const { obs, window } = burstQuota({ limit: 60, failures: [6, 100] });
    const f = burst(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ admitted: 60, refused: 59 });
    expect(f.data!.series).toHaveLength(120);
    expect(f.reasons).toEqual([
      expect.objectContaining({ code: 'lost-request-admitted', atRequest: 6, error: 'TIMEOUT', lost: 2 }),
      expect.objectContaining({ code: 'lost-request-not-admitted', atRequest: 100, error: 'TIMEOUT', lost: 2 }),
    ]);
  });

  it('does not read a missing value as a lost admission where the server may have refused too early', () => {
    // 59 admitted (59 … 1), request 6 lost: the missing 0 is the end of the count, after every admission.
    const first59 = Array.from({ length: 59 }, (_, i) => (i < 5 ? i + 1 : i + 2));
    const early = burstQuota({ limit: 60, admittedIndices: first59, failures: [6] });
    expect(burst(early.obs, early.window).verdict).toBe('inconclusive');
    // Duplicated values (a racy counter) tell nothing either.
    const racy = burstQuota({
      limit: 60,
      failures: [100],
      admittedIndices: Array.from({ length: 60 }, (_, i) => i + 1),
    });
    const dup = racy.obs.map((o, i) =>
      i === 10
        ? {
            ...o,
            rateLimit: { ...o.rateLimit, remaining: headerValue(String(racy.obs[11]!.rateLimit.remaining.value)) },
          }
        : o,
    );
    expect(burst(dup, racy.window).verdict).toBe('inconclusive');
  });

  it('still fails over-admission whatever the wildcards were', () => {
    const { obs, window } = burstQuota({
      limit: 60,
      admittedIndices: Array.from({ length: 61 }, (_, i) => i + 1),
      failures: [100, 101],
    });
    expect(burst(obs, window).verdict).toBe('fail');
  });

  it('counts a status neither 2xx nor 429 as a wildcard', () => {
    const { obs, window } = burstQuota({ limit: 60, statuses: { 120: 503 } });
    const f = burst(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toContainEqual({ code: 'outcome-unknown', requests: [120], outcomes: ['503'] });
  });

  it('is inconclusive when the window rolled over during the burst', () => {
    const { obs, window } = burstQuota({ limit: 60 });
    const rolled = obs.map((o, i) =>
      i >= 100
        ? {
            ...o,
            rateLimit: { ...o.rateLimit, reset: headerValue(String(T0 + 120)) },
            date: new Date((T0 + 60) * 1000).toUTCString(),
          }
        : o,
    );
    const f = burst(rolled, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([expect.objectContaining({ code: 'window-rolled-over', from: T0 + 60, to: T0 + 120 })]);
  });

  it('passes with a 30 s clock skew', () => {
    const { obs, window } = burstQuota({ limit: 60, clockOffsetMs: 30_000 });
    expect(burst(obs, window).verdict).toBe('pass');
  });
});

describe('QUOTA-INGEST bulk (units per request)', () => {
  const STARTER_INGEST: Figure = { value: 10, atLeast: false };

  it('counts units: two bulk uploads of 5 fill Limit 10, the third is 429', () => {
    const { obs, window } = sequentialQuota({
      limit: 10,
      admitted: 2,
      path: '/recruiter/jobs/vendor/resume-analysis/bulk',
    });
    const f = quotaExactVerdict(obs, {
      figure: STARTER_INGEST,
      quotaClass: 'ingest',
      variant: 'sequential',
      window,
      unitsPerRequest: 5,
    });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 10, admissible: 2, spentBefore: 0, admittedUnits: 10, unitsPerRequest: 5 });
  });

  it('fails bulk uploads counted one per upload, naming the assumption', () => {
    // Four uploads of 5 admitted under Limit 10: the server counted each upload as one.
    const { obs, window } = sequentialQuota({
      limit: 10,
      admitted: 4,
      remainingAt: (i) => 10 - i,
      path: '/recruiter/jobs/vendor/resume-analysis/bulk',
    });
    const f = quotaExactVerdict(obs, {
      figure: STARTER_INGEST,
      quotaClass: 'ingest',
      variant: 'sequential',
      window,
      unitsPerRequest: 5,
    });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'bulk-counted-per-upload',
      admittedUploads: 4,
      unitsPerRequest: 5,
      limit: 10,
    });
  });

  it.each([Number.NaN, 0, -3, Number.POSITIVE_INFINITY])(
    'takes a nonsensical unitsPerRequest (%s) as 1',
    (unitsPerRequest) => {
      const { obs, window } = sequentialQuota({ limit: 10 });
      const f = quotaExactVerdict(obs, {
        figure: STARTER_INGEST,
        quotaClass: 'ingest',
        variant: 'sequential',
        window,
        unitsPerRequest,
      });
      expect(f.verdict).toBe('pass');
      expect(f.data).toMatchObject({ limit: 10, admissible: 10, spentBefore: 0, first429: 11 });
      expect(f.data).not.toHaveProperty('unitsPerRequest');
    },
  );
});

describe('QUOTA-READ: the ledger and the watched window', () => {
  it('counts what the harness itself sent in the window first: 429 at request 60 is exact after one counted sync HEAD', () => {
    // The server counted the sync HEAD: the series' Remaining starts at 58.
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 59, sent: 60, remainingAt: (i) => 59 - i });
    const sync = obs[0]!; // stands for the window-sync HEAD the server counted
    const f = sequential(obs, { ...window, prior: [sync] });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 60, admissible: 59, spentBefore: 1, first429: 60 });
    expect(f.reasons).toEqual([
      { code: 'harness-requests-counted-before', requests: [sync.id], routes: [`${sync.method} ${sync.path}`] },
    ]);
    // Without the ledger, the same answers are one early.
    expect(sequential(obs, window).verdict).toBe('fail');
  });

  it('leaves out of the ledger a poll counted on a counter of its own (a per-route limiter): Remaining shows the check untouched', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const poll = sequentialQuota({ limit: 60, sent: 1, method: 'HEAD', path: '/recruiter/bootstrap' }).obs[0]!;
    const f = sequential(obs, { ...window, prior: [poll] });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 60, admissible: 60, spentBefore: 0 });
    expect(f.reasons).toEqual([
      { code: 'harness-requests-counted-apart', requests: [poll.id], routes: ['HEAD /recruiter/bootstrap'] },
    ]);
  });

  it("keeps in the ledger a read of the check's own route, whatever Remaining shows: 429 at request 60 is exact after it, even with Remaining stuck", () => {
    // Remaining stuck at 59 on every admission; the harness's own read opened the window and counted.
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 59, sent: 60, remainingAt: () => 59 });
    const read = sequentialQuota({ limit: 60, sent: 1 }).obs[0]!;
    const f = sequential(obs, { ...window, prior: [read] });
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ limit: 60, admissible: 59, spentBefore: 1, first429: 60 });
    expect(f.reasons).toEqual([
      { code: 'harness-requests-counted-before', requests: [read.id], routes: [`${read.method} ${read.path}`] },
    ]);
  });

  it('no lucky pass: a read admitted later in the window, after the 429, fails with the evidence', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const last = obs.at(-1)!;
    const refill = sequentialQuota({ limit: 60, sent: 1, serverStartMs: Date.parse(last.date!) + 1000 }).obs[0]!;
    const later = [
      { ...refill, sentAt: last.doneAt + 1000, headersAt: last.doneAt + 1004, doneAt: last.doneAt + 1005 },
    ];
    const f = quotaExactVerdict(obs, {
      figure: STARTER_READ,
      quotaClass: 'read',
      variant: 'sequential',
      window,
      later,
    });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      expect.objectContaining({ code: 'quota-refills-in-window', admittedId: later[0]!.id, refusedId: obs[60]!.id }),
    ]);
    expect(f.evidence).toContain(later[0]!.id);
  });

  it('a read of another route admitted right after the 429 is a quota counted per route', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const last = obs.at(-1)!;
    const other = sequentialQuota({
      limit: 60,
      sent: 1,
      path: '/recruiter/settings/services-api-scopes',
      phase: 'other-route',
      serverStartMs: Date.parse(last.date!),
    }).obs[0]!;
    const later = [{ ...other, sentAt: last.doneAt + 1, headersAt: last.doneAt + 5, doneAt: last.doneAt + 6 }];
    const f = quotaExactVerdict(obs, {
      figure: STARTER_READ,
      quotaClass: 'read',
      variant: 'sequential',
      window,
      later,
      otherRoute: later[0]!,
    });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      {
        code: 'quota-per-route',
        admittedRoute: 'GET /recruiter/settings/services-api-scopes',
        admittedId: later[0]!.id,
        refusedRoute: `${obs[60]!.method} ${obs[60]!.path}`,
        refusedId: obs[60]!.id,
      },
    ]);
  });

  it("an admission in the next window by the server's own Reset and Date, before the safe end as placed, is no refill; one dated mid-window is", () => {
    // A server keeping window starts to whole seconds ends the window before the harness's timing says.
    const { obs, window } = sequentialQuota({ limit: 60 });
    const end = obs.at(-1)!.rateLimit.reset.value!;
    const beforeSafeEnd = window.openedAt + window.lengthMs - 500;
    const at = (o: Observation) => [
      { ...o, sentAt: beforeSafeEnd, headersAt: beforeSafeEnd + 4, doneAt: beforeSafeEnd + 5 },
    ];
    const next = sequentialQuota({ limit: 60, sent: 1, serverStartMs: end * 1000 + 100 }).obs[0]!;
    expect(next.rateLimit.reset.value).toBe(end + 60);
    const f = quotaExactVerdict(obs, {
      figure: STARTER_READ,
      quotaClass: 'read',
      variant: 'sequential',
      window,
      later: at(next),
    });
    expect(f.verdict).toBe('pass');
    // Dated 20 s before the announced end, a "new window" is quota given back mid-window.
    const early = sequentialQuota({
      limit: 60,
      sent: 1,
      serverStartMs: (end - 20) * 1000,
      tweak: (_n, init) => ({ ...init, reset: end + 40 }),
    }).obs[0]!;
    const g = quotaExactVerdict(obs, {
      figure: STARTER_READ,
      quotaClass: 'read',
      variant: 'sequential',
      window,
      later: at(early),
    });
    expect(g.verdict).toBe('fail');
    expect(g.reasons).toEqual([expect.objectContaining({ code: 'quota-refills-in-window', refusedId: obs[60]!.id })]);
  });

  it('an admission after the window surely ended is a new window, not a refill: still a pass', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const last = obs.at(-1)!;
    const fresh = sequentialQuota({ limit: 60, sent: 1 }).obs[0]!;
    const after = window.openedAt + window.lengthMs + 10;
    const later = [{ ...fresh, sentAt: after, headersAt: after + 4, doneAt: after + 5 }];
    const f = quotaExactVerdict(obs, {
      figure: STARTER_READ,
      quotaClass: 'read',
      variant: 'sequential',
      window,
      later,
    });
    expect(last.status).toBe(429);
    expect(f.verdict).toBe('pass');
  });
});

describe('QUOTA-INGEST: a series that ran past its window', () => {
  it('still fails an over-admission shown by the requests answered inside the window', () => {
    // 13 uploads all admitted, the last ones finishing after the window's safe end.
    const burst13 = burstQuota({ limit: 13, sent: 13 });
    const obs = burst13.obs;
    // Placed by timing alone (a server whose Reset places nothing).
    const window = { ...burst13.window, placeBy: 'timing' as const };
    const late = obs.map((o, i) => (i < 11 ? o : { ...o, doneAt: window.openedAt + window.lengthMs + 100 }));
    const f = quotaExactVerdict(late, {
      figure: { value: 10, atLeast: false },
      quotaClass: 'ingest',
      variant: 'burst',
      window,
    });
    expect(f.verdict).toBe('fail');
    expect(f.reasons?.[0]).toEqual({
      code: 'admitted-past-limit-in-window',
      admitted: 11,
      limit: 10,
      unitsPerRequest: 1,
      spentBefore: 0,
      atLeast: false,
    });
    // Too few inside to show anything: undecided, as before.
    const early = obs.map((o, i) => (i < 5 ? o : { ...o, doneAt: window.openedAt + window.lengthMs + 100 }));
    expect(
      quotaExactVerdict(early, {
        figure: { value: 10, atLeast: false },
        quotaClass: 'ingest',
        variant: 'burst',
        window,
      }).verdict,
    ).toBe('inconclusive');
  });
});

describe('QUOTA-READ: a window the check was to open', () => {
  it('is inconclusive, not a fail, when the first answers show the window was not fresh', () => {
    // The server's window outlasted the wait: 20 of its 60 were already spent.
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 40, sent: 41, remainingAt: (i) => 40 - i });
    const f = sequential(obs, { ...window, opensAtFirstRequest: true, placeBy: 'timing' });
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'window-not-fresh', highestRemaining: 39, freshRemaining: 59 }]);
    // Judged as fresh it would have been 20 requests early.
    expect(sequential(obs, window).verdict).toBe('fail');
  });
});
