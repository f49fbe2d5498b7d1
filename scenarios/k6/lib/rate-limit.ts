/**
 * A response's rate-limit fields in the dialect the run declares, as the k6 script reads them: the
 * fields as received (by lower-case name), and the figures of the quota the response reports for the
 * live metric (Remaining its value; Limit and Reset as written, its tags).
 *
 * Why not the contract's parser (src/contract/rate-limit-dialects.ts, by `structured-headers`): it
 * bundles, but decodes a Byte Sequence with `atob` and a Display String with `TextDecoder`, globals
 * k6's runtime does not define in the releases tiergate drives (k6 1.3 and later; @types/k6 declares
 * neither), so a policy with a `pk` (express-rate-limit's draft 8 sends one on every answer) would
 * not parse in k6. This reading takes only the Integer members and parameters it needs and skips the
 * others by their syntax (RFC 9651 §4.2). `tiergate k6 ingest` reads the fields recorded with the
 * contract's parser; on a well-formed field both give the same figures (test/k6/rate-limit.test.ts).
 */

/** The tag that carries a dialect's field as received (metrics.ts): `field:ratelimit`. */
export const FIELD_TAG_PREFIX = 'field:';

/** The declared dialect as `tiergate k6 export` inlines it: the field names from the contract's data. */
export interface K6RateLimitDialect {
  /** A dialect name of src/contract/rate-limit-dialects.ts other than x-ratelimit. */
  readonly dialect: 'ietf' | 'ietf-draft-7' | 'ietf-draft-6';
  /** Its fields, lower case, in RATE_LIMIT_DIALECTS order (draft 6: limit, remaining, reset, policy). */
  readonly fields: readonly string[];
  /** The policy whose quota is read, by name (ietf); null: the first reported. */
  readonly policyName: string | null;
}

/** The figures of the quota a response reports; null where a field did not give one. */
export interface K6RateLimitFigures {
  readonly limit: number | null;
  readonly remaining: number | null;
  readonly reset: number | null;
}

/** One member of a List or Dictionary: its key (Dictionary), its Integer or name, its Integer parameters. */
interface Member {
  readonly key: string | null;
  readonly value: number | string | null;
  readonly params: Readonly<Record<string, number | null>>;
}

const INTEGER = /^-?\d{1,15}/;
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/;
const KEY = /^[a-z*][a-z0-9_\-.*]*/;
/** A bare item this reading keeps no value of: Decimal's fraction, Byte Sequence, Boolean, Date, Display String. */
const SKIPPED = /^(?:\.\d+|:[A-Za-z0-9+/=]*:|\?[01]|@-?\d+|%"(?:[^"\\]|\\.)*")/;

/** A small cursor over one field value. */
class Cursor {
  at = 0;
  constructor(readonly text: string) {}
  rest(): string {
    return this.text.slice(this.at);
  }
  take(pattern: RegExp): string | null {
    const match = pattern.exec(this.rest());
    if (match === null) return null;
    this.at += match[0].length;
    return match[0];
  }
  skipSpaces(): void {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\t') this.at += 1;
  }
}

/** A String (§3.3.3), the cursor on its opening quote. */
function readString(c: Cursor): string | null {
  let out = '';
  for (let i = c.at + 1; i < c.text.length; i++) {
    const ch = c.text[i]!;
    if (ch === '"') {
      c.at = i + 1;
      return out;
    }
    if (ch === '\\') i += 1;
    out += c.text[i] ?? '';
  }
  return null;
}

/** A bare item: an Integer as a number, a String or Token as a string, anything else skipped (null); undefined: no item. */
function readBareItem(c: Cursor): number | string | null | undefined {
  if (c.text[c.at] === '"') return readString(c) ?? undefined;
  const integer = c.take(INTEGER);
  if (integer !== null) return c.take(/^\.\d+/) === null ? Number(integer) : null;
  const token = c.take(TOKEN);
  if (token !== null) return token;
  return c.take(SKIPPED) === null ? undefined : null;
}

/** `;key[=value]` parameters; false when they do not parse. */
function readParams(c: Cursor, params: Record<string, number | null>): boolean {
  while (c.text[c.at] === ';') {
    c.at += 1;
    c.skipSpaces();
    const key = c.take(KEY);
    if (key === null) return false;
    if (c.text[c.at] !== '=') {
      params[key] = null;
      continue;
    }
    c.at += 1;
    const value = readBareItem(c);
    if (value === undefined) return false;
    params[key] = typeof value === 'number' ? value : null;
  }
  return true;
}

/** An Inner List (§3.1.1), the cursor on its "(": skipped to its ")", its value not kept; false when it does not close. */
function skipInnerList(c: Cursor): boolean {
  c.at += 1;
  for (;;) {
    c.skipSpaces();
    if (c.text[c.at] === ')') {
      c.at += 1;
      return true;
    }
    if (readBareItem(c) === undefined || !readParams(c, {})) return false;
  }
}

/** A member's value: an inner list is read past and kept as null; undefined: it does not parse. */
function readMemberValue(c: Cursor): number | string | null | undefined {
  if (c.text[c.at] !== '(') return readBareItem(c);
  return skipInnerList(c) ? null : undefined;
}

/** One member at the cursor; null when it does not parse. */
function readMember(c: Cursor, dictionary: boolean): Member | null {
  let key: string | null = null;
  if (dictionary) {
    key = c.take(KEY);
    if (key === null) return null;
    if (c.text[c.at] !== '=') {
      const params: Record<string, number | null> = {};
      return readParams(c, params) ? { key, value: null, params } : null;
    }
    c.at += 1;
  }
  const value = readMemberValue(c);
  if (value === undefined) return null;
  const params: Record<string, number | null> = {};
  return readParams(c, params) ? { key, value, params } : null;
}

/** A List's or Dictionary's members (RFC 9651 §4.2.1, §4.2.2); null when the field does not parse. */
export function structuredMembers(text: string, dictionary: boolean): Member[] | null {
  const c = new Cursor(text.trim());
  const members: Member[] = [];
  while (c.at < c.text.length) {
    const member = readMember(c, dictionary);
    if (member === null) return null;
    members.push(member);
    c.skipSpaces();
    if (c.at === c.text.length) break;
    if (c.text[c.at] !== ',') return null;
    c.at += 1;
    c.skipSpaces();
    if (c.at === c.text.length) return null;
  }
  return members.length > 0 ? members : null;
}

const nonNegative = (n: number | string | null | undefined): number | null =>
  typeof n === 'number' && n >= 0 ? n : null;

/** An Item field's Integer (draft 6's RateLimit-Limit, -Remaining, -Reset). */
function integerItem(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const members = structuredMembers(raw, false);
  return members?.length === 1 ? nonNegative(members[0]!.value) : null;
}

type FigureReader = (raw: Readonly<Record<string, string>>, spec: K6RateLimitDialect) => K6RateLimitFigures;

const NONE: K6RateLimitFigures = { limit: null, remaining: null, reset: null };

const READERS: Readonly<Record<K6RateLimitDialect['dialect'], FigureReader>> = {
  'ietf-draft-6': (raw, { fields }) => ({
    limit: integerItem(raw[fields[0]!]),
    remaining: integerItem(raw[fields[1]!]),
    reset: integerItem(raw[fields[2]!]),
  }),
  'ietf-draft-7': (raw) => {
    const members = structuredMembers(raw.ratelimit ?? '', true);
    if (members === null) return NONE;
    // A key given twice means its last value (RFC 9651 §4.2.2).
    const last = [...members].reverse();
    const member = (key: string) => nonNegative(last.find((m) => m.key === key)?.value);
    return { limit: member('limit'), remaining: member('remaining'), reset: member('reset') };
  },
  ietf: (raw, { policyName }) => {
    const reported = structuredMembers(raw.ratelimit ?? '', false)?.filter((m) => typeof m.value === 'string');
    const quota = policyName === null ? reported?.[0] : reported?.find((m) => m.value === policyName);
    if (quota === undefined) return NONE;
    const announced = structuredMembers(raw['ratelimit-policy'] ?? '', false)?.find((m) => m.value === quota.value);
    return {
      limit: nonNegative(announced?.params.q),
      remaining: nonNegative(quota.params.r),
      reset: nonNegative(quota.params.t),
    };
  },
};

/** The dialect's fields among a response's headers (any case), several lines of one joined by ", " as k6 gives them. */
export function dialectFields(
  headers: { readonly [name: string]: string },
  spec: K6RateLimitDialect,
): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (spec.fields.includes(lower)) raw[lower] = headers[name]!;
  }
  return raw;
}

/** The figures of the quota the fields report, read as the dialect writes them. */
export function dialectFigures(raw: Readonly<Record<string, string>>, spec: K6RateLimitDialect): K6RateLimitFigures {
  return READERS[spec.dialect](raw, spec);
}
