/**
 * The reference target's clock: windows, Reset, Retry-After, Date and revocation times are read from
 * it, and its simulated work (resume parsing, the racy fault's gap) waits on it. The real clock by
 * default; tests pass a controlled one, so they advance time instead of sleeping through it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface TargetClock {
  /** Wall clock, epoch ms. */
  now(): number;
  /** Resolves once `ms` have passed on this clock; rejects when `signal` aborts first. */
  delay(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: TargetClock = {
  now: Date.now,
  delay: (ms, signal) => sleep(ms, undefined, { signal }),
};
