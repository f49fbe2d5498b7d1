/**
 * A response's rate-limit fields as an observation keeps them, in the dialect the run declares.
 * Under §8's X-RateLimit-* they are read as they always were; under another dialect the contract's
 * parser reads them (contract/rate-limit-dialects.ts) and the figures of the quota the response
 * reports take the places of Limit, Remaining and Reset, so that every check and every window placed
 * reads one shape, while the fields as received are kept beside them for evidence.
 */
import type { HeaderNames, QuotaClass } from '../contract/types.ts';
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  parseRateLimitFields,
  RATE_LIMIT_DIALECTS,
  type AnnouncedPolicy,
  type QuotaReading,
  type RateLimitDialectName,
  type RawHeaderValues,
  type RateLimitReading,
} from '../contract/rate-limit-dialects.ts';
import {
  headerValue,
  NO_HEADER,
  type AnnouncedPolicyFigures,
  type DialectFields,
  type HeaderValue,
  type RateLimitHeaders,
} from './observation.ts';

/** How a run reads rate-limit fields: the dialect declared, and which policy name each quota class goes by where declared. */
export interface RateLimitReader {
  readonly dialect: RateLimitDialectName;
  /**
   * Per quota class, the name of the policy a response to a request of that class is read from (the
   * config's `headers.policies`); a class named none: the first quota the response reports.
   */
  readonly policies: Readonly<Partial<Record<QuotaClass, string>>>;
}

export const SPEC_READER: RateLimitReader = Object.freeze({ dialect: DEFAULT_RATE_LIMIT_DIALECT, policies: {} });

/**
 * The rate-limit fields of a response with `headers` (names lower case, as Node gives them) to a
 * request counted against `quotaClass`, whose declared policy (if any) is the quota read.
 */
export function rateLimitHeadersOf(
  headers: RawHeaderValues,
  names: HeaderNames,
  reader: RateLimitReader = SPEC_READER,
  quotaClass: QuotaClass = 'read',
): RateLimitHeaders {
  const retryAfter = headerValue(headers[names.retryAfter]);
  if (reader.dialect === 'x-ratelimit') {
    return {
      limit: headerValue(headers[names.limit]),
      remaining: headerValue(headers[names.remaining]),
      reset: headerValue(headers[names.reset]),
      retryAfter,
    };
  }
  const reading = parseRateLimitFields(reader.dialect, headers);
  const quota = reportedQuota(reading, reader.policies[quotaClass] ?? null);
  const sources = fieldSources(reader.dialect);
  const announced = quota?.announced ?? null;
  return {
    limit: figure(reading, sources.limit, quota?.limit ?? null),
    remaining: figure(reading, sources.remaining, quota?.remaining ?? null),
    reset: figure(reading, sources.reset, quota?.reset?.value ?? null),
    retryAfter,
    dialect: dialectFields(reader.dialect, reading, announced === null ? null : reading.policies[announced]!),
  };
}

/** The quota a response reports: the one the declared policy name names where given (none if absent), else the first. */
function reportedQuota(reading: RateLimitReading, policyName: string | null): QuotaReading | null {
  if (policyName !== null) return reading.quotas.find((q) => q.policy === policyName) ?? null;
  return reading.quotas[0] ?? null;
}

/** Which field each figure is read from: a dialect that reports several in one field reads them all there. */
function fieldSources(dialect: Exclude<RateLimitDialectName, 'x-ratelimit'>): {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
} {
  const d = RATE_LIMIT_DIALECTS[dialect];
  if (dialect === 'ietf-draft-6') return { limit: d.fields[0]!, remaining: d.fields[1]!, reset: d.fields[2]! };
  // The IETF fields: the quota from the policy announced, what is left and when it returns from RateLimit.
  const rateLimit = d.fields.find((f) => f !== d.policyField)!;
  return { limit: dialect === 'ietf' ? d.policyField! : rateLimit, remaining: rateLimit, reset: rateLimit };
}

/** A figure and the field it was read from: absent with the field, null where the field did not give it. */
function figure(reading: RateLimitReading, field: string, value: number | null): HeaderValue {
  const raw = reading.raw[field];
  if (raw === undefined) return NO_HEADER;
  return { raw, value };
}

function dialectFields(
  name: Exclude<RateLimitDialectName, 'x-ratelimit'>,
  reading: RateLimitReading,
  policy: AnnouncedPolicy | null,
): DialectFields {
  return {
    name,
    fields: reading.raw,
    policy: policy === null ? null : policyFigures(policy),
    policies: reading.policies.map(policyFigures),
    problems: [...new Set(reading.problems.map((p) => p.code))],
  };
}

const policyFigures = (p: AnnouncedPolicy): AnnouncedPolicyFigures => ({
  name: p.name,
  quota: p.quota,
  windowS: p.windowS,
  unit: p.unit,
});
