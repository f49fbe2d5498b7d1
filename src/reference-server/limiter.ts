/**
 * Quota counters and the in-flight cap. A `Limiter` keeps one state per bucket and applies one policy
 * of window-policy.ts to it: windows (aligned, with a phase, or starting at the first request) or a
 * token bucket. Pure apart from its counters: time comes in as `now`. Admission is a synchronous
 * check-and-increment, so concurrent requests on one event loop can never over-admit.
 */
import {
  bucketReadyAt,
  bucketTokens,
  type BucketLevel,
  type QuotaPolicy,
  type WindowRule,
  type WindowSpan,
} from './window-policy.ts';

/** Seconds from `now` until `atMs`, rounded up and at least 1: waiting it out gets past it. */
export function secondsUntil(atMs: number, now: number): number {
  return Math.max(1, Math.ceil((atMs - now) / 1000));
}

/** A bucket's standing: what a response reports. */
export interface Usage {
  /** Units counted against the limit (Remaining = limit − used; the headers floor it at 0). */
  readonly used: number;
  /** Epoch ms the Reset header names: the window's end, or when the bucket is full again. */
  readonly resetMs: number;
}

export interface Admission extends Usage {
  readonly admitted: boolean;
  /** Epoch ms from which refused units would fit (Retry-After); for windows, the window's end. */
  readonly retryAtMs: number;
}

export interface Limiter {
  /** Standing without consuming (and without opening a window). */
  peek(bucket: string, limit: number, now: number): Usage;
  /**
   * Atomic admission: admits `units` only if they all fit under `limit`, and counts them. Refused
   * units are counted too when `countRefused` (variant counts-rejected).
   */
  tryConsume(bucket: string, units: number, limit: number, now: number, countRefused?: boolean): Admission;
  /** Unconditional count (anonymous traffic; the second half of the racy fault's check-then-increment). */
  consume(bucket: string, units: number, limit: number, now: number): Usage;
}

interface Counter {
  window: WindowSpan;
  used: number;
}

/** Counters per bucket over the windows a rule gives. */
export class WindowCounters implements Limiter {
  readonly #rule: WindowRule;
  readonly #counters = new Map<string, Counter>();

  constructor(rule: WindowRule) {
    this.#rule = rule;
  }

  /** The window holding `now` and what it has counted, without storing anything. */
  #current(bucket: string, now: number): { readonly window: WindowSpan; readonly used: number } {
    const counter = this.#counters.get(bucket);
    const window = this.#rule(counter?.window, now);
    return { window, used: counter && counter.window === window ? counter.used : 0 };
  }

  #count(bucket: string, window: WindowSpan, used: number): void {
    const counter = this.#counters.get(bucket);
    if (counter) {
      counter.window = window;
      counter.used = used;
    } else this.#counters.set(bucket, { window, used });
  }

  peek(bucket: string, _limit: number, now: number): Usage {
    const { window, used } = this.#current(bucket, now);
    return { used, resetMs: window.endMs };
  }

  tryConsume(bucket: string, units: number, limit: number, now: number, countRefused = false): Admission {
    const { window, used } = this.#current(bucket, now);
    const admitted = used + units <= limit;
    const after = admitted || countRefused ? used + units : used;
    // Nothing counted opens no window: a first-request window starts at a counted request.
    if (after !== used) this.#count(bucket, window, after);
    return { admitted, used: after, resetMs: window.endMs, retryAtMs: window.endMs };
  }

  consume(bucket: string, units: number, _limit: number, now: number): Usage {
    const { window, used } = this.#current(bucket, now);
    this.#count(bucket, window, used + units);
    return { used: used + units, resetMs: window.endMs };
  }
}

/**
 * Token buckets of capacity `limit`, refilled continuously at `limit` per window (fault token-bucket).
 * Remaining is the whole tokens left; Reset is when the bucket is full again.
 */
export class TokenBuckets implements Limiter {
  readonly #windowMs: number;
  readonly #levels = new Map<string, BucketLevel>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  #tokens(bucket: string, limit: number, now: number): number {
    return bucketTokens(this.#levels.get(bucket), limit, this.#windowMs, now);
  }

  #usage(tokens: number, limit: number, now: number): Usage {
    return { used: limit - Math.floor(tokens), resetMs: bucketReadyAt(tokens, limit, limit, this.#windowMs, now) };
  }

  peek(bucket: string, limit: number, now: number): Usage {
    return this.#usage(this.#tokens(bucket, limit, now), limit, now);
  }

  tryConsume(bucket: string, units: number, limit: number, now: number, countRefused = false): Admission {
    const tokens = this.#tokens(bucket, limit, now);
    const admitted = tokens >= units;
    // Counted refusals leave a debt that the refill pays back first.
    const after = admitted || countRefused ? tokens - units : tokens;
    if (after !== tokens) this.#levels.set(bucket, { tokens: after, atMs: now });
    const retryAtMs = admitted ? now : bucketReadyAt(after, units, limit, this.#windowMs, now);
    return { admitted, ...this.#usage(after, limit, now), retryAtMs };
  }

  consume(bucket: string, units: number, limit: number, now: number): Usage {
    const after = this.#tokens(bucket, limit, now) - units;
    this.#levels.set(bucket, { tokens: after, atMs: now });
    return this.#usage(after, limit, now);
  }
}

export function limiterFor(policy: QuotaPolicy): Limiter {
  return policy.kind === 'token-bucket' ? new TokenBuckets(policy.windowMs) : new WindowCounters(policy.rule);
}

/** Requests in flight per organization, across all edges. */
export class InFlight {
  /** Never deleted: one entry per organization that ever sent a request (the state keeps every org anyway). */
  readonly #counts = new Map<string, Slots>();

  #entry(key: string): Slots {
    let entry = this.#counts.get(key);
    if (!entry) {
      entry = { held: 0, waiting: [] };
      this.#counts.set(key, entry);
    }
    return entry;
  }

  /** A release function (idempotent), or null when `cap` requests are already in flight. */
  acquire(key: string, cap: number): (() => void) | null {
    const entry = this.#entry(key);
    return entry.held >= cap ? null : InFlight.#take(entry);
  }

  /**
   * A slot at once while fewer than `cap` are held, else the next one released, first come first
   * served; null when the wait `patience` gives (aborted once a slot is granted) ends first.
   */
  async queue(
    key: string,
    cap: number,
    patience: (granted: AbortSignal) => Promise<unknown>,
  ): Promise<(() => void) | null> {
    const now = this.acquire(key, cap);
    if (now) return now;
    const entry = this.#entry(key);
    const granted = new AbortController();
    const slot = new Promise<(() => void) | null>((resolve) => {
      const waiter = (release: () => void) => resolve(release);
      entry.waiting.push(waiter);
      const giveUp = () => {
        const at = entry.waiting.indexOf(waiter);
        if (at === -1) return;
        entry.waiting.splice(at, 1);
        resolve(null);
      };
      patience(granted.signal).then(giveUp, giveUp);
    });
    const release = await slot;
    granted.abort();
    return release;
  }

  /** Count a request in flight without a cap. */
  hold(key: string): () => void {
    return InFlight.#take(this.#entry(key));
  }

  static #take(entry: Slots): () => void {
    entry.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.held -= 1;
      // Handed over in the same turn: no request arriving meanwhile can take the slot first.
      const next = entry.waiting.shift();
      if (next) next(InFlight.#take(entry));
    };
  }
}

/** One organization's requests in flight, and those queued for a slot (`cap-queues`). */
interface Slots {
  held: number;
  readonly waiting: ((release: () => void) => void)[];
}
