/**
 * The parser of each rate-limit dialect (rate-limit-dialects.ts names them): from the dialect's
 * fields as received to the policies announced, the quotas reported and the problems met.
 */
import type { Item, Parameters } from 'structured-headers';
import {
  DRAFT_6_FIELDS,
  integerParameter,
  nameOf,
  partitionKeyParameter,
  POLICY_FIELD as POLICY,
  problem,
  RATELIMIT_FIELD as RATELIMIT,
  readIntegerDictionary,
  readIntegerItem,
  readItemList,
  readPlainInteger,
  resetReading,
  unitParameter,
  X_RATELIMIT_FIELDS,
  type AnnouncedPolicy,
  type ParseRateLimitOptions,
  type QuotaReading,
  type RateLimitProblem,
  type Read,
  type ResetForm,
} from './rate-limit-fields.ts';

/** What a parser finds in the fields received (by lower-case name). */
export interface ParsedFields {
  readonly policies: readonly AnnouncedPolicy[];
  readonly quotas: readonly QuotaReading[];
  readonly problems: readonly RateLimitProblem[];
}

export type DialectParser = (raw: Readonly<Record<string, string>>, options: ParseRateLimitOptions) => ParsedFields;

/** Reads one field with `reader`, its absence a problem. */
function readField<T>(
  raw: Readonly<Record<string, string>>,
  field: string,
  reader: (field: string, raw: string) => Read<T>,
): Read<T> {
  const value = raw[field];
  if (value === undefined) return { value: null, problems: [problem('field-missing', field, 'not sent')] };
  return reader(field, value);
}

/** RateLimit-Policy of drafts 6 and 7: unnamed items, the quota the item's Integer, with w. */
function unnamedPolicies(raw: Readonly<Record<string, string>>, problems: RateLimitProblem[]): AnnouncedPolicy[] {
  const read = readField(raw, POLICY, readItemList);
  problems.push(...read.problems);
  return (read.value ?? []).flatMap((item, member) => {
    if (item === null) return [];
    const [quota, params] = item;
    if (typeof quota !== 'number' || !Number.isSafeInteger(quota) || quota < 0) {
      problems.push(problem('member-invalid', POLICY, 'the quota is not a non-negative Integer', { member }));
      return [];
    }
    const windowS = integerParameter(POLICY, member, params, 'w', problems, 1);
    return [{ name: null, quota, windowS, unit: unitParameter(POLICY, member, params, problems), partitionKey: null }];
  });
}

/** The policy whose quota is the limit, where the fields name none; its absence a problem when some were announced. */
function matchByLimit(
  policies: readonly AnnouncedPolicy[],
  limit: number | null,
  field: string,
  problems: RateLimitProblem[],
): number | null {
  if (limit === null || policies.length === 0) return null;
  const index = policies.findIndex((p) => p.quota === limit);
  if (index >= 0) return index;
  const quotas = policies.map((p) => p.quota).join(', ');
  problems.push(problem('limit-unannounced', field, `limit ${limit}; ${POLICY} announces ${quotas}`));
  return null;
}

/** Limit, remaining and reset in three fields, each read by `reader`, and (draft 6) the policy beside them. */
function tripleParser(
  names: { readonly limit: string; readonly remaining: string; readonly reset: string },
  reader: (field: string, raw: string) => Read<number>,
  form: ResetForm,
  withPolicy: boolean,
): DialectParser {
  return (raw, options) => {
    const problems: RateLimitProblem[] = [];
    const take = (field: string) => {
      const read = readField(raw, field, reader);
      problems.push(...read.problems);
      return read.value;
    };
    const limit = take(names.limit);
    const remaining = take(names.remaining);
    const reset = take(names.reset);
    const policies = withPolicy ? unnamedPolicies(raw, problems) : [];
    if (limit === null && remaining === null && reset === null) return { policies, quotas: [], problems };
    const quota: QuotaReading = {
      policy: null,
      announced: matchByLimit(policies, limit, names.limit, problems),
      limit,
      remaining,
      reset: reset === null ? null : resetReading(options.resetForm ?? form, reset, options.now),
      partitionKey: null,
    };
    return { policies, quotas: [quota], problems };
  };
}

/** Draft 7: RateLimit a Dictionary of limit, remaining and reset; RateLimit-Policy unnamed items. */
export const parseDraft7: DialectParser = (raw, options) => {
  const problems: RateLimitProblem[] = [];
  const policies = unnamedPolicies(raw, problems);
  const read = readField(raw, RATELIMIT, (field, value) =>
    readIntegerDictionary(field, value, ['limit', 'remaining', 'reset']),
  );
  problems.push(...read.problems);
  if (read.value === null) return { policies, quotas: [], problems };
  const { limit = null, remaining = null, reset = null } = read.value;
  const quota: QuotaReading = {
    policy: null,
    announced: matchByLimit(policies, limit, RATELIMIT, problems),
    limit,
    remaining,
    reset: reset === null ? null : resetReading(options.resetForm ?? 'seconds-until', reset, options.now),
    partitionKey: null,
  };
  return { policies, quotas: [quota], problems };
};

/** A named item of RateLimit-Policy (ietf): its name, q (required), w, qu and pk. */
function namedPolicy(item: Item, member: number, problems: RateLimitProblem[]): AnnouncedPolicy | null {
  const name = nameOf(item);
  if (name === null) {
    problems.push(problem('member-invalid', POLICY, 'the policy name is neither a String nor a Token', { member }));
    return null;
  }
  const [, params] = item;
  const quota = integerParameter(POLICY, member, params, 'q', problems);
  if (!params.has('q'))
    problems.push(problem('parameter-missing', POLICY, `policy "${name}" has no q`, { member, key: 'q' }));
  if (quota === null) return null;
  const windowS = integerParameter(POLICY, member, params, 'w', problems, 1);
  const unit = unitParameter(POLICY, member, params, problems);
  return { name, quota, windowS, unit, partitionKey: partitionKeyParameter(POLICY, member, params, problems) };
}

/** A RateLimit item (ietf): the policy it names, r (required), t and pk, matched to RateLimit-Policy by name. */
function namedQuota(
  item: Item,
  member: number,
  policies: readonly AnnouncedPolicy[],
  options: ParseRateLimitOptions,
  problems: RateLimitProblem[],
): QuotaReading | null {
  const name = nameOf(item);
  if (name === null) {
    problems.push(problem('member-invalid', RATELIMIT, 'the policy name is neither a String nor a Token', { member }));
    return null;
  }
  const params: Parameters = item[1];
  const remaining = integerParameter(RATELIMIT, member, params, 'r', problems);
  if (!params.has('r'))
    problems.push(problem('parameter-missing', RATELIMIT, `"${name}" has no r`, { member, key: 'r' }));
  const t = integerParameter(RATELIMIT, member, params, 't', problems);
  const index = policies.findIndex((p) => p.name === name);
  if (index < 0 && policies.length > 0) {
    const announced = policies.map((p) => `"${p.name}"`).join(', ');
    problems.push(problem('policy-unannounced', RATELIMIT, `"${name}"; ${POLICY} announces ${announced}`, { member }));
  }
  return {
    policy: name,
    announced: index < 0 ? null : index,
    limit: index < 0 ? null : policies[index]!.quota,
    remaining,
    reset: t === null ? null : resetReading(options.resetForm ?? 'seconds-until', t, options.now),
    partitionKey: partitionKeyParameter(RATELIMIT, member, params, problems),
  };
}

/** Drafts 8 to 11: RateLimit-Policy and RateLimit, Lists of named items. */
export const parseIetf: DialectParser = (raw, options) => {
  const problems: RateLimitProblem[] = [];
  const policyItems = readField(raw, POLICY, readItemList);
  problems.push(...policyItems.problems);
  const policies = (policyItems.value ?? []).flatMap((item, member) => {
    const policy = item === null ? null : namedPolicy(item, member, problems);
    return policy === null ? [] : [policy];
  });
  const quotaItems = readField(raw, RATELIMIT, readItemList);
  problems.push(...quotaItems.problems);
  const quotas = (quotaItems.value ?? []).flatMap((item, member) => {
    const quota = item === null ? null : namedQuota(item, member, policies, options, problems);
    return quota === null ? [] : [quota];
  });
  return { policies, quotas, problems };
};

/** §8's triple: plain integers, Reset in epoch seconds. */
export const parseXRateLimit = tripleParser(X_RATELIMIT_FIELDS, readPlainInteger, 'epoch-seconds', false);
/** Draft 6: Structured Field Integers, Reset in seconds until, and RateLimit-Policy beside them. */
export const parseDraft6 = tripleParser(DRAFT_6_FIELDS, readIntegerItem, 'seconds-until', true);
