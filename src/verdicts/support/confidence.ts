/**
 * What a number of revocation trials proves (README "How it measures": the confidence statement).
 * Of N trials, x took effect on every edge within the SLA. Taken as independent draws, the share p of
 * all revocations that do has a one-sided lower confidence bound by the exact binomial method of
 * Clopper and Pearson (1934): the p at which x or more successes of N would happen only 1 − level of
 * the time, the (1 − level) quantile of Beta(x, N − x + 1); for x = N it is (1 − level)^(1/N).
 * The slowest of N trials is, at `level`, an upper bound for the q-quantile with q^N = 1 − level.
 */

/** Halvings of [0, 1] the bound is found by: far past double precision. */
const BISECTIONS = 200;

/**
 * P(X ≥ x) for X ~ Binomial(n, p), summed in log space (n up to the thousands of trials a run has).
 * The exact tail: the beta quantile the bound is defined by is its inverse, found here by bisection,
 * which needs no library (one that has it brings some two hundred packages for this one function).
 */
function upperTail(x: number, n: number, p: number): number {
  if (p <= 0) return x === 0 ? 1 : 0;
  if (p >= 1) return 1;
  let logChoose = 0; // log C(n, k), from k = 0
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logChoose += Math.log(n - k + 1) - Math.log(k);
    if (k >= x) sum += Math.exp(logChoose + k * Math.log(p) + (n - k) * Math.log1p(-p));
  }
  return Math.min(1, sum);
}

/**
 * One-sided lower bound on a success share from `successes` of `trials` (Clopper–Pearson), in
 * [0, 1]: the p at which `successes` or more would come only 1 − level of the time.
 */
export function clopperPearsonLower(successes: number, trials: number, level = 0.95): number {
  if (!Number.isInteger(trials) || trials < 1 || !Number.isInteger(successes) || successes < 0 || successes > trials) {
    throw new RangeError(`expected 0 ≤ successes ≤ trials, whole numbers, trials ≥ 1 (got ${successes} of ${trials})`);
  }
  if (successes === 0) return 0;
  let low = 0;
  let high = 1;
  // The tail grows with p: the bound is where it reaches 1 − level.
  for (let i = 0; i < BISECTIONS && high - low > Number.EPSILON; i++) {
    const mid = (low + high) / 2;
    if (upperTail(successes, trials, mid) < 1 - level) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The quantile the slowest of `trials` bounds from above at `level`: q with q^trials = 1 − level. */
export function quantileBoundedByMax(trials: number, level = 0.95): number {
  return (1 - level) ** (1 / trials);
}

/** Trials needed, none slower, for the slowest to bound the `quantile` at `level`: the least N with quantile^N ≤ 1 − level. */
export function trialsToBound(quantile: number, level = 0.95): number {
  return Math.ceil(Math.log(1 - level) / Math.log(quantile) - 1e-9);
}

/**
 * Trials that prove a target, none slower: the least N whose Clopper–Pearson bound from N of N,
 * (1 − level)^(1/N), reaches the share: the same N as bounding that quantile by the slowest.
 */
export const trialsToProve = (target: { readonly share: number; readonly level: number }): number =>
  trialsToBound(target.share, target.level);
