import { describe, expect, it } from 'vitest';
import { remainingDecrementsVerdict } from '../../src/verdicts/hdr-remaining.ts';
import { T0, sequentialQuota } from '../helpers/observations.ts';

describe('HDR-REMAINING', () => {
  it('passes Remaining 59 … 0 by one, and 0 on the 429', () => {
    const { obs, window } = sequentialQuota({ limit: 60 });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.expected).toContain('Remaining 59, 58, … one less per admitted request (Limit 60)');
    expect(f.actual).toBe('Remaining 59 -> 0 by one over 60 admitted requests; 0 on one 429');
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
    expect(f.actual).toBe('after request 9 Remaining went 51 -> 49 (skipped)');
    expect(f.evidence).toEqual([obs[8]!.id, obs[9]!.id]);
  });

  it('fails Remaining that stalls or rises', () => {
    const stalled = sequentialQuota({ limit: 60, remainingAt: (i) => (i >= 20 ? 61 - i : 60 - i) });
    const f = remainingDecrementsVerdict(stalled.obs, stalled.window);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe('after request 19 Remaining went 41 -> 41 (stalled)');
    const rose = sequentialQuota({ limit: 60, remainingAt: (i) => (i === 5 ? 57 : 60 - i) });
    expect(remainingDecrementsVerdict(rose.obs, rose.window).actual).toContain(
      'after request 4 Remaining went 56 -> 57 (rose)',
    );
  });

  it('fails a first Remaining that is not Limit − 1', () => {
    const { obs, window } = sequentialQuota({ limit: 60, remainingAt: (i) => 61 - i });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain('first admitted response (request 1) showed Remaining 60, expected 59 (Limit 60)');
    expect(f.evidence).toContain(obs[0]!.id);
  });

  it('fails a 429 that reports quota left', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 61 ? { ...init, remaining: 3 } : init),
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe('429 at request 61 showed Remaining 3, not 0');
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
    expect(f.actual).toContain("request 61: Remaining '-1' is negative");
    const garbage = sequentialQuota({
      limit: 60,
      tweak: (n, init) => (n === 7 ? { ...init, remaining: 'lots' } : init),
    });
    const g = remainingDecrementsVerdict(garbage.obs, garbage.window);
    expect(g.verdict).toBe('fail');
    expect(g.actual).toContain("request 7: Remaining 'lots' is not an integer");
  });

  it('is inconclusive, not pass or fail, when the window rolls over mid-check', () => {
    const { obs, window } = sequentialQuota({ limit: 60, serverStartMs: (T0 + 60) * 1000 - 150 });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toContain('window rolled over mid-check');
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
    expect(f.notes).toContain(
      'TIMEOUT at request 30: Remaining 31 → 29 across it, so it counted (admitted, its answer lost)',
    );
  });

  it('is inconclusive, to be measured again, where no Remaining after a lost request says whether it counted', () => {
    const { obs, window } = sequentialQuota({
      limit: 60,
      tweak: (n, init) =>
        n === 60 ? { ...init, status: null, error: 'TIMEOUT', limit: null, remaining: null, reset: null } : init,
    });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toContain('request 60: TIMEOUT (may or may not have counted)');
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
    expect(f.actual).toContain('request 30: ECONNRESET (may or may not have counted)');
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
    expect(f.actual).toContain('after request 29 Remaining went 31 -> 26 (skipped) across one unclear request');
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
    expect(f.notes.join(' ')).toContain('X-RateLimit-Limit varied: 60, 61');
    const empty = remainingDecrementsVerdict([], window);
    expect(empty.verdict).toBe('inconclusive');
    expect(empty.actual).toBe('no observations to place in a window');
  });

  it('fails an admission past the Limit: a Remaining of 0 cannot decrement', () => {
    const { obs, window } = sequentialQuota({ limit: 60, admitted: 61 });
    expect(obs[60]!.rateLimit.remaining.value).toBe(0);
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe('after request 60 Remaining went 0 -> 0 (stalled)');
    expect(f.evidence).toEqual([obs[59]!.id, obs[60]!.id]);
  });

  it('fails Remaining stuck at 0 while still within the Limit', () => {
    const { obs, window } = sequentialQuota({ limit: 60, remainingAt: (i) => Math.max(0, 59 - i) });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain('after request 59 Remaining went 0 -> 0 (stalled)');
  });

  it("lays a wrong announced Limit at HDR-LIMIT's door when Remaining counts down to the real 429", () => {
    // Limit says 61; the server admits 60 and Remaining goes 59 … 0, then 429.
    const { obs, window } = sequentialQuota({ limit: 61, admitted: 60, remainingAt: (i) => 60 - i });
    const f = remainingDecrementsVerdict(obs, window);
    expect(f.verdict).toBe('pass');
    expect(f.notes.join(' ')).toContain(
      'first admitted response (request 1) showed Remaining 59, expected 60 (Limit 61); but it counts down by one to 0 at the first 429',
    );
    // Without a 429 to check the countdown against, the mismatch stands.
    const noEnd = sequentialQuota({ limit: 61, admitted: 60, sent: 50, remainingAt: (i) => 60 - i });
    expect(remainingDecrementsVerdict(noEnd.obs, noEnd.window).verdict).toBe('fail');
  });
});
