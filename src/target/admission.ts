/**
 * §8 quota admission per organization and quota class, with the faults that bend it. The pipeline
 * asks here which bucket a request counts against, what a response should report, and whether
 * `units` fit. Clean admission is one synchronous `tryConsume`: a burst can never over-admit.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { QuotaClass } from '../contract/types.ts';
import { RACY_GAP_MS } from './faults.ts';
import type { Usage } from './limiter.ts';
import type { QuotaView } from './rate-headers.ts';
import type { TargetRuntime } from './runtime.ts';
import type { ApiKeyRecord, Org } from './state.ts';

export interface Holder {
  readonly org: Org;
  readonly key: ApiKeyRecord;
}

export type AdmissionOutcome =
  | { readonly admitted: true; readonly view: QuotaView }
  | { readonly admitted: false; readonly view: QuotaView; readonly windowEndMs: number };

/** The counter a holder's requests count against: per org (clean), per key or per tier (faults). */
export function bucketOf(rt: TargetRuntime, { org, key }: Holder, quotaClass: QuotaClass): string {
  if (rt.faults.has('per-key-quota')) return `key:${key.id}:${quotaClass}`;
  if (rt.faults.has('global-quota')) return `tier:${org.tier}:${quotaClass}`;
  return `org:${org.id}:${quotaClass}`;
}

function viewOf(quotaClass: QuotaClass, limit: number, usage: Usage): QuotaView {
  return { kind: quotaClass, limit, remaining: limit - usage.used, windowEndMs: usage.window.endMs };
}

/** What a response that consumes nothing reports (errors, HEAD, the concurrency cap). */
export function peekView(rt: TargetRuntime, holder: Holder, quotaClass: QuotaClass, now: number): QuotaView {
  const limit = holder.org.limits[quotaClass];
  return viewOf(quotaClass, limit, rt.counters.peek(bucketOf(rt, holder, quotaClass), now));
}

/** Unauthenticated traffic: one anonymous bucket per client address, each request counted (never refused). */
export function anonymousView(rt: TargetRuntime, address: string | undefined, now: number): QuotaView {
  const limit = rt.options.anonymousLimit;
  const usage = rt.counters.consume(`anon:${address ?? 'unknown'}`, 1, now);
  return { kind: 'anonymous', limit, remaining: limit - usage.used, windowEndMs: usage.window.endMs };
}

/** The figure admission enforces: the published one, bent by the quota faults. */
function enforcedLimit(rt: TargetRuntime, limit: number): number {
  if (rt.faults.has('quota-off-by-one')) return limit + 1;
  if (rt.faults.has('quota-early')) return limit - 1;
  return limit;
}

function admittedView(rt: TargetRuntime, quotaClass: QuotaClass, limit: number, usage: Usage): QuotaView {
  const view = viewOf(quotaClass, limit, usage);
  return rt.faults.has('remaining-stuck') ? { ...view, remaining: limit - 1 } : view;
}

/** A 429 always reports Remaining 0 (even when a fault refused early), so it breaks only its own check. */
function refused(quotaClass: QuotaClass, limit: number, usage: Usage): AdmissionOutcome {
  return { admitted: false, view: { kind: quotaClass, limit, remaining: 0, windowEndMs: usage.window.endMs }, windowEndMs: usage.window.endMs };
}

/** Admit `units` against the holder's bucket, or refuse them all (bulk is refused whole). */
export function admit(
  rt: TargetRuntime,
  holder: Holder,
  quotaClass: QuotaClass,
  units: number,
  now: number,
): AdmissionOutcome | Promise<AdmissionOutcome> {
  const limit = holder.org.limits[quotaClass];
  const bucket = bucketOf(rt, holder, quotaClass);
  if (rt.faults.has('racy-admission')) return racyAdmit(rt, bucket, quotaClass, limit, units, now);
  const result = rt.counters.tryConsume(bucket, units, enforcedLimit(rt, limit), now);
  return result.admitted ? { admitted: true, view: admittedView(rt, quotaClass, limit, result) } : refused(quotaClass, limit, result);
}

/** `racy-admission`: read the count, wait as if for a shared store, then increment regardless. */
async function racyAdmit(
  rt: TargetRuntime,
  bucket: string,
  quotaClass: QuotaClass,
  limit: number,
  units: number,
  now: number,
): Promise<AdmissionOutcome> {
  const seen = rt.counters.peek(bucket, now);
  if (seen.used + units > enforcedLimit(rt, limit)) return refused(quotaClass, limit, seen);
  await delay(RACY_GAP_MS, undefined, { signal: rt.closing });
  const usage = rt.counters.consume(bucket, units, rt.now());
  return { admitted: true, view: admittedView(rt, quotaClass, limit, usage) };
}
