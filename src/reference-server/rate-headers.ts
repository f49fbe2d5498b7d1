/**
 * §8 rate-limit headers and the §7 429 reply, with the faults that bend them.
 * Header values are computed here only; the pipeline decides which quota view a response shows.
 */
import { TOO_MANY_REQUESTS, type Contract, type QuotaClass } from '../contract/types.ts';
import { RETRY_AFTER_MISMATCH_S, RETRY_AFTER_SHORT_BY_S, type FaultName } from './faults.ts';
import type { Reply } from './http-util.ts';

/** The quota a response reports: an org's read or ingest bucket, or the per-client anonymous one. */
export interface QuotaView {
  readonly kind: QuotaClass | 'anonymous';
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms the Reset header names: the window's end (or when a token bucket is full again). */
  readonly resetMs: number;
}

export interface HeaderContext {
  readonly contract: Contract;
  readonly faults: ReadonlySet<FaultName>;
  readonly options: { readonly windowMs: number };
}

/**
 * Whether a response carries X-RateLimit-*: not at all under `no-rate-headers`, and not on 4xx other
 * than 429 under `headers-missing-on-errors`.
 */
export function sendsRateHeaders(faults: ReadonlySet<FaultName>, status: number): boolean {
  if (faults.has('no-rate-headers')) return false;
  return !(faults.has('headers-missing-on-errors') && status >= 400 && status < 500 && status !== TOO_MANY_REQUESTS);
}

/**
 * The three X-RateLimit-* values for a view at `now`. Reset is the epoch second at or after the
 * view's reset (windows that start at a first request end off the second). `limit-header-wrong`
 * announces Limit+1 on read views and shows Remaining against that figure (not on a 429), so only
 * HDR-LIMIT breaks.
 */
export function rateLimitValues(
  view: QuotaView,
  now: number,
  ctx: HeaderContext,
  refused = false,
): { limit: number; remaining: number; reset: number } {
  const faults = ctx.faults;
  let reset = Math.ceil(view.resetMs / 1000);
  if (faults.has('reset-drifts')) reset = Math.ceil(now / 1000) + ctx.options.windowMs / 1000;
  if (faults.has('reset-relative')) reset = Math.max(0, Math.ceil((view.resetMs - now) / 1000));
  if (faults.has('reset-millis')) reset = view.resetMs;
  const bump = view.kind === 'read' && faults.has('limit-header-wrong') ? 1 : 0;
  const remaining = Math.max(0, view.remaining) + (refused ? 0 : bump);
  return { limit: view.limit + bump, remaining, reset };
}

/** Add the rate-limit headers to a flat name, value list, unless a fault drops them (`sendsRateHeaders`). */
export function addRateLimitHeaders(
  headers: string[],
  ctx: HeaderContext,
  view: QuotaView,
  status: number,
  now: number,
): void {
  if (!sendsRateHeaders(ctx.faults, status)) return;
  const values = rateLimitValues(view, now, ctx, status === TOO_MANY_REQUESTS);
  const names = ctx.contract.headers;
  headers.push(
    names.limit,
    String(values.limit),
    names.remaining,
    String(values.remaining),
    names.reset,
    String(values.reset),
  );
}

/**
 * §7 429: body `{status:"error", code, message, retry_after_seconds}` and `Retry-After` equal to it.
 * `trueWaitS` is the honest wait; faults may misstate it. `status` comes from the contract (429).
 */
export function rateLimitedReply(ctx: HeaderContext, status: number, trueWaitS: number, message: string): Reply {
  const faults = ctx.faults;
  const bodyWait = faults.has('retry-after-short') ? Math.max(0, trueWaitS - RETRY_AFTER_SHORT_BY_S) : trueWaitS;
  const headerWait = faults.has('retry-after-mismatch') ? bodyWait + RETRY_AFTER_MISMATCH_S : bodyWait;
  const body = faults.has('wrong-429-body')
    ? { status: 'error', code: 'TOO_MANY_REQUESTS', message }
    : { status: 'error', code: ctx.contract.rateLimitErrorCode, message, retry_after_seconds: bodyWait };
  return { status, body, headers: { [ctx.contract.headers.retryAfter]: String(headerWait) } };
}
