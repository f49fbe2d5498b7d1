/**
 * A clock for the reference target that moves only when a test moves it: windows, Reset,
 * Retry-After, Date and revocation times follow `set` and `advance`, and the target's simulated work
 * (resume parsing, the racy fault's gap) waits until the clock passes its end. An injected clock,
 * not vitest's fake timers: those would fake the test's own sockets and timers too.
 */
import type { TargetClock } from '../../src/reference-server/clock.ts';

/** A start far from the real clock, on a multiple of every whole-second window up to a minute. */
export const CLOCK_START = Date.UTC(2027, 0, 15, 8);

interface Timer {
  readonly at: number;
  readonly fire: () => void;
}

export class ManualClock implements TargetClock {
  #now: number;
  #timers: Timer[] = [];
  #waiters: { readonly count: number; readonly resolve: () => void }[] = [];

  constructor(startMs = CLOCK_START) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  delay(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
        reject(signal.reason);
      };
      const timer: Timer = {
        at: this.#now + ms,
        fire: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#timers.push(timer);
      this.#notify();
    });
  }

  /** Move forward by `ms`; returns the new time. */
  advance(ms: number): number {
    return this.set(this.#now + ms);
  }

  /**
   * Move forward to `ms` (epoch) and fire every delay that ends by then, earliest first; work resumed
   * after a delay sees the clock at `ms`. Returns `ms`.
   */
  set(ms: number): number {
    if (ms < this.#now) throw new Error(`a ManualClock only moves forward: ${ms} is before ${this.#now}`);
    this.#now = ms;
    const due = this.#timers.filter((t) => t.at <= ms).sort((a, b) => a.at - b.at);
    this.#timers = this.#timers.filter((t) => t.at > ms);
    for (const t of due) t.fire();
    return ms;
  }

  /** Move to `intoMs` into the next window of `windowMs` aligned to the epoch (a fresh one); returns that window's start. */
  toNextWindow(windowMs: number, intoMs = 0): number {
    const start = (Math.floor(this.#now / windowMs) + 1) * windowMs;
    this.set(start + intoMs);
    return start;
  }

  /** Delays not yet over (nor aborted). */
  get pending(): number {
    return this.#timers.length;
  }

  /** Resolves once at least `count` delays are pending: the target's work has reached them. */
  untilPending(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push({ count, resolve });
      this.#notify();
    });
  }

  #notify(): void {
    const ready = this.#waiters.filter((w) => this.#timers.length >= w.count);
    this.#waiters = this.#waiters.filter((w) => this.#timers.length < w.count);
    for (const w of ready) w.resolve();
  }
}
