/**
 * A sequential series whose bulk went together (suite/series-shape.ts), as QUOTA-READ and
 * HDR-REMAINING judge it: the bulk like a burst (every one admitted, each Remaining value once, in any
 * order), the tail one at a time, where the first 429 must fall exactly.
 */
import { describe, expect, it } from 'vitest';
import { quotaExactVerdict } from '../../src/verdicts/quota-read-ingest.ts';
import { remainingDecrementsVerdict } from '../../src/verdicts/hdr-remaining.ts';
import { resetEpochVerdict } from '../../src/verdicts/hdr-reset.ts';
import { headerValue, type Observation } from '../../src/measure/observation.ts';
import type { WindowContext } from '../../src/measure/window.ts';
import type { ReleasedTogether } from '../../src/verdicts/support/released-together.ts';
import { obs as makeObs, sequentialQuota } from '../helpers/observations.ts';

const STARTER_READ = { value: 60, atLeast: false } as const;
/** Requests 2–58 went together: the tail is 59 and 60 admitted, 61 refused. */
const BULK: ReleasedTogether = { from: 1, to: 58 };

/** A series of the given shape whose bulk answered in reverse order (sent at one instant, Remaining handed out backwards). */
function withBulk(options: Parameters<typeof sequentialQuota>[0], bulk = BULK) {
  const { obs, window } = sequentialQuota(options);
  const part = obs.slice(bulk.from, bulk.to);
  const sentAt = part[0]!.sentAt;
  const reversed = part.map((o, i) => ({
    ...o,
    sentAt,
    rateLimit: { ...o.rateLimit, remaining: part[part.length - 1 - i]!.rateLimit.remaining },
  }));
  return { obs: [...obs.slice(0, bulk.from), ...reversed, ...obs.slice(bulk.to)], window };
}

function quota(obs: readonly Observation[], window: WindowContext, together = [BULK]) {
  return quotaExactVerdict(obs, { figure: STARTER_READ, quotaClass: 'read', variant: 'sequential', window, together });
}

const remaining = (value: number) => headerValue(String(value));
/** A concurrency cap's refusal sent beside `o`: 429 with quota left (Remaining 49). */
const capRefusal = (o: Observation): Observation =>
  makeObs({ sentAt: o.sentAt, status: 429, remaining: 49, limit: 60, reset: o.rateLimit.reset.raw });
const withRemaining = (o: Observation, value: number): Observation => ({
  ...o,
  rateLimit: { ...o.rateLimit, remaining: remaining(value) },
});

describe('QUOTA-READ, a sequential series whose bulk went together', () => {
  it('passes Limit admitted and the 429 at Limit + 1, the bulk answered in any order', () => {
    const { obs, window } = withBulk({ limit: 60 });
    const f = quota(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ admissible: 60, admitted: 60, refused: 1, first429: 61 });
    expect(f.reasons).toEqual([{ code: 'released-together', from: 2, to: 58 }]);
  });

  it('fails a 429 one early in the tail, one at a time', () => {
    const { obs, window } = withBulk({ limit: 60, admitted: 59, sent: 61 });
    const f = quota(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      expect.objectContaining({
        code: 'refused-early',
        firstRefusedAt: 60,
        together: [],
        admittedBefore: 59,
        admissible: 60,
      }),
      { code: 'released-together', from: 2, to: 58 },
    ]);
  });

  it('fails a quota 429 among the bulk: an early admission stop', () => {
    const { obs, window } = withBulk({ limit: 60 });
    const early = { ...obs[20]!, status: 429, rateLimit: { ...obs[20]!.rateLimit, remaining: remaining(0) } };
    const f = quota([...obs.slice(0, 20), early, ...obs.slice(21)], window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual(
      expect.objectContaining({ code: 'refused-early', firstRefusedAt: 21, together: [2, 58] }),
    );
  });

  it('takes a refusal with quota left among the bulk out of the count: the tail one further meets the 429 exactly', () => {
    const { obs, window } = withBulk({ limit: 60, sent: 61 });
    const series = [...obs.slice(0, 10), capRefusal(obs[10]!), ...obs.slice(10)];
    const f = quota(series, window, [{ from: 1, to: 59 }]);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ admissible: 60, admitted: 60, refused: 1, first429: 62 });
    expect(f.reasons).toEqual([
      { code: 'released-together', from: 2, to: 59 },
      { code: 'cap-refusals-not-counted', requests: [11], remaining: [49] },
    ]);
  });

  it('reads no order among requests released together: a 429 among them before admissions in send order is not early', () => {
    // Requests 56–61 went together; the server took 59 (sent before 60 and 61) last: 60 admitted in all.
    const { obs, window } = sequentialQuota({ limit: 60 });
    const swapped = [...obs];
    [swapped[58], swapped[60]] = [swapped[60]!, swapped[58]!];
    expect(quota(swapped, window, []).reasons).toContainEqual({
      code: 'admitted-after-refusal',
      admittedAt: 60,
      firstRefusedAt: 59,
    });
    const f = quota(swapped, window, [{ from: 55, to: 61 }]);
    expect(f.verdict).toBe('pass');
  });

  it('fails a 429 among requests released together while fewer than the Limit were admitted through them', () => {
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 57, sent: 61 });
    const f = quota(obs, window, [{ from: 50, to: 61 }]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual(
      expect.objectContaining({ code: 'refused-early', firstRefusedAt: 58, together: [51, 61] }),
    );
  });

  it('leaves open, to measure again, a bulk answer lost where the admissions cannot tell whether it counted', () => {
    const { obs, window } = withBulk({ limit: 60 });
    const lost: Observation = {
      ...obs[30]!,
      status: null,
      headersAt: null,
      error: { code: 'ECONNRESET', message: 'reset' },
    };
    // Another answer repeats a value, so the values every admission takes cannot place the lost one.
    const repeated = withRemaining(obs[31]!, obs[32]!.rateLimit.remaining.value!);
    const f = quota([...obs.slice(0, 30), lost, repeated, ...obs.slice(32)], window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toContainEqual({ code: 'outcome-unknown', requests: [31], outcomes: ['ECONNRESET'] });
    expect(f.measureAgain).toBe('next-window');
  });
});

describe('HDR-REMAINING, a sequential series whose bulk went together', () => {
  it('passes every value given once among the bulk, in any order, and the tail one less each', () => {
    const { obs, window } = withBulk({ limit: 60 });
    const f = remainingDecrementsVerdict(obs, window, [BULK]);
    expect(f.verdict).toBe('pass');
  });

  it('notes a value given twice among the bulk (a counter read apart from its decrement) where the count after it is exact', () => {
    const { obs, window } = withBulk({ limit: 60 });
    // Two answers read the counter after both decrements: 40 shown twice, 41 never.
    const at41 = obs.findIndex((o, i) => i < BULK.to && o.rateLimit.remaining.value === 41);
    const series = obs.map((o, i) => (i === at41 ? withRemaining(o, 40) : o));
    const f = remainingDecrementsVerdict(series, window, [BULK]);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'remaining-repeated-together', from: 2, to: 58, repeats: 1, example: 40 }]);
  });

  it('fails a bulk that lost decrements: the tail goes on from a count higher than what was admitted', () => {
    const { obs, window } = withBulk({ limit: 60 });
    // A racy counter: two admissions took one decrement, so every value after is one higher.
    const racy = obs.map((o, i) => {
      const v = o.rateLimit.remaining.value;
      if (i === 0 || o.status !== 200 || v === null) return o;
      return i < BULK.to ? (v === 41 ? withRemaining(o, 42) : o) : withRemaining(o, v + 1);
    });
    const f = remainingDecrementsVerdict(racy, window, [BULK]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'remaining-not-decrementing', after: 58, from: 2, to: 2, unclear: 0 });
  });

  it('fails a value outside what the admissions before and among the bulk allow', () => {
    const { obs, window } = withBulk({ limit: 60 });
    const series = obs.map((o, i) => (i === 5 ? withRemaining(o, 59) : o));
    const f = remainingDecrementsVerdict(series, window, [BULK]);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'remaining-outside-together',
      from: 2,
      to: 58,
      values: [59],
      high: 58,
      low: 2,
      base: 59,
    });
  });

  it("does not hold a cap's refusal among the bulk to the quota's 0", () => {
    const { obs, window } = withBulk({ limit: 60, sent: 61 });
    const series = [...obs.slice(0, 10), capRefusal(obs[10]!), ...obs.slice(10)];
    const f = remainingDecrementsVerdict(series, window, [{ from: 1, to: 59 }]);
    expect(f.verdict).toBe('pass');
  });
});

describe('HDR-RESET, a series whose bulk straddled a window boundary', () => {
  it('does not read a Reset as going back where requests released together were taken out of send order', () => {
    // Two windows: requests 2–58 went together across the boundary; the server took request 30 (sent
    // before 31) after it, so in send order Reset goes from the new window's back to the old one's.
    const { obs, window } = sequentialQuota({ limit: 60, windowS: 1, gapMs: 30 });
    const boundary = obs.findIndex((o) => o.rateLimit.reset.value !== obs[0]!.rateLimit.reset.value);
    expect(boundary).toBeGreaterThan(1);
    const swapped = [...obs];
    [swapped[boundary - 1], swapped[boundary]] = [swapped[boundary]!, swapped[boundary - 1]!];
    const part: ReleasedTogether = { from: boundary - 2, to: boundary + 2 };
    expect(resetEpochVerdict(swapped, 1, window).reasons?.[0]).toMatchObject({
      code: 'reset-went-back',
      request: boundary + 1,
    });
    expect(resetEpochVerdict(swapped, 1, window, [part]).verdict).toBe('pass');
  });
});
