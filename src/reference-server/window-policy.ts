/**
 * How a quota bucket decides what it counts against, as pure functions of time: fixed windows aligned
 * to the server clock (with a phase), windows that start at a client's first counted request, or a
 * token bucket with no windows at all. The runtime picks one policy per quota class from its variants
 * and faults (`policyFor`); src/reference-server/limiter.ts keeps the counters that apply it.
 */
import type { QuotaClass } from '../contract/types.ts';
import type { FaultName } from './faults.ts';
import type { VariantName } from './variants.ts';

export interface WindowSpan {
  readonly startMs: number;
  /** Epoch ms at which the window ends (X-RateLimit-Reset, in seconds rounded up). */
  readonly endMs: number;
}

/** The window that holds `now`, given the bucket's current one (undefined before any counted unit). */
export type WindowRule = (current: WindowSpan | undefined, now: number) => WindowSpan;

/** The clock-aligned window holding `now`: [k·W + phase, (k+1)·W + phase). */
export function windowAt(now: number, windowMs: number, phaseMs = 0): WindowSpan {
  const startMs = Math.floor((now - phaseMs) / windowMs) * windowMs + phaseMs;
  return { startMs, endMs: startMs + windowMs };
}

/** Fixed windows aligned to the server clock, shifted by `phaseMs` (assumption fixed-windows when 0). */
export function alignedWindows(windowMs: number, phaseMs = 0): WindowRule {
  return (current, now) => {
    // Same window: hand back the stored span, so the counter can tell by identity.
    if (current && now >= current.startMs && now < current.endMs) return current;
    return windowAt(now, windowMs, phaseMs);
  };
}

/**
 * Windows that start at the first counted request after the previous window ended (express-rate-limit's
 * MemoryStore, rate-limiter-flexible). With no window running, the span is the one a request now would
 * open: [now, now + W).
 */
export function firstRequestWindows(windowMs: number): WindowRule {
  return (current, now) =>
    current && now >= current.startMs && now < current.endMs ? current : { startMs: now, endMs: now + windowMs };
}

/**
 * `whole-second-windows`: as firstRequestWindows, but the window starts at the whole second holding
 * the first counted request (a store keyed by the second), so it ends up to a second sooner.
 */
export function wholeSecondWindows(windowMs: number): WindowRule {
  return (current, now) => {
    if (current && now >= current.startMs && now < current.endMs) return current;
    const startMs = Math.floor(now / 1000) * 1000;
    return { startMs, endMs: startMs + windowMs };
  };
}

/** `independent-class-windows`: ingest windows start half a window later, in whole seconds. */
export function ingestPhaseMs(windowMs: number): number {
  return Math.floor(windowMs / 2000) * 1000;
}

export interface BucketLevel {
  /** Tokens held at `atMs`; negative is a debt (refused units counted under `counts-rejected`). */
  readonly tokens: number;
  readonly atMs: number;
}

/** Tokens of a bucket of capacity `limit`, refilled at `limit` per window, at `now` (full when untouched). */
export function bucketTokens(level: BucketLevel | undefined, limit: number, windowMs: number, now: number): number {
  if (!level) return limit;
  return Math.min(limit, level.tokens + (Math.max(0, now - level.atMs) * limit) / windowMs);
}

/** Epoch ms (whole) at which a bucket holding `tokens` at `now` holds `wanted` (at most its capacity). */
export function bucketReadyAt(tokens: number, wanted: number, limit: number, windowMs: number, now: number): number {
  const missing = Math.min(wanted, limit) - tokens;
  return missing <= 0 ? now : Math.ceil(now + (missing * windowMs) / limit);
}

export type QuotaPolicy =
  | { readonly kind: 'windows'; readonly rule: WindowRule }
  | { readonly kind: 'token-bucket'; readonly windowMs: number };

export interface PolicyChoice {
  readonly windowMs: number;
  readonly variants: ReadonlySet<VariantName>;
  readonly faults: ReadonlySet<FaultName>;
}

/**
 * The policy of one quota class: `token-bucket` (fault) wins over the window variants;
 * `first-request-windows`, then `whole-second-windows`, over `independent-class-windows`; the default
 * is aligned windows.
 * The anonymous bucket of unauthenticated traffic always keeps aligned windows.
 */
export function policyFor(
  quotaClass: QuotaClass | 'anonymous',
  { windowMs, variants, faults }: PolicyChoice,
): QuotaPolicy {
  if (quotaClass === 'anonymous') return { kind: 'windows', rule: alignedWindows(windowMs) };
  if (faults.has('token-bucket')) return { kind: 'token-bucket', windowMs };
  if (variants.has('first-request-windows')) return { kind: 'windows', rule: firstRequestWindows(windowMs) };
  if (variants.has('whole-second-windows')) return { kind: 'windows', rule: wholeSecondWindows(windowMs) };
  const phase = quotaClass === 'ingest' && variants.has('independent-class-windows') ? ingestPhaseMs(windowMs) : 0;
  return { kind: 'windows', rule: alignedWindows(windowMs, phase) };
}
