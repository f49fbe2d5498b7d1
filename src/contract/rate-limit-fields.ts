/**
 * The field-level readers of the rate-limit dialects (rate-limit-dialects.ts): a plain integer, a
 * Structured Field (RFC 9651, by `structured-headers`) of policy items, a Dictionary, and when the
 * quota returns. Every reader answers a value or problems, never a throw: a reading keeps what did
 * parse beside what did not and why.
 */
import {
  parseDictionary,
  parseItem,
  parseList,
  Token,
  type BareItem,
  type Item,
  type Parameters,
} from 'structured-headers';

export {
  DRAFT_6_FIELDS,
  POLICY_FIELD,
  RATELIMIT_FIELD,
  RESET_FORMS,
  X_RATELIMIT_FIELDS,
  type ResetForm,
} from './rate-limit-names.ts';
import type { ResetForm } from './rate-limit-names.ts';

export { RATE_LIMIT_PROBLEM_CODES, type RateLimitProblemCode } from './rate-limit-names.ts';
import type { RateLimitProblemCode } from './rate-limit-names.ts';

/** What failed to parse, and where: the field, the list member (0-based) and the parameter or key. */
export interface RateLimitProblem {
  readonly code: RateLimitProblemCode;
  readonly field: string;
  readonly member: number | null;
  readonly key: string | null;
  readonly detail: string;
}

export function problem(
  code: RateLimitProblemCode,
  field: string,
  detail: string,
  at: { readonly member?: number; readonly key?: string } = {},
): RateLimitProblem {
  return { code, field, member: at.member ?? null, key: at.key ?? null, detail };
}

/** A reader's answer: the value, or null beside the problems that kept it. */
export interface Read<T> {
  readonly value: T | null;
  readonly problems: readonly RateLimitProblem[];
}

const ok = <T>(value: T): Read<T> => ({ value, problems: [] });
const failed = <T>(...problems: RateLimitProblem[]): Read<T> => ({ value: null, problems });

/** Digits only, as §8's X-RateLimit-* write them: no sign, no fraction, one value. */
export function readPlainInteger(field: string, raw: string): Read<number> {
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value)) return ok(value);
  return failed(problem('field-invalid', field, `expected a non-negative integer, got "${raw}"`));
}

/** Whatever a Structured Field parser throws, as a problem of the field. */
function unparsable(field: string, raw: string, error: unknown): RateLimitProblem {
  const why = error instanceof Error ? error.message : String(error);
  return problem('field-invalid', field, `not a Structured Field (${why}): "${raw}"`);
}

function isNonNegativeInteger(value: BareItem | undefined): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A Structured Field Item that is a non-negative Integer (draft 6's RateLimit-Limit, -Remaining, -Reset). */
export function readIntegerItem(field: string, raw: string): Read<number> {
  let item: Item;
  try {
    item = parseItem(raw);
  } catch (error) {
    return failed(unparsable(field, raw, error));
  }
  if (isNonNegativeInteger(item[0])) return ok(item[0]);
  return failed(problem('field-invalid', field, `expected a non-negative Integer, got "${raw}"`));
}

/** A Structured Field List whose members are Items; an inner list is a problem of its member. */
export function readItemList(field: string, raw: string): Read<readonly (Item | null)[]> {
  let list: ReturnType<typeof parseList>;
  try {
    list = parseList(raw);
  } catch (error) {
    return failed(unparsable(field, raw, error));
  }
  if (list.length === 0) return failed(problem('field-invalid', field, 'an empty list: no policy item'));
  const problems: RateLimitProblem[] = [];
  const items = list.map((member, index) => {
    if (!Array.isArray(member[0])) return member as Item;
    problems.push(problem('member-invalid', field, 'an inner list, not a policy item', { member: index }));
    return null;
  });
  return { value: items, problems };
}

/** A Structured Field Dictionary whose named members are non-negative Integers (draft 7's RateLimit). */
export function readIntegerDictionary(
  field: string,
  raw: string,
  keys: readonly string[],
): Read<Readonly<Record<string, number | null>>> {
  let dictionary: ReturnType<typeof parseDictionary>;
  try {
    dictionary = parseDictionary(raw);
  } catch (error) {
    return failed(unparsable(field, raw, error));
  }
  const problems: RateLimitProblem[] = [];
  const entries = keys.map((key) => {
    const member = dictionary.get(key);
    if (member === undefined) problems.push(problem('parameter-missing', field, `no "${key}" member`, { key }));
    else if (!isNonNegativeInteger(member[0] as BareItem))
      problems.push(problem('parameter-invalid', field, `"${key}" is not a non-negative Integer`, { key }));
    else return [key, member[0] as number] as const;
    return [key, null] as const;
  });
  return { value: Object.fromEntries(entries), problems };
}

/** A policy item's name: a String or a Token. */
export function nameOf(item: Item): string | null {
  const [value] = item;
  if (typeof value === 'string') return value;
  return value instanceof Token ? value.toString() : null;
}

/** A parameter that must be a non-negative Integer (q, r, t; w above 0); absent: null, no problem. */
export function integerParameter(
  field: string,
  member: number,
  params: Parameters,
  key: string,
  problems: RateLimitProblem[],
  min = 0,
): number | null {
  const value = params.get(key);
  if (value === undefined) return null;
  if (isNonNegativeInteger(value) && value >= min) return value;
  problems.push(problem('parameter-invalid', field, `${key} is not an Integer of at least ${min}`, { member, key }));
  return null;
}

/** `qu`, a String or Token; absent: "requests", the drafts' default. */
export function unitParameter(field: string, member: number, params: Parameters, problems: RateLimitProblem[]): string {
  const value = params.get('qu');
  if (value === undefined) return 'requests';
  if (typeof value === 'string' || value instanceof Token) return value.toString();
  problems.push(problem('parameter-invalid', field, 'qu is neither a String nor a Token', { member, key: 'qu' }));
  return 'requests';
}

/** `pk`, a Byte Sequence, kept in base64 as the field writes it between its colons; absent: null. */
export function partitionKeyParameter(
  field: string,
  member: number,
  params: Parameters,
  problems: RateLimitProblem[],
): string | null {
  const value = params.get('pk');
  if (value === undefined) return null;
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64');
  problems.push(problem('parameter-invalid', field, 'pk is not a Byte Sequence', { member, key: 'pk' }));
  return null;
}

/** When the quota returns, as written and, where `now` (epoch ms) is known, in the other form too. */
export interface ResetReading {
  readonly form: ResetForm;
  /** The number as the field writes it. */
  readonly value: number;
  /** Seconds from `now` until the quota returns (fractional from an epoch); null without `now`. */
  readonly secondsUntil: number | null;
  /** When the quota returns, epoch ms; null for seconds-until without `now`. */
  readonly epochMs: number | null;
}

export function resetReading(form: ResetForm, value: number, now: number | undefined): ResetReading {
  if (form === 'seconds-until')
    return { form, value, secondsUntil: value, epochMs: now === undefined ? null : now + value * 1000 };
  const epochMs = form === 'epoch-seconds' ? value * 1000 : value;
  return { form, value, secondsUntil: now === undefined ? null : (epochMs - now) / 1000, epochMs };
}

/** A reset written in `form` for a quota that returns at `resetMs` (epoch ms), read at `now`. */
export function writtenReset(form: ResetForm, resetMs: number, now: number): number {
  if (form === 'epoch-millis') return resetMs;
  if (form === 'epoch-seconds') return Math.ceil(resetMs / 1000);
  return Math.max(0, Math.ceil((resetMs - now) / 1000));
}

/** A policy as announced: RateLimit-Policy's item, or draft 6 and 7's unnamed `60;w=60`. */
export interface AnnouncedPolicy {
  /** A String or Token; null where the dialect names none (drafts 6 and 7). */
  readonly name: string | null;
  /** q (ietf), the item's Integer (drafts 6, 7). */
  readonly quota: number;
  /** w, in seconds; null where not given. */
  readonly windowS: number | null;
  /** qu: "requests" (the default), "content-bytes", "concurrent-requests", … */
  readonly unit: string;
  /** pk, the Byte Sequence in base64 as written between its colons; null where not given. */
  readonly partitionKey: string | null;
}

/** The state of one quota as a response reports it. */
export interface QuotaReading {
  /** The policy it names (ietf); null where the dialect names none. */
  readonly policy: string | null;
  /**
   * Index in `policies` of the announced policy it reports: by name (ietf), else the first whose
   * quota is its limit; null when none is (Cloudflare names "default" in RateLimit and announces
   * only "burst": then a problem says so, and no policy is guessed).
   */
  readonly announced: number | null;
  /** The limit field (x-ratelimit, drafts 6 and 7), else the announced policy's quota (ietf); null: unknown. */
  readonly limit: number | null;
  readonly remaining: number | null;
  readonly reset: ResetReading | null;
  /** pk of the RateLimit item (ietf), base64; null where not given. */
  readonly partitionKey: string | null;
}

/** A response's header values by name, as Node and undici give them (any case; a repeated field as a list). */
export type RawHeaderValues = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface ParseRateLimitOptions {
  /** The server's clock at the response, epoch ms: converts the reset into its other form. */
  readonly now?: number;
  /** How this deployment writes the reset, where it departs from its dialect (X-RateLimit-Reset in epoch ms). */
  readonly resetForm?: ResetForm;
}
