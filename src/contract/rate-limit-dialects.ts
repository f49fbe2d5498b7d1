/**
 * Rate-limit header dialects as data: which fields each one uses and how it writes when the quota
 * returns; a pure parser from a response's raw values to one reading (the policies announced, the
 * state of each quota reported, what failed to parse); and the renderer the reference target
 * writes them with, so that the two round-trip. §8 names the `x-ratelimit` triple; the others are
 * what deployments send instead (draft-ietf-httpapi-ratelimit-headers).
 */
import { serializeDictionary, serializeItem, serializeList, type Parameters } from 'structured-headers';
import {
  DRAFT_6_FIELDS as DRAFT_6,
  POLICY_FIELD as POLICY,
  RATELIMIT_FIELD as RATELIMIT,
  writtenReset,
  X_RATELIMIT_FIELDS as X,
  type AnnouncedPolicy,
  type ParseRateLimitOptions,
  type QuotaReading,
  type RateLimitProblem,
  type RawHeaderValues,
  type ResetForm,
} from './rate-limit-fields.ts';
import { parseDraft6, parseDraft7, parseIetf, parseXRateLimit, type DialectParser } from './rate-limit-parsers.ts';

export { RESET_FORMS, RATE_LIMIT_PROBLEM_CODES } from './rate-limit-fields.ts';
export type {
  AnnouncedPolicy,
  ParseRateLimitOptions,
  QuotaReading,
  RateLimitProblem,
  RateLimitProblemCode,
  RawHeaderValues,
  ResetForm,
  ResetReading,
} from './rate-limit-fields.ts';

export {
  DEFAULT_RATE_LIMIT_DIALECT,
  isRateLimitDialectName,
  RATE_LIMIT_DIALECT_NAMES,
  RATE_LIMIT_DIALECTS,
  type RateLimitDialect,
  type RateLimitDialectName,
} from './rate-limit-names.ts';
import { RATE_LIMIT_DIALECTS, type RateLimitDialect, type RateLimitDialectName } from './rate-limit-names.ts';

/** One response's rate-limit fields as a dialect reads them: plain data, as an observation keeps it. */
export interface RateLimitReading {
  readonly dialect: RateLimitDialectName;
  /** The dialect's fields received, by lower-case name, several lines joined by ", "; absent ones left out. */
  readonly raw: Readonly<Record<string, string>>;
  readonly policies: readonly AnnouncedPolicy[];
  /** One per quota reported: one for the unnamed dialects, one per RateLimit item for ietf; none when absent. */
  readonly quotas: readonly QuotaReading[];
  readonly problems: readonly RateLimitProblem[];
}

/** The dialect's own fields among `headers`, lower case, several lines of one field joined as RFC 9110 §5.3 says. */
function dialectFields(dialect: RateLimitDialect, headers: RawHeaderValues): Record<string, string> {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const raw: Record<string, string> = {};
  for (const field of dialect.fields) {
    const value = byName.get(field);
    if (value !== undefined) raw[field] = typeof value === 'string' ? value : value.join(', ');
  }
  return raw;
}

const PARSERS: Readonly<Record<RateLimitDialectName, DialectParser>> = {
  'x-ratelimit': parseXRateLimit,
  ietf: parseIetf,
  'ietf-draft-7': parseDraft7,
  'ietf-draft-6': parseDraft6,
};

/** One response's rate-limit fields read as `dialect` writes them: never a throw, every problem kept. */
export function parseRateLimitFields(
  dialect: RateLimitDialectName,
  headers: RawHeaderValues,
  options: ParseRateLimitOptions = {},
): RateLimitReading {
  const raw = dialectFields(RATE_LIMIT_DIALECTS[dialect], headers);
  return { dialect, raw, ...PARSERS[dialect](raw, options) };
}

/** A policy to announce. */
export interface PolicyFigures {
  readonly name: string;
  readonly quota: number;
  /** Seconds; null: a policy with no window (a concurrency cap). */
  readonly windowS: number | null;
  /** qu; "requests" is the default and is not written. */
  readonly unit?: string;
  /** pk in base64; not written when absent. */
  readonly partitionKey?: string | null;
}

/** The state of the quota a response reports. */
export interface QuotaFigures {
  /** The name of its policy among those announced. */
  readonly policy: string;
  readonly limit: number;
  readonly remaining: number;
  /** When the quota returns, epoch ms. */
  readonly resetMs: number;
  /** pk of the RateLimit item (ietf), base64; not written when absent. */
  readonly partitionKey?: string | null;
}

export interface RateLimitFigures {
  /** The server's clock, epoch ms: a reset in seconds until is counted from it. */
  readonly now: number;
  readonly quota: QuotaFigures;
  /** The policies to announce: ietf lists them all; drafts 6 and 7 announce the quota's own alone. */
  readonly policies: readonly PolicyFigures[];
  /** The reset written in another form than the dialect's (a target's fault). */
  readonly resetForm?: ResetForm;
}

/** Field name, value: in the dialect's order. */
export type RateLimitField = readonly [name: string, value: string];

/** A policy's parameters: q, w, qu and pk where named (ietf), w alone where not (drafts 6 and 7 have no others). */
function policyParameters(policy: PolicyFigures, named: boolean): Parameters {
  const params: Parameters = new Map();
  if (named) params.set('q', policy.quota);
  if (policy.windowS !== null) params.set('w', policy.windowS);
  if (!named) return params;
  if (policy.unit !== undefined && policy.unit !== 'requests') params.set('qu', policy.unit);
  if (policy.partitionKey) params.set('pk', Buffer.from(policy.partitionKey, 'base64'));
  return params;
}

/** The quota's own policy, for the dialects that announce it alone; a quota of its limit when none is given. */
function ownPolicy(figures: RateLimitFigures): PolicyFigures {
  const { quota } = figures;
  return (
    figures.policies.find((p) => p.name === quota.policy) ?? { name: quota.policy, quota: quota.limit, windowS: null }
  );
}

type DialectRenderer = (figures: RateLimitFigures, resetValue: number) => RateLimitField[];

function unnamedPolicyField(figures: RateLimitFigures): RateLimitField {
  const policy = ownPolicy(figures);
  return [POLICY, serializeItem(policy.quota, policyParameters(policy, false))];
}

const RENDERERS: Readonly<Record<RateLimitDialectName, DialectRenderer>> = {
  'x-ratelimit': ({ quota }, reset) => [
    [X.limit, String(quota.limit)],
    [X.remaining, String(quota.remaining)],
    [X.reset, String(reset)],
  ],
  ietf: ({ quota, policies }, reset) => {
    const params: Parameters = new Map([
      ['r', quota.remaining],
      ['t', reset],
    ]);
    if (quota.partitionKey) params.set('pk', Buffer.from(quota.partitionKey, 'base64'));
    return [
      [POLICY, serializeList(policies.map((p) => [p.name, policyParameters(p, true)]))],
      [RATELIMIT, serializeList([[quota.policy, params]])],
    ];
  },
  'ietf-draft-7': (figures, reset) => [
    unnamedPolicyField(figures),
    [RATELIMIT, serializeDictionary({ limit: figures.quota.limit, remaining: figures.quota.remaining, reset })],
  ],
  'ietf-draft-6': (figures, reset) => [
    [DRAFT_6.limit, String(figures.quota.limit)],
    [DRAFT_6.remaining, String(figures.quota.remaining)],
    [DRAFT_6.reset, String(reset)],
    unnamedPolicyField(figures),
  ],
};

/**
 * The dialect's fields for `figures`, as the reference target sends them: a reset in seconds until
 * is rounded up (the quota is back by then), an epoch in seconds too. Names are Strings (ietf).
 */
export function renderRateLimitFields(dialect: RateLimitDialectName, figures: RateLimitFigures): RateLimitField[] {
  const form = figures.resetForm ?? RATE_LIMIT_DIALECTS[dialect].resetForm;
  return RENDERERS[dialect](figures, writtenReset(form, figures.quota.resetMs, figures.now));
}
