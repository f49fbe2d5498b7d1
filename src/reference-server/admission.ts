/**
 * §8 quota admission per organization and quota class, with the variants and faults that bend it.
 * The pipeline asks here which bucket a request counts against, what a response should report, and
 * whether `units` fit. Clean admission is one synchronous `tryConsume` of the class's limiter (its
 * window policy chosen once, in runtime.ts): a burst can never over-admit.
 */
import type { EndpointId, OrgLimits, QuotaClass } from '../contract/types.ts';
import { RACY_GAP_MS } from './faults.ts';
import type { Admission, Usage } from './limiter.ts';
import type { QuotaView } from './rate-headers.ts';
import type { TargetRuntime } from './runtime.ts';
import type { ApiKeyRecord, Org } from './state.ts';

export interface Holder {
  readonly org: Org;
  readonly key: ApiKeyRecord;
}

/** What a request counts against: a quota class, and the endpoint when it is known (per-route-quota). */
export interface Meter {
  readonly quotaClass: QuotaClass;
  /** null: not routed (404), or counted before routing. */
  readonly route: EndpointId | null;
}

export type AdmissionOutcome =
  | { readonly admitted: true; readonly view: QuotaView }
  | { readonly admitted: false; readonly view: QuotaView; readonly retryAtMs: number };

/**
 * The counter a holder's requests count against: per org and class (clean), per key or per tier
 * (faults), and per read endpoint under `per-route-quota`.
 */
export function bucketOf(rt: TargetRuntime, { org, key }: Holder, { quotaClass, route }: Meter): string {
  const owner = rt.faults.has('per-key-quota')
    ? `key:${key.id}`
    : rt.faults.has('global-quota')
      ? `tier:${org.tier}`
      : `org:${org.id}`;
  const perRoute = route !== null && quotaClass === 'read' && rt.faults.has('per-route-quota');
  return perRoute ? `${owner}:${quotaClass}:${route}` : `${owner}:${quotaClass}`;
}

function viewOf(quotaClass: QuotaClass, limits: OrgLimits, usage: Usage): QuotaView {
  const limit = limits[quotaClass];
  return { kind: quotaClass, limit, remaining: limit - usage.used, resetMs: usage.resetMs, limits };
}

/** What a response that consumes nothing reports (errors, HEAD, the concurrency cap). */
export function peekView(rt: TargetRuntime, holder: Holder, meter: Meter, now: number): QuotaView {
  const limit = holder.org.limits[meter.quotaClass];
  const usage = rt.limiters[meter.quotaClass].peek(bucketOf(rt, holder, meter), limit, now);
  return viewOf(meter.quotaClass, holder.org.limits, usage);
}

/** Unauthenticated traffic: one anonymous bucket per client address, each request counted (never refused). */
export function anonymousView(rt: TargetRuntime, address: string | undefined, now: number): QuotaView {
  const limit = rt.options.anonymousLimit;
  const usage = rt.limiters.anonymous.consume(`anon:${address ?? 'unknown'}`, 1, limit, now);
  return { kind: 'anonymous', limit, remaining: limit - usage.used, resetMs: usage.resetMs, limits: null };
}

/** The figure admission enforces: the published one, bent by the quota faults. */
function enforcedLimit(rt: TargetRuntime, limit: number): number {
  if (rt.faults.has('quota-off-by-one')) return limit + 1;
  if (rt.faults.has('quota-early')) return limit - 1;
  return limit;
}

function admittedView(rt: TargetRuntime, quotaClass: QuotaClass, limits: OrgLimits, usage: Usage): QuotaView {
  const view = viewOf(quotaClass, limits, usage);
  return rt.faults.has('remaining-stuck') ? { ...view, remaining: view.limit - 1 } : view;
}

/** A 429 always reports Remaining 0 (even when a fault refused early), so it breaks only its own check. */
function outcomeOf(rt: TargetRuntime, quotaClass: QuotaClass, limits: OrgLimits, result: Admission): AdmissionOutcome {
  if (result.admitted) return { admitted: true, view: admittedView(rt, quotaClass, limits, result) };
  return {
    admitted: false,
    view: { kind: quotaClass, limit: limits[quotaClass], remaining: 0, resetMs: result.resetMs, limits },
    retryAtMs: result.retryAtMs,
  };
}

/** Admit `units` against the holder's bucket, or refuse them all (bulk is refused whole). */
export function admit(
  rt: TargetRuntime,
  holder: Holder,
  meter: Meter,
  units: number,
  now: number,
): AdmissionOutcome | Promise<AdmissionOutcome> {
  const limit = holder.org.limits[meter.quotaClass];
  const bucket = bucketOf(rt, holder, meter);
  if (rt.faults.has('racy-admission')) return racyAdmit(rt, bucket, meter.quotaClass, holder.org.limits, units, now);
  const result = rt.limiters[meter.quotaClass].tryConsume(
    bucket,
    units,
    enforcedLimit(rt, limit),
    now,
    rt.variants.has('counts-rejected'),
  );
  return outcomeOf(rt, meter.quotaClass, holder.org.limits, result);
}

/** `racy-admission`: read the count, wait as if for a shared store, then increment regardless. */
async function racyAdmit(
  rt: TargetRuntime,
  bucket: string,
  quotaClass: QuotaClass,
  limits: OrgLimits,
  units: number,
  now: number,
): Promise<AdmissionOutcome> {
  const limiter = rt.limiters[quotaClass];
  const enforced = enforcedLimit(rt, limits[quotaClass]);
  if (limiter.peek(bucket, enforced, now).used + units > enforced) {
    // Over the limit already: the synchronous path refuses (and counts, under counts-rejected).
    return outcomeOf(
      rt,
      quotaClass,
      limits,
      limiter.tryConsume(bucket, units, enforced, now, rt.variants.has('counts-rejected')),
    );
  }
  await rt.clock.delay(RACY_GAP_MS, rt.closing);
  const usage = limiter.consume(bucket, units, enforced, rt.clock.now());
  return { admitted: true, view: admittedView(rt, quotaClass, limits, usage) };
}
