/**
 * The rate-limit header dialects as plain data (their names, fields and how each writes when the
 * quota returns) and the names of what may fail to parse in them, apart from the parsers
 * (rate-limit-dialects.ts): observations, the config, the CLI's flags and the k6 scripts name them
 * without loading a Structured Fields parser.
 */
import { recruitingApi } from './recruiting-api.ts';

export const RATE_LIMIT_DIALECT_NAMES = ['x-ratelimit', 'ietf', 'ietf-draft-7', 'ietf-draft-6'] as const;
export type RateLimitDialectName = (typeof RATE_LIMIT_DIALECT_NAMES)[number];
/** §8's triple. */
export const DEFAULT_RATE_LIMIT_DIALECT: RateLimitDialectName = 'x-ratelimit';

export function isRateLimitDialectName(name: string): name is RateLimitDialectName {
  return (RATE_LIMIT_DIALECT_NAMES as readonly string[]).includes(name);
}

export const RATE_LIMIT_PROBLEM_CODES = [
  /** A field the dialect uses is absent. */
  'field-missing',
  /** The field does not parse as the dialect writes it (not an integer, not a Structured Field, an empty list). */
  'field-invalid',
  /** A member of a list is not a policy item: an inner list, a name neither String nor Token, a quota not an integer. */
  'member-invalid',
  /** A parameter (or Dictionary key) the item needs is absent: q, r; limit, remaining, reset. */
  'parameter-missing',
  /** A parameter of the wrong type or out of range: a negative r, a w of 0, a pk that is no byte sequence. */
  'parameter-invalid',
  /** The RateLimit field names a policy that RateLimit-Policy does not announce. */
  'policy-unannounced',
  /** An unnamed policy's limit matches the quota of no policy announced beside it. */
  'limit-unannounced',
] as const;
export type RateLimitProblemCode = (typeof RATE_LIMIT_PROBLEM_CODES)[number];

/** How a dialect writes when the quota returns. */
export const RESET_FORMS = ['epoch-seconds', 'epoch-millis', 'seconds-until'] as const;
export type ResetForm = (typeof RESET_FORMS)[number];

/** The field names of the dialects, lower case. */
export const POLICY_FIELD = 'ratelimit-policy';
export const RATELIMIT_FIELD = 'ratelimit';
export const DRAFT_6_FIELDS = {
  limit: 'ratelimit-limit',
  remaining: 'ratelimit-remaining',
  reset: 'ratelimit-reset',
} as const;
/** §8's, as the contract names them. */
export const X_RATELIMIT_FIELDS = {
  limit: recruitingApi.headers.limit,
  remaining: recruitingApi.headers.remaining,
  reset: recruitingApi.headers.reset,
} as const;

export interface RateLimitDialect {
  readonly name: RateLimitDialectName;
  /** What it is, in one line. */
  readonly summary: string;
  /** The header fields it uses, lower case, in the order they are written. */
  readonly fields: readonly string[];
  /** The field that announces the policies (quota, window, unit, partition key); null: none. */
  readonly policyField: string | null;
  /** Whether each quota reported names its policy, so that one field can report several. */
  readonly namesPolicies: boolean;
  readonly resetForm: ResetForm;
}

export const RATE_LIMIT_DIALECTS: Readonly<Record<RateLimitDialectName, RateLimitDialect>> = Object.freeze({
  'x-ratelimit': {
    name: 'x-ratelimit',
    summary: "§8's X-RateLimit-Limit, -Remaining and -Reset, Reset in epoch seconds",
    fields: [X_RATELIMIT_FIELDS.limit, X_RATELIMIT_FIELDS.remaining, X_RATELIMIT_FIELDS.reset],
    policyField: null,
    namesPolicies: false,
    resetForm: 'epoch-seconds',
  },
  ietf: {
    name: 'ietf',
    summary:
      'RateLimit-Policy: "read";q=60;w=60 and RateLimit: "read";r=59;t=42, Structured Field Lists (drafts 8 to 11)',
    fields: [POLICY_FIELD, RATELIMIT_FIELD],
    policyField: POLICY_FIELD,
    namesPolicies: true,
    resetForm: 'seconds-until',
  },
  'ietf-draft-7': {
    name: 'ietf-draft-7',
    summary: 'RateLimit: limit=60, remaining=59, reset=42 (a Dictionary) and RateLimit-Policy: 60;w=60',
    fields: [POLICY_FIELD, RATELIMIT_FIELD],
    policyField: POLICY_FIELD,
    namesPolicies: false,
    resetForm: 'seconds-until',
  },
  'ietf-draft-6': {
    name: 'ietf-draft-6',
    summary: 'RateLimit-Limit, -Remaining and -Reset (seconds until) and RateLimit-Policy: 60;w=60',
    fields: [DRAFT_6_FIELDS.limit, DRAFT_6_FIELDS.remaining, DRAFT_6_FIELDS.reset, POLICY_FIELD],
    policyField: POLICY_FIELD,
    namesPolicies: false,
    resetForm: 'seconds-until',
  },
});
