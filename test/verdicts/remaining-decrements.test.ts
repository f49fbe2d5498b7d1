import { describe, expect, it } from 'vitest';
import { remainingDecrementsVerdict } from '../../src/verdicts/hdr-remaining.ts';
import { reasonText } from '../../src/catalogue/reasons/index.ts';
import { T0, sequentialQuota } from '../helpers/observations.ts';

describe('HDR-REMAINING', () => {
  it('passes Remaining 59 … 0 by one, and 0 on the 429', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.data?.limit).toBe(60);
    expect(f.data?.countdown).toEqual({ first: 59, last: 0, admitted: 60, zeroOn429: 1 });
    expect(f.evidence).toEqual([obs[0]!.id, obs[59]!.id, obs[60]!.id]);
  });

  it('fails Remaining skipping a value', () => {
    // The 10th admitted request shows 49 instead of 50 (the counter double-counted it), so 59 fill the window.
    const { obs, window } = sequentialQuota({
      limit: 60,
      admitted: 59,
      sent: 61,
      remainingAt: (i) => (i >= 10 ? 59 - i : 60 - i),
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'remaining-skipped', after: 9, from: 51, to: 49, unclear: 0 }]);
    expect(f.evidence).toEqual([obs[8]!.id, obs[9]!.id]);
  });

  it('fails Remaining that stalls or rises', () => {
    const stalled = sequentialQuota({ limit: 60, remainingAt: (i) => (i >= 20 ? 61 - i : 60 - i) });
    const f = remainingDecrementsVerdict(stalled.obs, stalled.window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'remaining-not-decrementing', after: 19, from: 41, to: 41, unclear: 0 }]);
    const rose = sequentialQuota({ limit: 60, remainingAt: (i) => (i === 5 ? 57 : 60 - i) });
    expect(remainingDecrementsVerdict(rose.obs, rose.window).reasons).toContainEqual({
      code: 'remaining-not-decrementing',
      after: 4,
      from: 56,
      to: 57,
      unclear: 0,
    });
  });

  it('fails a first Remaining that is not Limit − 1', () => {
    const { obs, window } = sequentialQuota({ limit: 60, remainingAt: (i) => 61 - i });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'remaining-start-off',
      request: 1,
      first: 60,
      expected: 59,
      limit: 60,
      spent: 0,
    });
    expect(f.evidence).toContain(obs[0]!.id);
  });

  it('fails a 429 that reports quota left', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 61 ? { ...init, remaining: 3 } : init),
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'remaining-not-zero-on-429', request: 61, remaining: 3 }]);
    expect(f.evidence).toEqual([obs[60]!.id]);
  });

  it('fails a negative or garbage Remaining', () => {
    const negative = sequentialQuota({
      limit: 60,
      admitted: 61,
      tweak: (n, init) => (n === 61 ? { ...init, remaining: '-1' } : init),
    });
    const f = remainingDecrementsVerdict(negative.obs, negative.window);
    expect(f.verdict).toBe('fail');
    const negativeReason = {
      code: 'header-not-integer',
      header: 'Remaining',
      raw: '-1',
      request: negative.obs[60]!.id,
    };
    expect(f.reasons).toContainEqual(negativeReason);
    expect(f.reasons?.map(reasonText)).toContain(`Remaining '-1' is negative (#${negative.obs[60]!.id})`);
    const garbage = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 7 ? { ...init, remaining: 'lots' } : init),
    });
    const g = remainingDecrementsVerdict(garbage.obs, garbage.window);
    expect(g.verdict).toBe('fail');
    expect(g.reasons).toContainEqual({
      code: 'header-not-integer',
      header: 'Remaining',
      raw: 'lots',
      request: garbage.obs[6]!.id,
    });
  });

  it('is inconclusive, not pass or fail, when the window rolls over mid-check', () => {
    const { obs, window } = sequentialQuota({ limit: 60, serverStartMs: (T0 + 60) * 1000 - 150 });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    const rolled = obs.findIndex((o) => o.rateLimit.reset.value === T0 + 120);
    expect(rolled).toBeGreaterThan(0);
    expect(f.reasons).toEqual([
      { code: 'series-spans-windows', requests: obs.length },
      { code: 'window-rolled-over', from: T0 + 60, to: T0 + 120, atRequest: rolled + 1 },
    ]);
    expect(f.data?.countdown).toBeNull();
  });

  it('allows a transport failure to have counted, as the Remaining across it says', () => {
    // Request 30 got no response, but the server counted it: Remaining goes 31 -> 29 across it.
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) =>
        n === 30 ? { ...init, status: null, error: 'TIMEOUT', limit: null, remaining: null, reset: null } : init,
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([
      { code: 'lost-request-counted', atRequest: 30, error: 'TIMEOUT', remainingBefore: 31, remainingAfter: 29 },
    ]);
    expect(f.data?.countdown).toEqual({ first: 59, last: 0, admitted: 59, zeroOn429: 1 });
  });

  it('is inconclusive, to be measured again, where no Remaining after a lost request says whether it counted', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) =>
        n === 60 ? { ...init, status: null, error: 'TIMEOUT', limit: null, remaining: null, reset: null } : init,
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'counting-unknown', request: 60, outcome: 'TIMEOUT' }]);
    expect(f.measureAgain).toBe('next-window');
  });

  it('allows a lost request to count late, a step after it: inconclusive, never a fail', () => {
    // Request 30 lost, reaching the limiter after 31: Remaining 31 → 30 across it, then 30 → 28.
    const { obs, window } = sequentialQuota({
      limit: 60,
      remainingAt: (used) => (used === 31 ? 30 : 60 - used),
      tweak: (n, init) =>
        n === 30 ? { ...init, status: null, error: 'ECONNRESET', limit: null, remaining: null, reset: null } : init,
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'counting-unknown', request: 30, outcome: 'ECONNRESET' }]);
    // A second skip further on is more than the one lost request explains.
    const twice = sequentialQuota({
      limit: 60,
      remainingAt: (used) => (used === 31 ? 30 : used >= 40 ? 59 - used : 60 - used),
      tweak: (n, init) =>
        n === 30 ? { ...init, status: null, error: 'ECONNRESET', limit: null, remaining: null, reset: null } : init,
    });
    expect(remainingDecrementsVerdict(twice.obs, twice.window).verdict).toBe('fail');
  });

  it('still catches a skip across a transport failure when it is more than the failure explains', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      remainingAt: (i) => (i >= 31 ? 57 - i : 60 - i),
      tweak: (n, init) => (n === 30 ? { ...init, status: null, error: 'TIMEOUT', remaining: null } : init),
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'remaining-skipped', after: 29, from: 31, to: 26, unclear: 1 });
  });

  it('judges by the server clock when it is 30 s off the client', () => {
    const { obs, window } = sequentialQuota({ limit: 60, clockOffsetMs: 30_000 });
    expect(remainingDecrementsVerdict(obs, window).verdict).toBe('pass');
  });

  it('is inconclusive without a consistent Limit or any observation', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) => ({ ...init, limit: n % 2 === 0 ? 60 : 61 }),
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'no-consistent-limit', limits: [60, 61] }]);
    const empty = remainingDecrementsVerdict([], window);
    expect(empty.verdict).toBe('inconclusive');
    expect(empty.reasons).toEqual([{ code: 'series-spans-windows', requests: 0 }, { code: 'nothing-to-place' }]);
  });

  it('fails an admission past the Limit: a Remaining of 0 cannot decrement', () => {
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 61 });
    expect(obs[60]!.rateLimit.remaining.value).toBe(0);
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'remaining-not-decrementing', after: 60, from: 0, to: 0, unclear: 0 }]);
    expect(f.evidence).toEqual([obs[59]!.id, obs[60]!.id]);
  });

  it('fails Remaining stuck at 0 while still within the Limit', () => {
    const { obs, window } = sequentialQuota({ limit: 60, remainingAt: (i) => Math.max(0, 59 - i) });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'remaining-not-decrementing', after: 59, from: 0, to: 0, unclear: 0 });
  });

  it("lays a wrong announced Limit at HDR-LIMIT's door when Remaining counts down to the real 429", () => {
    // Limit says 61; the server admits 60 and Remaining goes 59 … 0, then 429.
    const { obs, window } = sequentialQuota({ limit: 61, admitted: 60, remainingAt: (i) => 60 - i });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([
      { code: 'remaining-start-explained', request: 1, first: 59, expected: 60, limit: 61, spent: 0 },
    ]);
    // Without a 429 to check the countdown against, the mismatch stands.
    const noEnd = sequentialQuota({ limit: 61, admitted: 60, sent: 50, remainingAt: (i) => 60 - i });
    expect(remainingDecrementsVerdict(noEnd.obs, noEnd.window).verdict).toBe('fail');
  });

  it('is inconclusive where an admitted response carries no Remaining, or no admission carries one', () => {
    const unreadable = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 10 ? { ...init, remaining: null } : init),
    });
    const f = remainingDecrementsVerdict(unreadable.obs, unreadable.window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'remaining-unreadable', request: 10 }]);
    const refused = sequentialQuota({ limit: 60, admitted: 0, sent: 2 });
    const none = remainingDecrementsVerdict(refused.obs, refused.window);
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-admitted-remaining', requests: 2 }]);
  });

  it('fails when no response carried Remaining (§8: on every response)', () => {
    const { obs, window } = sequentialQuota({ limit: 5, tweak: (_n, init) => ({ ...init, remaining: null }) });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'header-absent-everywhere', header: 'X-RateLimit-Remaining', responses: 6 }]);
  });
});
