/** Hand-built discovery records for the profile's inference tests (3 s windows, Limit 60). */
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { CountingPair, DiscoveryRecord, PairQuestion } from '../../src/profile/record.ts';
import { NOTHING_AFTER } from '../../src/profile/discover.ts';
import type { Observation } from '../../src/measure/observation.ts';
import type { EndEstimate } from '../../src/measure/reset-format.ts';
import { T0, obs, type ObsInit } from './observations.ts';

export const W = 3000;

/** A read answered with Remaining `remaining` (Limit 60, Reset T0 + 3). */
export const read = (remaining: number | null, init: ObsInit = {}) =>
  obs({ limit: 60, remaining, reset: T0 + 3, serverMs: T0 * 1000 + 100, ...init });

/** A pair whose request in question took `step - 1` from Remaining (step 1: free; 2: counted). */
export function pair(question: PairQuestion, before: number, step: number, probe: ObsInit = {}): CountingPair {
  return { question, before: read(before), probe: obs({ path: '/x', ...probe }), after: read(before - step) };
}

/** A discovery of `parts`, every observation of them in `all`. */
export function record(parts: Partial<DiscoveryRecord>): DiscoveryRecord {
  const base: DiscoveryRecord = {
    tier: 'starter',
    org: 'starter-a',
    windowMs: W,
    figures: { read: recruitingApi.tiers.starter.read, ingest: recruitingApi.tiers.starter.ingest },
    pairs: [],
    exhaustion: [],
    ...NOTHING_AFTER,
    all: [],
    durationMs: 1000,
  };
  const merged = { ...base, ...parts };
  const all: Observation[] = [
    ...merged.pairs.flatMap((p) => [p.before, p.probe, p.after]),
    ...merged.exhaustion,
    ...merged.refill.flatMap((r) => [r.probe, ...r.followUps]),
    ...merged.expiry,
    ...merged.expiryFollowUps,
    ...merged.expiryAgain,
  ];
  return { ...merged, all };
}

/** The 429 that ends an exhaustion (Retry-After 2). */
export const rejected = (init: ObsInit = {}) => read(0, { status: 429, retryAfter: 2, ...init });

/**
 * That 429, sent where its Retry-After agrees with the used-up window's end `end` as the discovery
 * narrowed it (the end lies 1 to 2 s after it): where the two disagree, the inference judges the
 * reads from each end (usedUpEnds).
 */
export const rejectedBefore = (end: EndEstimate) => rejected({ sentAt: end.earliest - 1500 });
