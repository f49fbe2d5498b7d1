/**
 * Which rate-limit dialects one response speaks, whatever the run declares: the dialects whose
 * fields it carries, each one's reading, the policies announced, and, where §8's X-RateLimit-*
 * triple is sent beside another dialect, whether the two tell the same state (the profile learns a
 * deployment's dialect from this; `doctor` names one that sends another than the config declares).
 * Pure: raw header values in, data out, never a throw.
 *
 * The IETF dialects share field names, so a field's form says whose it is: `RateLimit` as a
 * Dictionary of Integer `limit`, `remaining` or `reset` is draft 7's, any other `RateLimit` (a List
 * of named items, or garbage) is the IETF draft's (8 to 11); `RateLimit-Limit`, `-Remaining` or
 * `-Reset` are draft 6's; a `RateLimit-Policy` with neither beside it is the IETF draft's where it
 * names its policies, and no dialect's where it does not (draft 6 and 7 write it alike).
 */
import { parseDictionary } from 'structured-headers';
import {
  parseRateLimitFields,
  RATE_LIMIT_DIALECT_NAMES,
  RATE_LIMIT_DIALECTS,
  type AnnouncedPolicy,
  type QuotaReading,
  type RateLimitDialectName,
  type RateLimitReading,
  type RawHeaderValues,
} from './rate-limit-dialects.ts';
import { DRAFT_6_FIELDS, POLICY_FIELD, RATELIMIT_FIELD, X_RATELIMIT_FIELDS } from './rate-limit-fields.ts';

/** A dialect other than §8's. */
export type OtherDialectName = Exclude<RateLimitDialectName, 'x-ratelimit'>;

/** Two resets name the same moment when they are at most this far apart: each is written to the second. */
export const SAME_RESET_MS = 1000;

/** One figure as the X-RateLimit triple and the other dialect tell it; `agrees` null where one of them lacks it. */
export interface FigureAgreement {
  readonly x: number | null;
  readonly other: number | null;
  readonly agrees: boolean | null;
}

/** The X-RateLimit triple against the first quota another dialect reports. */
export interface TripleAgreement {
  readonly dialect: OtherDialectName;
  readonly limit: FigureAgreement;
  readonly remaining: FigureAgreement;
  /** When the quota returns, epoch ms; the same moment within SAME_RESET_MS. */
  readonly reset: FigureAgreement;
  /** Every figure agrees: true; one differs: false; none differs but one could not be compared: null. */
  readonly agrees: boolean | null;
}

export interface DialectsSent {
  /** Every rate-limit field of any dialect received, by lower-case name (several lines joined by ", "). */
  readonly fields: Readonly<Record<string, string>>;
  /** The dialects whose fields the response carries, in RATE_LIMIT_DIALECT_NAMES order, each read as it writes. */
  readonly sent: readonly RateLimitReading[];
  /** The policies RateLimit-Policy announces (named where it names them); none without the field. */
  readonly policies: readonly AnnouncedPolicy[];
  /** One per other dialect sent, where the X-RateLimit triple is sent too; none otherwise. */
  readonly agreement: readonly TripleAgreement[];
}

export interface DialectsSentOptions {
  /** The server's clock at the response, epoch ms; absent: the response's Date header (to the second). */
  readonly now?: number;
}

/** Every field name of every dialect, lower case, in the dialects' order. */
const ALL_FIELDS = [...new Set(RATE_LIMIT_DIALECT_NAMES.flatMap((d) => RATE_LIMIT_DIALECTS[d].fields))];

function receivedFields(headers: RawHeaderValues): Record<string, string> {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const fields: Record<string, string> = {};
  for (const name of ALL_FIELDS) {
    const value = byName.get(name);
    if (value !== undefined) fields[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return fields;
}

/** Draft 7's RateLimit: a Dictionary with an Integer limit, remaining or reset. */
function isDraft7RateLimit(raw: string): boolean {
  try {
    const dictionary = parseDictionary(raw);
    return ['limit', 'remaining', 'reset'].some((key) => Number.isInteger(dictionary.get(key)?.[0]));
  } catch {
    return false;
  }
}

/** Whether RateLimit-Policy names its policies, as only the IETF draft's does. */
function namesPolicies(fields: Readonly<Record<string, string>>): boolean {
  const policies = parseRateLimitFields('ietf', { [POLICY_FIELD]: fields[POLICY_FIELD] }).policies;
  return policies.length > 0;
}

const CLAIMS: Readonly<Record<RateLimitDialectName, (fields: Readonly<Record<string, string>>) => boolean>> = {
  'x-ratelimit': (f) => Object.values(X_RATELIMIT_FIELDS).some((name) => f[name] !== undefined),
  'ietf-draft-6': (f) => Object.values(DRAFT_6_FIELDS).some((name) => f[name] !== undefined),
  'ietf-draft-7': (f) => f[RATELIMIT_FIELD] !== undefined && isDraft7RateLimit(f[RATELIMIT_FIELD]),
  ietf: (f) =>
    f[RATELIMIT_FIELD] !== undefined
      ? !isDraft7RateLimit(f[RATELIMIT_FIELD])
      : f[POLICY_FIELD] !== undefined && !CLAIMS['ietf-draft-6'](f) && namesPolicies(f),
};

/** The reset a reading reports, as an epoch in ms; null where unknown (no reset, or seconds until without `now`). */
const resetEpochMs = (quota: QuotaReading | undefined): number | null => quota?.reset?.epochMs ?? null;

function figure(x: number | null, other: number | null, same: (a: number, b: number) => boolean): FigureAgreement {
  return { x, other, agrees: x === null || other === null ? null : same(x, other) };
}

function agreementOf(x: RateLimitReading, other: RateLimitReading): TripleAgreement {
  const [ours, theirs] = [x.quotas[0], other.quotas[0]];
  const equal = (a: number, b: number) => a === b;
  const limit = figure(ours?.limit ?? null, theirs?.limit ?? null, equal);
  const remaining = figure(ours?.remaining ?? null, theirs?.remaining ?? null, equal);
  const reset = figure(resetEpochMs(ours), resetEpochMs(theirs), (a, b) => Math.abs(a - b) <= SAME_RESET_MS);
  const verdicts = [limit, remaining, reset].map((f) => f.agrees);
  const agrees = verdicts.includes(false) ? false : verdicts.includes(null) ? null : true;
  return { dialect: other.dialect as OtherDialectName, limit, remaining, reset, agrees };
}

/** The server's clock at the response: `now` where given, else its Date header; undefined where neither is. */
function clockOf(headers: RawHeaderValues, options: DialectsSentOptions): number | undefined {
  if (options.now !== undefined) return options.now;
  const date = Object.entries(headers).find(([name]) => name.toLowerCase() === 'date')?.[1];
  const ms = typeof date === 'string' ? Date.parse(date) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The policies announced: as the IETF draft names them, else as drafts 6 and 7 write them unnamed. */
function announcedPolicies(fields: Readonly<Record<string, string>>): readonly AnnouncedPolicy[] {
  if (fields[POLICY_FIELD] === undefined) return [];
  const policy = { [POLICY_FIELD]: fields[POLICY_FIELD] };
  const named = parseRateLimitFields('ietf', policy).policies;
  return named.length > 0 ? named : parseRateLimitFields('ietf-draft-7', policy).policies;
}

/** Which dialects one response speaks, each one's reading, the policies announced, and whether they agree. */
export function dialectsSent(headers: RawHeaderValues, options: DialectsSentOptions = {}): DialectsSent {
  const fields = receivedFields(headers);
  const now = clockOf(headers, options);
  const sent = RATE_LIMIT_DIALECT_NAMES.filter((d) => CLAIMS[d](fields)).map((d) =>
    parseRateLimitFields(d, fields, now === undefined ? {} : { now }),
  );
  const x = sent.find((r) => r.dialect === 'x-ratelimit');
  const others = sent.filter((r) => r.dialect !== 'x-ratelimit');
  return {
    fields,
    sent,
    policies: announcedPolicies(fields),
    agreement: x === undefined ? [] : others.map((other) => agreementOf(x, other)),
  };
}
