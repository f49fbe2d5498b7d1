/**
 * One record per request: what was sent, when, and exactly what came back.
 * Drivers produce these; checks judge them. Times are monotonic ms since the run's epoch.
 */
import type { BodyShape } from './body-shape.ts';
import type { HttpMethod, TierName } from '../contract/types.ts';
import type { CheckTag, PhaseTag } from './tags.ts';
import type { RateLimitDialectName, RateLimitProblemCode } from '../contract/rate-limit-names.ts';

/** A header as received, and its strict parse as a non-negative integer (null if absent or not one). */
export interface HeaderValue {
  readonly raw: string | null;
  readonly value: number | null;
}

/**
 * The rate-limit fields of a response. Under §8's X-RateLimit-* (the default), Limit, Remaining and
 * Reset are those headers. Under a dialect the config declares (`headers`), they are the dialect's
 * figures for the quota the response reports (measure/rate-limit-reading.ts): Limit its policy's
 * quota, Remaining what is left, Reset as the dialect writes it (seconds until, for the IETF
 * fields), each `raw` the field it was read from; and `dialect` keeps the fields as received.
 */
export interface RateLimitHeaders {
  readonly limit: HeaderValue;
  readonly remaining: HeaderValue;
  readonly reset: HeaderValue;
  readonly retryAfter: HeaderValue;
  /** Absent under §8's X-RateLimit-*. */
  readonly dialect?: DialectFields;
}

/** What a response's fields say in a declared dialect other than §8's. */
export interface DialectFields {
  readonly name: Exclude<RateLimitDialectName, 'x-ratelimit'>;
  /** The dialect's fields received, by lower-case name (absent ones left out). */
  readonly fields: Readonly<Record<string, string>>;
  /** The announced policy of the quota the response reports; null when none is announced for it. */
  readonly policy: AnnouncedPolicyFigures | null;
  /** Every policy announced (RateLimit-Policy), in order. */
  readonly policies: readonly AnnouncedPolicyFigures[];
  /** What did not parse, by the contract's problem codes. */
  readonly problems: readonly RateLimitProblemCode[];
}

/** A policy as RateLimit-Policy announces it: name (null where the dialect names none), q, w, qu. */
export interface AnnouncedPolicyFigures {
  readonly name: string | null;
  readonly quota: number;
  readonly windowS: number | null;
  readonly unit: string;
}

export interface ObservationError {
  /** Stable code: 'TIMEOUT', 'ECONNRESET', 'ECONNREFUSED', 'HEADERS_INVALID', 'BODY_TOO_LARGE', ... */
  readonly code: string;
  readonly message: string;
}

export interface Observation {
  /** Unique within a run, increasing in send order. */
  readonly id: number;
  /** The check that sent it (e.g. 'QUOTA-READ'), or a harness task ('WINDOW-SYNC', 'PROFILE'). */
  readonly check: CheckTag;
  /** Its phase within that check or task, e.g. 'sequential', 'burst', 'hold', 'probe/3', 'after-retry-after'. */
  readonly phase: PhaseTag;
  readonly tier: TierName | null;
  /** Organization label within the run (e.g. 'starter-a'). */
  readonly org: string | null;
  /** Redacted key (prefix + last four), or null when none was sent. */
  readonly key: string | null;
  /** Edge label the request was sent to (e.g. 'edge-0'). */
  readonly edge: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** Open-model drivers: when the request should have been sent (coordinated omission). */
  readonly intendedAt: number | null;
  readonly sentAt: number;
  /** When the response headers arrived; null when no response came. */
  readonly headersAt: number | null;
  /** When the body finished, or the request failed. */
  readonly doneAt: number;
  /** Client wall clock at send, epoch ms (for readers; judge by server headers). */
  readonly sentWall: number;
  readonly status: number | null;
  readonly rateLimit: RateLimitHeaders;
  /** Raw `Date` header. */
  readonly date: string | null;
  /** Raw edge-node header (X-Edge-Node by default). */
  readonly edgeNode: string | null;
  readonly contentType: string | null;
  readonly bodyBytes: number;
  /** First 512 characters of the body, where the body is kept (measure/body-shape.ts), else ''. */
  readonly bodyExcerpt: string;
  /** Parsed JSON body when it was JSON, small and kept, else null. */
  readonly body: unknown;
  /** A data read's body not kept: only its shape (top-level keys and types). Absent where kept. */
  readonly bodyShape?: BodyShape;
  /** An upload: the resumes its body carried (absent on every other request). */
  readonly resumes?: number;
  readonly error: ObservationError | null;
}

/** An absent header: one shared value (a response under load allocates none for what it lacks). */
export const NO_HEADER: HeaderValue = Object.freeze({ raw: null, value: null });

/** A character or byte code of an ASCII digit. */
export const isDigitCode = (code: number) => code >= 0x30 && code <= 0x39;

/** Strict parse: digits only (at most 16), no sign, no decimals, no whitespace tricks beyond trimming. */
export function headerValue(raw: string | readonly string[] | undefined | null): HeaderValue {
  if (raw === undefined || raw === null) return NO_HEADER;
  const text = typeof raw === 'string' ? raw : raw.join(', ');
  // Between two digits there is nothing to trim: the common case skips the copy.
  const trimmed = isDigitCode(text.charCodeAt(0)) && isDigitCode(text.charCodeAt(text.length - 1)) ? text : text.trim();
  return { raw: text, value: isInteger(trimmed) ? Number(trimmed) : null };
}

function isInteger(text: string): boolean {
  if (text.length === 0 || text.length > 16) return false;
  for (let i = 0; i < text.length; i++) if (!isDigitCode(text.charCodeAt(i))) return false;
  return true;
}

/** A 2xx: the request was admitted (and, for a quota endpoint, counted). */
export const isAdmittedStatus = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

export function isAdmitted(o: Observation): boolean {
  return isAdmittedStatus(o.status);
}

/** Whether an answer carries all three X-RateLimit headers (values aside). */
export function carriesRateHeaders(o: Observation): boolean {
  const { limit, remaining, reset } = o.rateLimit;
  return limit.raw !== null && remaining.raw !== null && reset.raw !== null;
}
