/**
 * Garbage in, a verdict out: every verdict function, fed what a broken or hostile target can send
 * (no status, garbage headers and dates, odd bodies, NaN times), returns a Finding without throwing,
 * and never prints NaN or undefined into what a reader sees.
 */
import { describe, expect, it } from 'vitest';
import { authRejected } from '../../src/verdicts/auth-missing-malformed-unknown.ts';
import { concurrencyCapVerdict } from '../../src/verdicts/concurrency-cap.ts';
import { headBootstrapVerdict } from '../../src/verdicts/head-bootstrap.ts';
import { headersPresentVerdict } from '../../src/verdicts/hdr-present.ts';
import { limitHeaderVerdict } from '../../src/verdicts/hdr-limit.ts';
import { orgIsolatedVerdict, orgSharedVerdict } from '../../src/verdicts/org-shared-isolated.ts';
import { quotaExactVerdict } from '../../src/verdicts/quota-read-ingest.ts';
import { rateLimitBodyVerdict } from '../../src/verdicts/err-429-body.ts';
import { remainingDecrementsVerdict } from '../../src/verdicts/hdr-remaining.ts';
import { resetEpochVerdict } from '../../src/verdicts/hdr-reset.ts';
import { retryAfterVerdict } from '../../src/verdicts/retry-after.ts';
import { scopeEnforcedVerdict } from '../../src/verdicts/scope-enforced.ts';
import { scopeListVerdict } from '../../src/verdicts/scope-list.ts';
import type { Finding } from '../../src/catalogue/types.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { summarizeObservations } from '../../src/measure/aggregate.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { narrowOffset } from '../../src/measure/server-clock.ts';
import { obs, windowFrom } from '../helpers/observations.ts';

function oddities(): Observation[] {
  return [
    obs({ status: null, error: 'ECONNREFUSED' }),
    obs({ status: null, error: null }),
    obs({ status: 200, limit: 'abc', remaining: '', reset: '-5', retryAfter: 'NaN', date: 'garbage' }),
    obs({
      status: 429,
      limit: '99999999999999999',
      remaining: '1.5',
      reset: '1e12',
      retryAfter: ' ',
      body: 'just a string',
    }),
    obs({ status: 429, body: 42, date: null, reset: null }),
    obs({ status: 429, body: [], retryAfter: '-3' }),
    obs({
      status: 429,
      body: { status: 'error', code: 'RATE_LIMIT_EXCEEDED', message: 'x', retry_after_seconds: null },
    }),
    obs({ status: 0, date: '' }),
    obs({ status: 999, contentType: null, bodyText: '\u0000\uffff' }),
    obs({ status: 200, sentAt: Number.NaN, headersAt: Number.NaN, doneAt: Number.NaN, sentWall: Number.NaN }),
    obs({ status: 200, method: 'HEAD', bodyBytes: -1, date: 'Mon, 32 Nov 2025 25:61:61 GMT' }),
  ];
}

function readable(f: Finding): void {
  expect(['pass', 'fail', 'inconclusive']).toContain(f.verdict);
  const shown = [f.expected, f.actual, ...f.notes].join(' | ');
  // Quoted header values are the server's own words ('NaN' is a garbage header); anything else is ours.
  expect(shown, shown).not.toMatch(/(?<!')\b(NaN|undefined|Infinity)\b(?!')|\[object Object\]/);
  expect(f.evidence.every((id) => Number.isInteger(id))).toBe(true);
  expect(() => JSON.stringify(f)).not.toThrow();
}

describe('verdicts on garbage', () => {
  const window = windowFrom(0);
  const figure = { value: 5, atLeast: false };

  it('never throw, and say something readable', () => {
    const all = oddities();
    const findings: Finding[] = [
      authRejected(all, 401),
      headersPresentVerdict(all),
      limitHeaderVerdict(all, figure, 'read'),
      quotaExactVerdict(all, { figure, quotaClass: 'read', variant: 'sequential', window }),
      quotaExactVerdict(all, { figure, quotaClass: 'read', variant: 'burst', window }),
      quotaExactVerdict(all, {
        figure: { value: 5, atLeast: true },
        quotaClass: 'read',
        variant: 'sequential',
        window,
      }),
      rateLimitBodyVerdict(all),
      remainingDecrementsVerdict(all, window),
      resetEpochVerdict(all, 60, window),
      scopeEnforcedVerdict(
        all.map((o, i) => ({
          endpointId: `e${i}`,
          method: 'GET',
          path: '/x',
          scope: 'jobs.read',
          denied: o,
          admitted: o,
        })),
        403,
      ),
      concurrencyCapVerdict({ held: all.slice(0, 5), extra: all[5]!, control: all[6]!, roundTrips: all, figure }),
      concurrencyCapVerdict({
        held: [all[9]!, ...Array.from({ length: 4 }, () => obs())],
        extra: obs({ status: 429 }),
        control: all[9]!,
        roundTrips: [all[9]!],
        figure,
      }),
      concurrencyCapVerdict({
        held: Array.from({ length: 5 }, () => obs()),
        extra: all[9]!,
        control: obs(),
        roundTrips: [obs()],
        figure,
      }),
      concurrencyCapVerdict({
        held: Array.from({ length: 5 }, () => obs({ latencyMs: 200 })),
        extra: obs({ status: 0 }),
        control: all[2]!,
        roundTrips: all,
        earlierUploads: all,
        figure,
      }),
      concurrencyCapVerdict({
        held: [],
        extra: all[0]!,
        control: all[1]!,
        roundTrips: [],
        figure: { value: 100, atLeast: true },
      }),
      orgSharedVerdict({ keyA: all, keyB: all[2]!, limit: 5, window }),
      orgIsolatedVerdict({ exhausted: all, other: all[2]!, otherLimit: 5 }),
    ];
    for (const o of all) {
      findings.push(scopeListVerdict(o, recruitingApi));
      findings.push(retryAfterVerdict({ rejected: o, afterWait: o, waitedMs: null, windowSeconds: 60 }));
      findings.push(headBootstrapVerdict(o, all[2]!, 60));
    }
    findings.forEach(readable);
  });

  it('keep the clock estimate and the load summary out of garbage', () => {
    const all = oddities();
    let interval = null;
    for (const o of all) interval = narrowOffset(interval, o);
    expect(interval).toBeNull();
    const summary = summarizeObservations(all, 60);
    expect(summary.phases[0]!.count).toBe(all.length);
  });
});
