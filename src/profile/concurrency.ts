/**
 * The limiter profile's concurrency answer. The discovery holds nothing in flight, so the profile it
 * infers leaves the answer open; the CONCURRENCY-CAP check learns it while it holds the cap, and the
 * run folds what it learned into its tier's profile with `withConcurrency`.
 */
import type { ConcurrencyAnswer, Learned, LimiterProfile } from './types.ts';

/** The answer before the CONCURRENCY-CAP check ran (and in `tiergate profile`, which runs no check). */
export const CONCURRENCY_NOT_LEARNED: Learned<ConcurrencyAnswer> = Object.freeze({
  value: null,
  how: 'learned by the CONCURRENCY-CAP check of tiergate run, which holds the cap in flight; the discovery does not',
  evidence: [],
});

/** `profile` with the concurrency answer the CONCURRENCY-CAP check learned. */
export function withConcurrency(profile: LimiterProfile, answer: Learned<ConcurrencyAnswer>): LimiterProfile {
  return { ...profile, concurrency: answer };
}
