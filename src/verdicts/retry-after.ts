/**
 * RETRY-AFTER (§7): on a 429, Retry-After is an integer number of seconds, equals the body's
 * retry_after_seconds, agrees with X-RateLimit-Reset (by the response's own Date), and is
 * truthful: one request sent after waiting it out is admitted. Every sub-failure is reported.
 *
 * Agreement allows one second either way: Date is floored to the second and may be served from
 * a cache up to a second stale, and a server may round the wait up.
 */
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  finding,
  headerProblem,
  isAdmitted,
  outcomeOf,
  worst,
  type JudgedVerdict,
} from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { readReset, serverDateSeconds } from './support/window-integrity.ts';

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
  readonly retryAfter: number | null;
  readonly bodyRetryAfter: number | null;
  readonly reset: number | null;
  readonly date: number | null;
  readonly untilReset: number | null;
  readonly waitedMs: number | null;
  readonly afterWaitStatus: number | null;
};

export function retryAfterVerdict(input: RetryAfterInput): Finding<RetryAfterData> {
  const { rejected, afterWait } = input;
  const expected =
    'Retry-After an integer equal to retry_after_seconds, within a second of Reset − Date, and a request after waiting it out admitted';
  const evidence = [rejected.id, afterWait?.id];
  if (rejected.status !== TOO_MANY_REQUESTS) {
    return finding('inconclusive', {
      expected,
      actual: `the request meant to be rejected got ${outcomeOf(rejected)}`,
      evidence,
      notes: ['no 429 to judge'],
    });
  }

  const failures: string[] = [];
  const unclear: string[] = [];
  const notes: string[] = [];
  const header = rejected.rateLimit.retryAfter;
  const ra = header.value;

  // 1. An integer number of seconds.
  if (ra === null) {
    const raw = header.raw?.trim() ?? '';
    if (header.raw !== null && !/^[-\d.\s]*$/.test(raw) && Number.isFinite(Date.parse(raw))) {
      failures.push(`Retry-After '${raw}' is an HTTP-date, not seconds`);
      notes.push('HTTP allows an HTTP-date in Retry-After, but §7 specifies a number of seconds');
    } else {
      failures.push(header.raw === null ? 'no Retry-After header' : (headerProblem('Retry-After', header) ?? ''));
    }
  }

  // 2. Equal to the body's retry_after_seconds.
  const bodyValue = bodyRetryAfter(rejected.body);
  if (bodyValue === null) failures.push('body has no integer retry_after_seconds');
  else if (ra !== null && bodyValue !== ra)
    failures.push(`Retry-After ${ra} but body retry_after_seconds ${bodyValue}`);

  // 3. Agrees with Reset, by the server's clock.
  const date = serverDateSeconds(rejected);
  if (input.windowSeconds === undefined)
    notes.push('window length not given: Reset taken as plausible up to a day after Date');
  const reading = readReset(rejected, input.windowSeconds ?? DAY_S);
  let untilReset: number | null = null;
  if (ra !== null) {
    if (date === null) notes.push('no Date header: agreement with Reset not checked');
    else if (reading.reset === null) notes.push(`agreement with Reset not checked: ${reading.note}`);
    else {
      untilReset = reading.reset - date;
      if (ra < untilReset - 1 || ra > untilReset + 1) {
        failures.push(`Retry-After ${ra} but Reset is ${untilReset} s after Date`);
      }
    }
  }

  // 4. Truthful: waiting it out succeeds.
  let waited: number | null = null;
  if (ra === null) unclear.push('no integer Retry-After to wait out');
  else if (afterWait === null) unclear.push('no request was sent after waiting');
  else {
    waited = input.waitedMs ?? afterWait.sentAt - (rejected.headersAt ?? rejected.doneAt);
    // NaN compares false with everything: without this it would pass for a full wait.
    if (!Number.isFinite(waited)) {
      unclear.push('how long the harness waited is unknown');
      waited = null;
    } else if (waited < ra * 1000) unclear.push(`waited only ${Math.round(waited)} ms of the ${ra} s told`);
    else if (isAdmitted(afterWait)) {
      // truthful
    } else if (afterWait.status === TOO_MANY_REQUESTS) {
      const again = afterWait.rateLimit.retryAfter;
      const told = again.value !== null ? ` with Retry-After ${again.value}` : '';
      failures.push(`waited ${ra} s as told; still 429${told}`);
    } else unclear.push(`after waiting, got ${outcomeOf(afterWait)}: neither admitted nor 429`);
  }

  const data: RetryAfterData = {
    retryAfter: ra,
    bodyRetryAfter: bodyValue,
    reset: reading.reset,
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
      data,
    });
  }
  return finding(verdict, {
    expected,
    actual: [...failures, ...unclear].join('; '),
    evidence,
    notes: [...notes, ...unclear],
    data,
  });
}

function bodyRetryAfter(body: unknown): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as Record<string, unknown>)['retry_after_seconds'];
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
