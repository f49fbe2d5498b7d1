/**
 * Fixed quota windows aligned to the server clock (assumption fixed-windows) and the in-flight cap.
 * Pure apart from its counters: time comes in as `now`. Admission is a synchronous
 * check-and-increment, so concurrent requests on one event loop can never over-admit.
 */

export interface WindowSpan {
  /** floor(now / windowMs). */
  readonly index: number;
  readonly startMs: number;
  /** Epoch ms at which the window ends and the next begins (X-RateLimit-Reset, in seconds). */
  readonly endMs: number;
}

export function windowAt(now: number, windowMs: number): WindowSpan {
  const index = Math.floor(now / windowMs);
  return { index, startMs: index * windowMs, endMs: (index + 1) * windowMs };
}

/** Seconds from `now` until the window ends, rounded up and at least 1: waiting it out lands in the next window. */
export function secondsUntil(endMs: number, now: number): number {
  return Math.max(1, Math.ceil((endMs - now) / 1000));
}

export interface Usage {
  readonly window: WindowSpan;
  /** Units counted in the window, after the call. */
  readonly used: number;
}

export interface Admission extends Usage {
  readonly admitted: boolean;
}

interface Counter {
  index: number;
  used: number;
}

export class WindowCounters {
  readonly #windowMs: number;
  readonly #counters = new Map<string, Counter>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  #counter(bucket: string, window: WindowSpan): Counter {
    let counter = this.#counters.get(bucket);
    if (!counter) {
      counter = { index: window.index, used: 0 };
      this.#counters.set(bucket, counter);
    } else if (counter.index !== window.index) {
      counter.index = window.index;
      counter.used = 0;
    }
    return counter;
  }

  /** Usage without consuming. */
  peek(bucket: string, now: number): Usage {
    const window = windowAt(now, this.#windowMs);
    const counter = this.#counters.get(bucket);
    return { window, used: counter && counter.index === window.index ? counter.used : 0 };
  }

  /** Atomic admission: admits `units` only if they all fit under `limit`, and counts them. */
  tryConsume(bucket: string, units: number, limit: number, now: number): Admission {
    const window = windowAt(now, this.#windowMs);
    const counter = this.#counter(bucket, window);
    if (counter.used + units > limit) return { window, used: counter.used, admitted: false };
    counter.used += units;
    return { window, used: counter.used, admitted: true };
  }

  /** Unconditional increment (the second half of the racy fault's check-then-increment). */
  consume(bucket: string, units: number, now: number): Usage {
    const window = windowAt(now, this.#windowMs);
    const counter = this.#counter(bucket, window);
    counter.used += units;
    return { window, used: counter.used };
  }
}

/** Requests in flight per organization, across all edges. */
export class InFlight {
  readonly #counts = new Map<string, number>();

  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** A release function (idempotent), or null when `cap` requests are already in flight. */
  acquire(key: string, cap: number): (() => void) | null {
    const current = this.count(key);
    if (current >= cap) return null;
    return this.hold(key);
  }

  /** Count a request in flight without a cap. */
  hold(key: string): () => void {
    this.#counts.set(key, this.count(key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(key) - 1;
      if (left <= 0) this.#counts.delete(key);
      else this.#counts.set(key, left);
    };
  }
}
