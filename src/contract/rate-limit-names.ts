/**
 * The names of the rate-limit header dialects and of what may fail to parse in them: plain data,
 * apart from the parsers (rate-limit-dialects.ts), so that observations and the k6 scripts can name
 * them without loading a Structured Fields parser.
 */

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
