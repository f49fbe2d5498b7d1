/**
 * §8 rate-limit headers (or the dialect the target speaks instead) and the §7 429 reply, with the
 * faults that bend them.
 * Header values are computed here only; the pipeline decides which quota view a response shows.
 */
import {
  RATE_LIMIT_DIALECTS,
  renderRateLimitFields,
  type PolicyFigures,
  type RateLimitDialectName,
  type RateLimitField,
  type RateLimitFigures,
} from '../contract/rate-limit-dialects.ts';
import { TOO_MANY_REQUESTS, type Contract, type OrgLimits, type QuotaClass } from '../contract/types.ts';
import { RESET_EARLY_BY_S, RETRY_AFTER_MISMATCH_S, RETRY_AFTER_SHORT_BY_S, type FaultName } from './faults.ts';
import type { Reply } from './http-util.ts';

/** The quota a response reports: an org's read or ingest bucket, or the per-client anonymous one. */
export interface QuotaView {
  readonly kind: QuotaClass | 'anonymous';
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms the Reset header names: the window's end (or when a token bucket is full again). */
  readonly resetMs: number;
  /** The organization's figures, for a dialect that announces all its policies; null: anonymous. */
  readonly limits: OrgLimits | null;
}

export interface HeaderContext {
  readonly contract: Contract;
  readonly faults: ReadonlySet<FaultName>;
  readonly options: { readonly windowMs: number; readonly headers: RateLimitDialectName };
}

/**
 * Whether a response carries the rate-limit fields: not at all under `no-rate-headers`, and not on
 * 4xx other than 429 under `headers-missing-on-errors`.
 */
export function sendsRateHeaders(faults: ReadonlySet<FaultName>, status: number): boolean {
  if (faults.has('no-rate-headers')) return false;
  return !(faults.has('headers-missing-on-errors') && status >= 400 && status < 500 && status !== TOO_MANY_REQUESTS);
}

/** The policy names a response announces: one per quota class, the concurrency cap's, and the anonymous bucket's. */
export const POLICY_NAMES = {
  read: 'read',
  ingest: 'ingest',
  concurrency: 'concurrency',
  anonymous: 'anonymous',
} as const;

/**
 * The policies announced beside a view: the organization's read and ingest quotas and its
 * concurrency cap (a policy with no window, counted in requests in flight), or the anonymous bucket.
 * `limit-header-wrong` and `policy-quota-wrong` announce the read quota one too high.
 */
function policiesOf(view: QuotaView, ctx: HeaderContext): PolicyFigures[] {
  const windowS = ctx.options.windowMs / 1000;
  if (view.limits === null) return [{ name: POLICY_NAMES.anonymous, quota: view.limit, windowS }];
  const readBump = ctx.faults.has('limit-header-wrong') || ctx.faults.has('policy-quota-wrong') ? 1 : 0;
  return [
    { name: POLICY_NAMES.read, quota: view.limits.read + readBump, windowS },
    { name: POLICY_NAMES.ingest, quota: view.limits.ingest, windowS },
    { name: POLICY_NAMES.concurrency, quota: view.limits.concurrency, windowS: null, unit: 'concurrent-requests' },
  ];
}

/**
 * What the rate-limit fields say of a view at `now`, bent by the faults: the reset's instant and
 * form (`reset-drifts`: always a window from now; `reset-relative`, `reset-millis`: another form),
 * and `limit-header-wrong`, which announces Limit+1 on read views and shows Remaining against that
 * figure (not on a 429), so only HDR-LIMIT breaks; `reset-early` and `remaining-never-zero` bend
 * the other dialects' reset and remaining.
 */
export function rateLimitFigures(view: QuotaView, now: number, ctx: HeaderContext, refused = false): RateLimitFigures {
  const faults = ctx.faults;
  const trueResetMs = faults.has('reset-drifts') ? now + ctx.options.windowMs : view.resetMs;
  const resetMs = faults.has('reset-early') ? Math.max(now, trueResetMs - RESET_EARLY_BY_S * 1000) : trueResetMs;
  const resetForm = faults.has('reset-millis')
    ? ('epoch-millis' as const)
    : faults.has('reset-relative')
      ? ('seconds-until' as const)
      : undefined;
  const bump = view.kind === 'read' && faults.has('limit-header-wrong') ? 1 : 0;
  const floor = faults.has('remaining-never-zero') ? 1 : 0;
  const remaining = Math.max(floor, Math.max(0, view.remaining) + (refused ? 0 : bump));
  const policy = view.kind === 'anonymous' ? POLICY_NAMES.anonymous : POLICY_NAMES[view.kind];
  return {
    now,
    quota: { policy, limit: view.limit + bump, remaining, resetMs },
    policies: policiesOf(view, ctx),
    ...(resetForm === undefined ? {} : { resetForm }),
  };
}

/** The rate-limit fields of a view at `now`, in the target's dialect (`--headers`). */
export function rateLimitFields(view: QuotaView, now: number, ctx: HeaderContext, refused = false): RateLimitField[] {
  const dialect = ctx.options.headers;
  const fields = renderRateLimitFields(dialect, rateLimitFigures(view, now, ctx, refused));
  if (!ctx.faults.has('policy-missing')) return fields;
  return fields.filter(([name]) => name !== RATE_LIMIT_DIALECTS[dialect].policyField);
}

/** Add the rate-limit fields to a flat name, value list, unless a fault drops them (`sendsRateHeaders`). */
export function addRateLimitHeaders(
  headers: string[],
  ctx: HeaderContext,
  view: QuotaView,
  status: number,
  now: number,
): void {
  if (!sendsRateHeaders(ctx.faults, status)) return;
  for (const [name, value] of rateLimitFields(view, now, ctx, status === TOO_MANY_REQUESTS)) headers.push(name, value);
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
