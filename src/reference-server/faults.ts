/**
 * The fault catalogue of the reference target. Each fault breaks exactly one promise of the spec
 * (named by the checks, src/checks/, it is meant to fail); the clean target keeps them all.
 */
import type { CheckId } from '../catalogue/types.ts';
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  RATE_LIMIT_DIALECT_NAMES,
  type RateLimitDialectName,
} from '../contract/rate-limit-dialects.ts';

export const FAULT_NAMES = [
  'quota-off-by-one',
  'quota-early',
  'remaining-stuck',
  'reset-relative',
  'reset-millis',
  'retry-after-mismatch',
  'retry-after-short',
  'headers-missing-on-errors',
  'wrong-429-body',
  'racy-admission',
  'per-key-quota',
  'global-quota',
  'no-concurrency-cap',
  'scope-unenforced',
  'slow-revocation',
  'revocation-flaps',
  'limit-header-wrong',
  'unknown-key-admitted',
  'token-bucket',
  'per-route-quota',
  'reset-drifts',
  'no-rate-headers',
  'policy-quota-wrong',
  'remaining-never-zero',
  'reset-early',
  'policy-missing',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultDefinition {
  readonly name: FaultName;
  /** What the faulty target does, in one line. */
  readonly description: string;
  /** The checks this fault is meant to fail (and no others, ideally). */
  readonly breaks: readonly CheckId[];
  /**
   * Checks that may fail too, and why: the fault's effect reaches them through the harness's own
   * traffic (e.g. orgs checked in parallel sharing one bucket), depending on how the run interleaves.
   */
  readonly collateral?: { readonly checks: readonly CheckId[]; readonly why: string };
  /** The shortest window at which the harness is expected to catch it, where more than the usual (a fault run at shorter windows may leave it undecided), and why. */
  readonly minWindow?: { readonly ms: number; readonly why: string };
  /** The header dialects (`headers`) whose fields it bends; absent: every one. */
  readonly dialects?: readonly RateLimitDialectName[];
}

/** How long the last edge takes to apply a revocation under `slow-revocation` (beyond the 3 s SLA). */
export const SLOW_REVOCATION_MS = 3500;
/** `revocation-flaps`: the last edge admits the key again this long after it starts rejecting... */
export const FLAP_AFTER_MS = 200;
/** ...for this long, then rejects for good. */
export const FLAP_FOR_MS = 300;
/** `retry-after-mismatch`: the header exceeds the body's retry_after_seconds by this much. */
export const RETRY_AFTER_MISMATCH_S = 7;
/** `retry-after-short`: both values fall short of the true wait by this much (floored at 0). */
export const RETRY_AFTER_SHORT_BY_S = 2;
/**
 * `racy-admission`: the gap between reading the count and incrementing it, a simulated round trip to
 * a shared counter store. Long enough that a concurrent burst reliably lands inside it, short enough
 * that sequential traffic stays fast (and exact).
 */
export const RACY_GAP_MS = 3;
/** `reset-early`: the dialect's reset names a time this much before the quota returns (floored at now). */
export const RESET_EARLY_BY_S = 2;

/** The dialects that announce policies beside the limit: the faults of RateLimit-Policy bend them alone. */
const POLICY_DIALECTS = RATE_LIMIT_DIALECT_NAMES.filter((d) => d !== DEFAULT_RATE_LIMIT_DIALECT);

const definitions: Readonly<Record<FaultName, Omit<FaultDefinition, 'name'>>> = {
  'quota-off-by-one': {
    description: 'admits Limit+1 requests per window (Remaining floors at 0)',
    // The extra admitted response cannot show a decrement: Remaining stays at 0.
    breaks: ['QUOTA-READ', 'QUOTA-INGEST', 'HDR-REMAINING'],
  },
  'quota-early': {
    description: 'answers 429 once Limit-1 requests were admitted',
    breaks: ['QUOTA-READ', 'QUOTA-INGEST'],
  },
  'remaining-stuck': {
    description: 'X-RateLimit-Remaining always shows Limit-1 on admitted requests',
    breaks: ['HDR-REMAINING'],
  },
  'reset-relative': {
    description: 'X-RateLimit-Reset is seconds until the reset, not a Unix epoch',
    breaks: ['HDR-RESET'],
    // The other dialects write seconds until already.
    dialects: ['x-ratelimit'],
  },
  'reset-millis': {
    description: 'X-RateLimit-Reset is the Unix epoch in milliseconds, not seconds',
    breaks: ['HDR-RESET'],
  },
  'retry-after-mismatch': {
    description: `the Retry-After header is retry_after_seconds + ${RETRY_AFTER_MISMATCH_S}`,
    breaks: ['RETRY-AFTER'],
  },
  'retry-after-short': {
    description: `Retry-After and retry_after_seconds both end ${RETRY_AFTER_SHORT_BY_S} s before the window does: waiting it out still gets 429`,
    breaks: ['RETRY-AFTER'],
  },
  'headers-missing-on-errors': {
    description: 'no X-RateLimit-* headers on 4xx responses other than 429',
    breaks: ['HDR-PRESENT'],
  },
  'wrong-429-body': {
    description: 'the 429 body has code "TOO_MANY_REQUESTS" and no retry_after_seconds',
    // Without retry_after_seconds, Retry-After has nothing to agree with.
    breaks: ['ERR-429-BODY', 'RETRY-AFTER'],
  },
  'racy-admission': {
    description: `check-then-increment with a ${RACY_GAP_MS} ms await between: concurrent bursts over-admit, sequential traffic stays exact`,
    breaks: ['QUOTA-READ', 'QUOTA-INGEST'],
  },
  'per-key-quota': {
    description: 'quotas are kept per key instead of per organization',
    breaks: ['ORG-SHARED'],
  },
  'global-quota': {
    description: 'all organizations of a tier share one quota',
    breaks: ['ORG-ISOLATED'],
    collateral: {
      checks: ['QUOTA-READ', 'QUOTA-INGEST', 'HDR-REMAINING', 'ORG-SHARED', 'RETRY-AFTER', 'HEAD-BOOTSTRAP'],
      why: "the suite checks a tier's organizations in parallel, so under one shared bucket each check sees the others' traffic",
    },
  },
  'no-concurrency-cap': {
    description: 'requests in flight are not capped',
    breaks: ['CONCURRENCY-CAP'],
  },
  'scope-unenforced': {
    description: 'any valid key may call any endpoint, whatever its scopes',
    breaks: ['SCOPE-ENFORCED'],
  },
  'slow-revocation': {
    description: `the last edge applies revocations after ${SLOW_REVOCATION_MS} ms`,
    breaks: ['REVOKE-LATENCY'],
  },
  'revocation-flaps': {
    description: `the last edge admits a revoked key again from ${FLAP_AFTER_MS} ms after it started rejecting it, for ${FLAP_FOR_MS} ms`,
    breaks: ['REVOKE-STICKY'],
  },
  'limit-header-wrong': {
    description: 'X-RateLimit-Limit is one too high on read responses (admission stays right)',
    breaks: ['HDR-LIMIT'],
  },
  'unknown-key-admitted': {
    description: 'a well-formed key that was never issued is admitted, as a guest of the first organization',
    breaks: ['AUTH-UNKNOWN'],
  },
  'token-bucket': {
    description:
      'the quota is a token bucket of capacity Limit refilled at Limit per window: more than Limit are admitted within a window',
    // A bucket has no window: Reset (when full) moves with every request, and Retry-After (one
    // token) cannot agree with it.
    breaks: ['QUOTA-READ', 'QUOTA-INGEST', 'HDR-RESET', 'RETRY-AFTER'],
    collateral: {
      checks: ['HDR-REMAINING', 'ORG-SHARED'],
      why: 'Remaining stalls whenever a token drips in between two requests, and a dripped token can admit the second key: both depend on timing',
    },
  },
  'per-route-quota': {
    description: 'each read endpoint has a counter of its own instead of one read quota per organization',
    breaks: ['QUOTA-READ'],
  },
  'reset-drifts': {
    description:
      'X-RateLimit-Reset is always one full window from now, drifting forward each second (admission stays exact)',
    // Retry-After stays truthful, so it disagrees with the drifting Reset.
    breaks: ['HDR-RESET', 'RETRY-AFTER'],
    collateral: {
      checks: ['QUOTA-READ', 'QUOTA-INGEST', 'HDR-REMAINING'],
      why: 'with a Reset that moves, a boundary is placed by Date alone, whose cached value lags under load: on a busy machine a check can start off the boundary',
    },
    // Why 3 s: docs/decisions/reset-drifts-min-window.md
    minWindow: {
      ms: 3000,
      why: "windows placed by Date's one-second ticks alone need room beside the check's own traffic",
    },
  },
  'no-rate-headers': {
    description: 'no X-RateLimit-* headers on any response (admission stays exact; 429 keeps its body and Retry-After)',
    // §4: HEAD /recruiter/bootstrap returns the §8 headers.
    breaks: ['HDR-PRESENT', 'HDR-LIMIT', 'HDR-REMAINING', 'HDR-RESET', 'HEAD-BOOTSTRAP'],
  },
  'policy-quota-wrong': {
    description:
      'RateLimit-Policy announces the read quota one too high; the limit, remaining and reset fields and admission stay right',
    breaks: ['HDR-LIMIT'],
    // Under the IETF fields q is the Limit itself: `limit-header-wrong` bends it there, with r shown
    // against it, as it bends X-RateLimit-Limit; a q alone one too high would spoil every window.
    dialects: ['ietf-draft-7', 'ietf-draft-6'],
  },
  'remaining-never-zero': {
    description: "the dialect's remaining (r) never goes below 1, on the 429 too (admission stays exact)",
    breaks: ['HDR-REMAINING'],
    dialects: POLICY_DIALECTS,
  },
  'reset-early': {
    description: `the dialect's reset (t) names a time ${RESET_EARLY_BY_S} s before the quota returns (admission and Retry-After stay right)`,
    breaks: ['HDR-RESET'],
    dialects: POLICY_DIALECTS,
  },
  'policy-missing': {
    description: 'no RateLimit-Policy field on any response; the other rate-limit fields stay right',
    breaks: ['HDR-PRESENT'],
    // Drafts 6 and 7 carry the limit in a field of its own; under the IETF fields RateLimit-Policy's
    // q is the only Limit, so without it HDR-LIMIT has none to judge and fails too.
    dialects: ['ietf-draft-7', 'ietf-draft-6'],
  },
};

export const faultCatalogue: readonly FaultDefinition[] = Object.freeze(
  FAULT_NAMES.map((name) => Object.freeze({ name, ...definitions[name] })),
);

export function isFaultName(name: string): name is FaultName {
  return (FAULT_NAMES as readonly string[]).includes(name);
}

export function faultDefinition(name: FaultName): FaultDefinition {
  return faultCatalogue.find((f) => f.name === name)!;
}

/** Whether a fault bends the fields of a header dialect. */
export function bendsDialect(fault: FaultDefinition, dialect: RateLimitDialectName): boolean {
  return fault.dialects === undefined || fault.dialects.includes(dialect);
}

/** The faults among `faults` that bend nothing in `dialect`: a mistake, named with the dialects they need. */
export function faultsOutsideDialect(faults: readonly FaultName[], dialect: RateLimitDialectName): string[] {
  return faults
    .map(faultDefinition)
    .filter((f) => !bendsDialect(f, dialect))
    .map((f) => `"${f.name}" bends the headers of ${f.dialects!.join(', ')}, not ${dialect}`);
}

/** `--list-faults`: one line per fault, name then description. */
export function formatFaultList(): string {
  const width = Math.max(...FAULT_NAMES.map((n) => n.length));
  return faultCatalogue.map((f) => `${f.name.padEnd(width)}  ${f.description}\n`).join('');
}
