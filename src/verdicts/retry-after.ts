/**
 * RETRY-AFTER (§7): on a 429, Retry-After is an integer number of seconds, equals the body's
 * retry_after_seconds, agrees with X-RateLimit-Reset (by the response's own Date), and is
 * truthful: one request sent after waiting it out is admitted. Every sub-failure is reported.
 *
 * Agreement allows one second either way: Date is floored to the second and may be served from
 * a cache up to a second stale, and a server may round the wait up.
 *
 * Under a dialect the config declares that writes the reset as seconds until the quota returns (t),
 * Retry-After wins over t (the IETF drafts say so) and must not be earlier than it: a client that
 * waits Retry-After out must find the quota back (a second of rounding allowed).
 */
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  finding,
  isAdmitted,
  outcomeOf,
  worst,
  type JudgedVerdict,
  judgedFinding,
} from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { readReset, serverDateSeconds } from './support/window-integrity.ts';
import { fieldTitle, figureField, resetInSecondsUntil, type DeclaredDialect } from './support/dialect.ts';

export interface RetryAfterInput {
  /** A 429 response. */
  readonly rejected: Observation;
  /** One request sent after waiting Retry-After seconds from the rejected response's receipt. */
  readonly afterWait: Observation | null;
  /** How long the harness waited, ms; when null, afterWait.sentAt − rejected.headersAt. */
  readonly waitedMs: number | null;
  /** Window length, for judging whether Reset is a plausible epoch; a day when absent. */
  readonly windowSeconds?: number;
}

const DAY_S = 86_400;

/** `data` of RETRY-AFTER: the header, the body's value, Reset, Date and their difference, the wait and what followed it. */
export type RetryAfterData = {
  /** The status of the request meant to be refused (null: no response). */
  readonly rejectedStatus: number | null;
  readonly retryAfter: number | null;
  readonly bodyRetryAfter: number | null;
  readonly reset: number | null;
  readonly date: number | null;
  readonly untilReset: number | null;
  readonly waitedMs: number | null;
  readonly afterWaitStatus: number | null;
};

/** What the checks gather: sub-failures, what kept a check from being made, what was left unchecked, and notes. */
interface RetryAfterFindings {
  readonly failures: Reason[];
  readonly unclear: Reason[];
  readonly unchecked: Reason[];
  readonly notes: string[];
}

/** Retry-After must be an integer number of seconds; an HTTP-date is named as such. */
function checkSeconds(f: RetryAfterFindings, rejected: Observation): void {
  const header = rejected.rateLimit.retryAfter;
  if (header.value !== null) return;
  const raw = header.raw?.trim() ?? '';
  if (header.raw === null) f.failures.push(because('header-absent', { header: 'Retry-After', request: rejected.id }));
  else if (!/^[-\d.\s]*$/.test(raw) && Number.isFinite(Date.parse(raw)))
    f.failures.push(because('retry-after-http-date', { raw }));
  else f.failures.push(because('header-not-integer', { header: 'Retry-After', raw: header.raw, request: rejected.id }));
}

/** The body's retry_after_seconds must be an integer equal to Retry-After; returns it. */
function checkBody(f: RetryAfterFindings, ra: number | null, rejected: Observation): number | null {
  const bodyValue = bodyRetryAfter(rejected.body);
  if (bodyValue === null) f.failures.push(because('retry-after-body-missing', { request: rejected.id }));
  else if (ra !== null && bodyValue !== ra)
    f.failures.push(because('retry-after-body-mismatch', { retryAfter: ra, body: bodyValue }));
  return bodyValue;
}

/** What the 429 said of when the quota returns: Date, Reset (epoch seconds) and their difference. */
interface ResetAgreement {
  readonly date: number | null;
  readonly reset: number | null;
  readonly untilReset: number | null;
}

/** Retry-After must not be earlier than t, the seconds until the quota returns (a second of rounding allowed). */
function checkResetSeconds(
  f: RetryAfterFindings,
  rejected: Observation,
  ra: number | null,
  dialect: DeclaredDialect,
): ResetAgreement {
  const date = serverDateSeconds(rejected);
  const { raw, value: t } = rejected.rateLimit.reset;
  if (ra !== null && t === null)
    f.unchecked.push(because('reset-seconds-unchecked', { field: fieldTitle(figureField(dialect, 'Reset')), raw }));
  else if (ra !== null && t !== null && ra + 1 < t)
    f.failures.push(because('retry-after-before-reset-seconds', { retryAfter: ra, seconds: t }));
  return { date, reset: date === null || t === null ? null : date + t, untilReset: t };
}

/** Retry-After must be within a second of Reset − Date; returns Date, the Reset reading and their difference. */
function checkReset(
  f: RetryAfterFindings,
  rejected: Observation,
  ra: number | null,
  windowSeconds: number | undefined,
): ResetAgreement {
  const dialect = rejected.rateLimit.dialect?.name;
  if (dialect !== undefined && resetInSecondsUntil(dialect)) return checkResetSeconds(f, rejected, ra, dialect);
  const date = serverDateSeconds(rejected);
  if (windowSeconds === undefined)
    f.notes.push('window length not given: Reset taken as plausible up to a day after Date');
  const plausibleS = windowSeconds ?? DAY_S;
  const reading = readReset(rejected, plausibleS);
  let untilReset: number | null = null;
  if (ra !== null) {
    // A Reset that cannot be placed is HDR-RESET's finding: here the comparison is left unmade.
    if (date === null || reading.reset === null) {
      const reset = rejected.rateLimit.reset.raw;
      f.unchecked.push(because('reset-agreement-unchecked', { reset, date, windowSeconds: plausibleS }));
    } else {
      untilReset = reading.reset - date;
      if (ra < untilReset - 1 || ra > untilReset + 1) {
        f.failures.push(because('retry-after-disagrees-with-reset', { retryAfter: ra, untilReset }));
      }
    }
  }
  return { date, reset: reading.reset, untilReset };
}

/** The request sent after waiting Retry-After out must be admitted; returns how long the harness waited, ms. */
function checkTruthful(f: RetryAfterFindings, input: RetryAfterInput, ra: number | null): number | null {
  const { rejected, afterWait } = input;
  let waited: number | null = null;
  if (ra === null) f.unclear.push(because('retry-after-untestable', { raw: rejected.rateLimit.retryAfter.raw }));
  else if (afterWait === null) f.unclear.push(because('no-request-after-wait', {}));
  else {
    waited = input.waitedMs ?? afterWait.sentAt - (rejected.headersAt ?? rejected.doneAt);
    // NaN compares false with everything: without this it would pass for a full wait.
    if (!Number.isFinite(waited)) {
      f.unclear.push(because('wait-unknown', {}));
      waited = null;
    } else if (waited < ra * 1000) f.unclear.push(because('waited-too-little', { waitedMs: waited, retryAfter: ra }));
    else if (isAdmitted(afterWait)) {
      // truthful
    } else if (afterWait.status === TOO_MANY_REQUESTS) {
      const again = afterWait.rateLimit.retryAfter.value;
      f.failures.push(because('refused-after-wait', { retryAfter: ra, again }));
    } else f.unclear.push(because('unexpected-after-wait', { outcome: outcomeOf(afterWait) }));
  }
  return waited;
}

export function retryAfterVerdict(input: RetryAfterInput): Finding<RetryAfterData> {
  const { rejected, afterWait } = input;
  const expected = resetInSecondsUntil(rejected.rateLimit.dialect?.name ?? null)
    ? 'Retry-After an integer equal to retry_after_seconds, not earlier than t (the seconds until the quota returns), and a request after waiting it out admitted'
    : 'Retry-After an integer equal to retry_after_seconds, within a second of Reset − Date, and a request after waiting it out admitted';
  const evidence = [rejected.id, afterWait?.id];
  if (rejected.status !== TOO_MANY_REQUESTS) {
    return finding('inconclusive', {
      expected,
      actual: `the request meant to be rejected got ${outcomeOf(rejected)}`,
      evidence,
      reasons: [because('never-refused', { sent: 1 })],
      data: {
        rejectedStatus: rejected.status,
        retryAfter: null,
        bodyRetryAfter: null,
        reset: null,
        date: null,
        untilReset: null,
        waitedMs: null,
        afterWaitStatus: null,
      },
    });
  }

  const f: RetryAfterFindings = { failures: [], unclear: [], unchecked: [], notes: [] };
  const { failures, unclear, unchecked, notes } = f;
  const ra = rejected.rateLimit.retryAfter.value;

  // 1. An integer number of seconds.
  checkSeconds(f, rejected);

  // 2. Equal to the body's retry_after_seconds.
  const bodyValue = checkBody(f, ra, rejected);

  // 3. Agrees with Reset, by the server's clock.
  const { date, reset, untilReset } = checkReset(f, rejected, ra, input.windowSeconds);

  // 4. Truthful: waiting it out succeeds.
  const waited = checkTruthful(f, input, ra);

  const data: RetryAfterData = {
    rejectedStatus: rejected.status,
    retryAfter: ra,
    bodyRetryAfter: bodyValue,
    reset,
    date,
    untilReset,
    waitedMs: waited,
    afterWaitStatus: afterWait?.status ?? null,
  };
  const verdict: JudgedVerdict = worst([
    failures.length > 0 ? 'fail' : 'pass',
    unclear.length > 0 ? 'inconclusive' : 'pass',
  ]);
  if (verdict === 'pass') {
    return finding('pass', {
      expected,
      actual: `Retry-After ${ra} = body ${bodyValue}${untilReset !== null ? `, Reset − Date ${untilReset} s` : ''}; admitted after waiting ${Math.round((waited ?? 0) / 1000)} s (${afterWait?.status})`,
      evidence,
      notes,
      reasons: unchecked,
      data,
    });
  }
  const reasons = [...failures, ...unclear];
  return judgedFinding(verdict, {
    expected,
    actual: reasons.map(reasonText).join('; '),
    evidence,
    notes,
    reasons: [...reasons, ...unchecked],
    data,
  });
}

function bodyRetryAfter(body: unknown): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as Record<string, unknown>)['retry_after_seconds'];
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
