/**
 * The revocation confidence figures against values computed outside this code: the closed forms
 * (1 − level)^(1/N) for N of N, and for the rest SciPy 1.17.1's exact Beta quantile,
 * `scipy.stats.beta.ppf(0.05, x, n - x + 1)` (the one-sided 95 % Clopper–Pearson lower bound).
 */
import { describe, expect, it } from 'vitest';
import { clopperPearsonLower, quantileBoundedByMax, trialsToBound } from '../../src/verdicts/support/confidence.ts';

describe('Clopper–Pearson one-sided 95 % lower bound', () => {
  // [trials, within, lower bound]: SciPy 1.17.1, scipy.stats.beta.ppf(0.05, x, n - x + 1), 6 decimals.
  const SCIPY: readonly (readonly [number, number, number])[] = [
    [20, 20, 0.860892],
    [20, 19, 0.783894],
    [20, 18, 0.717381],
    [59, 59, 0.950492],
    [59, 58, 0.922102],
    [100, 97, 0.924289],
    [299, 299, 0.990031],
    [10, 5, 0.222441],
    [1, 1, 0.05],
  ];
  it.each(SCIPY)('%i trials, %i within: %f', (n, x, expected) => {
    expect(clopperPearsonLower(x, n)).toBeCloseTo(expected, 5);
  });

  it('is the closed form 0.05^(1/N) when every trial was within (20 of 20: 86.1 %)', () => {
    for (const n of [1, 5, 20, 59, 299]) expect(clopperPearsonLower(n, n)).toBeCloseTo(0.05 ** (1 / n), 10);
    expect((clopperPearsonLower(20, 20) * 100).toFixed(1)).toBe('86.1');
  });

  it('is 0 with none within, and refuses counts that cannot be', () => {
    expect(clopperPearsonLower(0, 20)).toBe(0);
    expect(() => clopperPearsonLower(21, 20)).toThrow(RangeError);
    expect(() => clopperPearsonLower(1, 0)).toThrow(RangeError);
  });
});

describe('what the slowest trial bounds', () => {
  it('with 20 trials, about the 86th percentile at 95 %', () => {
    expect(quantileBoundedByMax(20)).toBeCloseTo(0.05 ** (1 / 20), 12);
    expect(Math.floor(quantileBoundedByMax(20) * 100)).toBe(86);
  });

  it('bounding p95 takes 59 trials, p99 299 (the least N with q^N ≤ 0.05)', () => {
    expect(trialsToBound(0.95)).toBe(59);
    expect(trialsToBound(0.99)).toBe(299);
    // 58 would not do: 0.95^58 > 0.05.
    expect(0.95 ** 58).toBeGreaterThan(0.05);
    expect(0.95 ** 59).toBeLessThanOrEqual(0.05);
  });
});
