/**
 * Observations as the prober records them under a declared rate-limit dialect (issue 29): a series
 * built with the §8 helpers (observations.ts) whose X-RateLimit-* figures are rendered in the dialect
 * as the reference target renders them (contract renderRateLimitFields), bent by the target's
 * dialect faults, and read back with measure/rate-limit-reading.ts.
 */
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import {
  RATE_LIMIT_DIALECTS,
  renderRateLimitFields,
  type PolicyFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';
import type { DeclaredDialect } from '../../src/verdicts/support/dialect.ts';

/** The reference target's dialect faults, as they bend the fields (src/reference-server/rate-headers.ts). */
export type DialectFault = 'policy-quota-wrong' | 'remaining-never-zero' | 'reset-early' | 'policy-missing';

export interface DialectShape {
  readonly dialect: DeclaredDialect;
  /** The window the policy announces (w), seconds. */
  readonly windowS: number;
  readonly fault?: DialectFault;
  /** The reset as the fields write it: when the quota returns, from the response's Date and its X-RateLimit-Reset. */
  readonly resetMsOf?: (o: Observation, nowMs: number) => number;
}

/** The server's clock when it answered `o` (observations.ts places it mid-flight, no clock offset). */
export function serverMsOf(o: Observation): number {
  return o.sentWall + ((o.headersAt ?? o.sentAt) - o.sentAt) / 2;
}

/** The fields `o` would carry in `shape.dialect`, its X-RateLimit-* figures rendered there. */
export function dialectHeaders(o: Observation, shape: DialectShape): Record<string, string> {
  const { dialect, windowS, fault } = shape;
  const limit = o.rateLimit.limit.value!;
  const now = serverMsOf(o);
  const trueResetMs = shape.resetMsOf ? shape.resetMsOf(o, now) : o.rateLimit.reset.value! * 1000;
  const resetMs = fault === 'reset-early' ? Math.max(now, trueResetMs - 2000) : trueResetMs;
  const remaining = Math.max(fault === 'remaining-never-zero' ? 1 : 0, o.rateLimit.remaining.value!);
  const policies: PolicyFigures[] = [
    { name: 'read', quota: limit + (fault === 'policy-quota-wrong' ? 1 : 0), windowS },
    { name: 'ingest', quota: 20, windowS },
    { name: 'concurrency', quota: 3, windowS: null, unit: 'concurrent-requests' },
  ];
  const fields = renderRateLimitFields(dialect, {
    now,
    quota: { policy: 'read', limit, remaining, resetMs },
    policies,
  }).filter(([name]) => fault !== 'policy-missing' || name !== RATE_LIMIT_DIALECTS[dialect].policyField);
  const headers: Record<string, string> = Object.fromEntries(fields);
  if (o.rateLimit.retryAfter.raw !== null) headers['retry-after'] = o.rateLimit.retryAfter.raw;
  return headers;
}

/** `o` as the prober records it when the run declares `dialect` and the server sends `headers`. */
export function readAs(o: Observation, dialect: DeclaredDialect, headers: Record<string, string>): Observation {
  if (o.status === null) return o;
  return { ...o, rateLimit: rateLimitHeadersOf(headers, recruitingApi.headers, { dialect, policies: {} }) };
}

/** `o`'s figures sent in the dialect (bent by the fault), read as a run declaring it records them. */
export function inDialect(o: Observation, shape: DialectShape): Observation {
  return readAs(o, shape.dialect, dialectHeaders(o, shape));
}
