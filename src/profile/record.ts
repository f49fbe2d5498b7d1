/**
 * What a discovery recorded (discover.ts sends; infer.ts judges): the observations of
 * each step, grouped by the question they answer.
 */
import type { Figure, TierName } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS } from '../contract/types.ts';
import type { EndEstimate } from '../measure/reset-format.ts';
import type { DialectsSent } from '../contract/rate-limit-sent.ts';
import type { CountingQuestion } from './types.ts';

export type PairQuestion = Exclude<CountingQuestion, 'rejected'> | 'other-route' | 'ingest';

/** A request in question between two counted reads. */
export interface CountingPair {
  readonly question: PairQuestion;
  readonly before: Observation;
  readonly probe: Observation;
  readonly after: Observation;
}

export interface RefillProbe {
  readonly probe: Observation;
  /**
   * After an admitted probe, reads sent at once, a few together, until one is refused (bounded by the
   * quota the elapsed time could have refilled, plus two): a bucket gives back a few, a fresh window all.
   */
  readonly followUps: readonly Observation[];
}

export interface DiscoveryRecord {
  readonly tier: TierName;
  readonly org: string;
  readonly windowMs: number;
  readonly figures: { readonly read: Figure; readonly ingest: Figure };
  readonly pairs: readonly CountingPair[];
  /**
   * Reads until a 429 (inclusive), or until the bound (exhaustQuota). It may span windows: a window
   * that turned before the last 429 was read on, and a 429 inside a batch may lie in an earlier one.
   */
  readonly exhaustion: readonly Observation[];
  readonly refill: readonly RefillProbe[];
  /**
   * The read sent after the announced end (discover.ts expiryReadAt); when it carries no usable Reset, the reads
   * after it until a 429, whose Retry-After tells where the new window ends.
   */
  readonly expiry: readonly Observation[];
  /** When the expiry read was sent, ms after the latest announced end. */
  readonly expiryDelayMs: number | null;
  /** Where the used-up window ends, as its 429s announced it (Reset, else Retry-After); monotonic ms. */
  readonly exhaustedEnd: EndEstimate | null;
  /**
   * Where the window the expiry read opened ends, when that read carried no usable Reset: from the
   * 429s after it (narrowed, see narrowEnd); with the last of them as evidence.
   */
  readonly expiryEnd: (EndEstimate & { readonly by: number }) | null;
  /** Reads spread over the window after the expiry read, the last just before a full window after it. */
  readonly expiryFollowUps: readonly Observation[];
  /**
   * Where those all counted down in one window (a window the read opened, or an aligned one that began
   * just before it): a read half a window past the end of either, and reads spread over a window after it.
   */
  readonly expiryAgain: readonly Observation[];
  /** Why no expiry read was sent though the used-up window announced its end (a discovery kept brief), or null. */
  readonly expirySkipped: string | null;
  /** Every observation of the discovery, in send order. */
  readonly all: readonly Observation[];
  /**
   * The rate-limit dialects each answer carrying any rate-limit field spoke, by observation id, in
   * send order; absent where the discovery did not read them (a record made by hand).
   */
  readonly dialects?: readonly DialectsSentBy[];
  readonly durationMs: number;
}

/** One answer's rate-limit dialects, read from its raw header values (the observation keeps only the declared one's). */
export interface DialectsSentBy {
  readonly id: number;
  readonly sent: DialectsSent;
}

/** Requests of the discovery sent after `a` and before `b` that got no answer (a flaky network). */
export function lostBetween(a: Observation, b: Observation, all: readonly Observation[]): number {
  return all.filter((o) => o.status === null && o.sentAt > a.sentAt && o.sentAt < b.sentAt).length;
}

/**
 * Whether `b` counted down from `a` in one window: Remaining one lower, or one more lower for each
 * request lost between them (a lost request may have reached the server and counted, or not).
 */
export function countedDownFrom(a: Observation, b: Observation, all: readonly Observation[]): boolean {
  const [ra, rb] = [a.rateLimit.remaining.value, b.rateLimit.remaining.value];
  if (ra === null || rb === null) return false;
  const step = ra - rb;
  return step >= 1 && step <= 1 + lostBetween(a, b, all);
}

/**
 * A read refused for its quota: 429 with nothing left (Remaining 0, or none said). A 429 that shows
 * quota left is a concurrency cap's (a slot the server still holds), and another status is no quota's
 * refusal either: neither says how quota comes back.
 */
export function quotaRefused(o: Observation): boolean {
  return o.status === TOO_MANY_REQUESTS && (o.rateLimit.remaining.value ?? 0) === 0;
}
