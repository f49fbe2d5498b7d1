/**
 * The header checks under a declared dialect (issue 29): the IETF fields and drafts 7 and 6 judged
 * exactly, each of the reference target's dialect faults failing its one check, and without a
 * declaration an IETF-only deployment failing §8's checks as before. Observations are rendered as the
 * target sends them and read as the prober records them (dialect-observations.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CheckId, Finding } from '../../src/catalogue/types.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { Figure } from '../../src/contract/types.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';
import { limitHeaderVerdict } from '../../src/verdicts/hdr-limit.ts';
import { headersPresentVerdict } from '../../src/verdicts/hdr-present.ts';
import { remainingDecrementsVerdict } from '../../src/verdicts/hdr-remaining.ts';
import { resetEpochVerdict } from '../../src/verdicts/hdr-reset.ts';
import { headBootstrapVerdict } from '../../src/verdicts/head-bootstrap.ts';
import { quotaExactVerdict } from '../../src/verdicts/quota-read-ingest.ts';
import { retryAfterVerdict } from '../../src/verdicts/retry-after.ts';
import { declaredDialectOf, type DeclaredDialect } from '../../src/verdicts/support/dialect.ts';
import { T0, obs, resetObservations, sequentialQuota, type ObsInit } from '../helpers/observations.ts';
import { dialectHeaders, inDialect, readAs, type DialectShape } from './dialect-observations.ts';

const W = 3;
const LIMIT = 10;
const FIGURE: Figure = { value: LIMIT, atLeast: false };
const DIALECTS: readonly DeclaredDialect[] = ['ietf', 'ietf-draft-7', 'ietf-draft-6'];

/**
 * Ten reads admitted in a 3 s window, then 429s every 50 ms until 2.75 s into it: the series spans
 * three seconds of Date, and its last refusals come in the window's last second.
 */
function readSeries() {
  return sequentialQuota({ limit: LIMIT, windowS: W, sent: 55, gapMs: 45 });
}

function headPair(): [Observation, Observation] {
  const init: ObsInit = { check: 'HEAD-BOOTSTRAP', phase: 'access', method: 'HEAD', limit: LIMIT, reset: T0 + W };
  return [
    obs({ ...init, remaining: 9, serverMs: T0 * 1000 + 600 }),
    obs({ ...init, remaining: 9, serverMs: T0 * 1000 + 610 }),
  ];
}

/** Every header check and QUOTA-READ on one series in `shape`, as a run declaring the dialect judges them. */
function judgeAll(shape: DialectShape | null): Partial<Record<CheckId, Finding>> {
  const { obs: plain, window } = readSeries();
  const [h1, h2] = headPair();
  const as = (o: Observation) => (shape === null ? o : inDialect(o, shape));
  const series = plain.map(as);
  const rejected = series[LIMIT]!;
  const afterWait = obs({ sentAt: rejected.headersAt! + rejected.rateLimit.retryAfter.value! * 1000 + 5 });
  return {
    'HDR-PRESENT': headersPresentVerdict([...series, as(h1), as(h2)]),
    'HDR-LIMIT': limitHeaderVerdict(series, FIGURE, 'read', W),
    'HDR-REMAINING': remainingDecrementsVerdict(series, window),
    'HDR-RESET': resetEpochVerdict(series, W, window),
    'HEAD-BOOTSTRAP': headBootstrapVerdict(as(h1), as(h2), W),
    'RETRY-AFTER': retryAfterVerdict({ rejected, afterWait, waitedMs: null, windowSeconds: W }),
    'QUOTA-READ': quotaExactVerdict(series, { figure: FIGURE, quotaClass: 'read', variant: 'sequential', window }),
  };
}

const verdicts = (found: Partial<Record<CheckId, Finding>>) =>
  Object.fromEntries(Object.entries(found).map(([id, f]) => [id, f.verdict]));
const failing = (found: Partial<Record<CheckId, Finding>>) =>
  Object.entries(found)
    .filter(([, f]) => f.verdict !== 'pass')
    .map(([id]) => id);

beforeEach(() => resetObservations());

describe('a declared dialect, learned from the observations', () => {
  it('is named by the observations read in it, and absent under §8', () => {
    const o = obs();
    expect(declaredDialectOf([o])).toBeNull();
    expect(declaredDialectOf([null, inDialect(o, { dialect: 'ietf-draft-7', windowS: 60 })])).toBe('ietf-draft-7');
  });

  for (const dialect of DIALECTS) {
    it(`passes every header check and QUOTA-READ on a correct ${dialect} series`, () => {
      const found = judgeAll({ dialect, windowS: W });
      expect(verdicts(found)).toEqual({
        'HDR-PRESENT': 'pass',
        'HDR-LIMIT': 'pass',
        'HDR-REMAINING': 'pass',
        'HDR-RESET': 'pass',
        'HEAD-BOOTSTRAP': 'pass',
        'RETRY-AFTER': 'pass',
        'QUOTA-READ': 'pass',
      });
      expect(found['HDR-RESET']!.data).toMatchObject({ windowSeconds: W, placed: 55, resets: [T0 + W] });
      expect(found['HDR-RESET']!.reasons ?? []).not.toContainEqual(
        expect.objectContaining({ code: 'reset-looks-like-delta' }),
      );
      expect(found['HDR-LIMIT']!.data).toMatchObject({ values: { '10': 55 } });
      expect(found['HEAD-BOOTSTRAP']!.data).toMatchObject({ placedBy: 'reset', remainingBefore: 9 });
      expect(found['RETRY-AFTER']!.data).toMatchObject({ retryAfter: 3, untilReset: 3, reset: T0 + W });
    });
  }

  it('fails exactly HDR-LIMIT when the policy announces q one too high: by q (ietf), as no policy for the limit (drafts)', () => {
    const ietf = judgeAll({ dialect: 'ietf', windowS: W, fault: 'policy-quota-wrong' });
    expect(failing(ietf)).toEqual(['HDR-LIMIT']);
    expect(ietf['HDR-LIMIT']!.reasons).toEqual([
      { code: 'policy-quota-off-figure', policy: 'read', quota: 11, responses: 55, figure: 10, basis: 'published' },
    ]);
    for (const dialect of ['ietf-draft-7', 'ietf-draft-6'] as const) {
      resetObservations();
      const found = judgeAll({ dialect, windowS: W, fault: 'policy-quota-wrong' });
      expect(failing(found)).toEqual(['HDR-LIMIT']);
      expect(found['HDR-LIMIT']!.reasons).toEqual([
        { code: 'policy-not-announced', limit: 10, announced: [11], responses: 55, request: 1 },
      ]);
    }
  });

  it('fails exactly HDR-REMAINING when r never reaches 0', () => {
    for (const dialect of DIALECTS) {
      resetObservations();
      const found = judgeAll({ dialect, windowS: W, fault: 'remaining-never-zero' });
      expect(failing(found)).toEqual(['HDR-REMAINING']);
      expect(found['HDR-REMAINING']!.reasons).toContainEqual({
        code: 'remaining-not-zero-on-429',
        request: 11,
        remaining: 1,
      });
      expect(found['HDR-REMAINING']!.reasons).toContainEqual({
        code: 'remaining-not-decrementing',
        after: 9,
        from: 1,
        to: 1,
        unclear: 0,
      });
    }
  });

  it('fails exactly HDR-RESET when t names a time before the quota returns: a refusal dated after it', () => {
    for (const dialect of DIALECTS) {
      resetObservations();
      const found = judgeAll({ dialect, windowS: W, fault: 'reset-early' });
      expect(failing(found)).toEqual(['HDR-RESET']);
      // t announced the quota back by T0 + 1; request 41 is the first refused after the latest that
      // could mean (a second of rounding and its own round trip later), in the window's last second.
      expect(found['HDR-RESET']!.reasons).toEqual([
        { code: 'reset-quota-not-back', request: 41, reset: T0 + 1, date: T0 + 2 },
      ]);
    }
  });

  it('fails exactly HDR-PRESENT when RateLimit-Policy is missing (drafts: the limit field still judged)', () => {
    for (const dialect of ['ietf-draft-7', 'ietf-draft-6'] as const) {
      resetObservations();
      const found = judgeAll({ dialect, windowS: W, fault: 'policy-missing' });
      expect(failing(found)).toEqual(['HDR-PRESENT']);
      expect(found['HDR-PRESENT']!.reasons).toEqual([
        {
          code: 'dialect-fields-missing',
          dialect,
          fields: ['RateLimit-Policy'],
          missing: 57,
          responses: 57,
          statuses: [200, 429],
          firstRequests: [1, 2, 3, 4, 5],
        },
      ]);
    }
  });

  it('under ietf a missing RateLimit-Policy leaves no Limit at all: HDR-LIMIT fails too; the countdown passes on what was admitted', () => {
    const found = judgeAll({ dialect: 'ietf', windowS: W, fault: 'policy-missing' });
    expect(failing(found)).toEqual(['HDR-PRESENT', 'HDR-LIMIT']);
    expect(found['HDR-LIMIT']!.reasons).toEqual([
      { code: 'header-absent-everywhere', header: 'RateLimit-Policy', responses: 55 },
    ]);
    expect(found['HDR-REMAINING']!.reasons).toEqual([{ code: 'remaining-start-unannounced', request: 1, first: 9 }]);
  });

  it('fails HDR-LIMIT on a policy whose w is not the window', () => {
    const { obs: plain } = readSeries();
    const series = plain.map((o) => inDialect(o, { dialect: 'ietf', windowS: 60 }));
    const f = limitHeaderVerdict(series, FIGURE, 'read', W);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'policy-window-off', policy: 'read', windowS: 60, window: W, responses: 55 }]);
    // A judgement recorded without the window leaves w unjudged.
    expect(limitHeaderVerdict(series, FIGURE, 'read').verdict).toBe('pass');
  });

  it('passes HDR-RESET where a busy server serves some Dates two seconds stale: t is judged by the harness clock', () => {
    const { obs: plain, window } = readSeries();
    const stale = (o: Observation, i: number) =>
      i % 2 === 1 && o.date !== null ? { ...o, date: new Date(Date.parse(o.date) - 2000).toUTCString() } : o;
    const series = plain.map((o) => inDialect(o, { dialect: 'ietf', windowS: W })).map(stale);
    const f = resetEpochVerdict(series, W, window);
    expect([f.verdict, f.reasons ?? []]).toEqual(['pass', []]);
  });

  it('fails HDR-RESET on a t that slides with time: the placed reset moves within a window', () => {
    const { obs: plain, window } = readSeries();
    const series = plain.map((o) =>
      inDialect(o, { dialect: 'ietf', windowS: W, resetMsOf: (_o, now) => now + W * 1000 }),
    );
    const f = resetEpochVerdict(series, W, window);
    expect(f.verdict).toBe('fail');
    // The ends t names slide by a second a second: by request 42 they can no longer be one.
    expect(f.reasons).toEqual([{ code: 'reset-moved-mid-window', request: 42, from: T0 + 3, to: T0 + 5 }]);
  });

  it('fails HDR-RESET on a t beyond the window, naming it in seconds', () => {
    const o = readAs(obs(), 'ietf', { 'ratelimit-policy': '"read";q=10;w=3', ratelimit: '"read";r=9;t=7' });
    const f = resetEpochVerdict([o], W);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'reset-seconds-beyond-window', request: 1, seconds: 7, window: W }]);
  });

  it('names a figure its field does not give: r absent from RateLimit (HDR-REMAINING), an unparsable limit (HDR-LIMIT)', () => {
    const policy = '"read";q=10;w=3';
    const { obs: plain, window } = readSeries();
    const o = readAs(plain[0]!, 'ietf', { 'ratelimit-policy': policy, ratelimit: '"read";t=2' });
    const f = remainingDecrementsVerdict([o], window);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'dialect-figure-unreadable',
      field: 'RateLimit',
      figure: 'r in RateLimit',
      raw: '"read";t=2',
      request: o.id,
    });
    const seven = readAs(obs(), 'ietf-draft-7', {
      'ratelimit-policy': '10;w=3',
      ratelimit: 'limit=ten, remaining=9, reset=2',
    });
    expect(limitHeaderVerdict([seven], FIGURE, 'read', W).reasons).toContainEqual({
      code: 'dialect-figure-unreadable',
      field: 'RateLimit',
      figure: 'limit in RateLimit',
      raw: 'limit=ten, remaining=9, reset=2',
      request: seven.id,
    });
  });

  it('fails HEAD-BOOTSTRAP on a HEAD without the dialect fields, naming them', () => {
    const [h1, h2] = headPair();
    const first = inDialect(h1, { dialect: 'ietf-draft-6', windowS: W });
    const bare = readAs(h2, 'ietf-draft-6', {});
    const f = headBootstrapVerdict(first, bare, W);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'header-absent', header: 'RateLimit-Limit', request: bare.id },
      { code: 'header-absent', header: 'RateLimit-Remaining', request: bare.id },
      { code: 'header-absent', header: 'RateLimit-Reset', request: bare.id },
    ]);
  });
});

describe('RETRY-AFTER under a declared dialect', () => {
  const refusal = (retryAfter: string, ratelimit: string) =>
    readAs(obs({ status: 429, retryAfter, body: { retry_after_seconds: Number(retryAfter) || 0 } }), 'ietf', {
      'ratelimit-policy': '"read";q=10;w=3',
      ratelimit,
      'retry-after': retryAfter,
    });

  it('fails a Retry-After earlier than t', () => {
    const r = refusal('1', '"read";r=0;t=3');
    const f = retryAfterVerdict({ rejected: r, afterWait: obs({ sentAt: r.headersAt! + 1500 }), waitedMs: null });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'retry-after-before-reset-seconds', retryAfter: 1, seconds: 3 }]);
  });

  it('leaves the comparison unmade where the 429 gives no t, and passes on the rest', () => {
    const r = refusal('2', '"read";r=0');
    const f = retryAfterVerdict({ rejected: r, afterWait: obs({ sentAt: r.headersAt! + 2500 }), waitedMs: null });
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'reset-seconds-unchecked', field: 'RateLimit', raw: '"read";r=0' }]);
  });

  it('keeps failing a Retry-After given as an HTTP date by name', () => {
    const r = refusal('Mon, 24 Nov 2025 16:00:03 GMT', '"read";r=0;t=3');
    const f = retryAfterVerdict({ rejected: r, afterWait: null, waitedMs: null });
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'retry-after-http-date', raw: 'Mon, 24 Nov 2025 16:00:03 GMT' });
  });
});

describe('no dialect declared, against a deployment that sends only the IETF fields', () => {
  it("fails §8's header checks as before: X-RateLimit-* absent; QUOTA-READ still decided", () => {
    const { obs: plain, window } = readSeries();
    const series = plain.map((o) => ({
      ...o,
      rateLimit: rateLimitHeadersOf(dialectHeaders(o, { dialect: 'ietf', windowS: W }), recruitingApi.headers),
    }));
    expect(declaredDialectOf(series)).toBeNull();
    expect(headersPresentVerdict(series).reasons).toEqual([
      {
        code: 'rate-limit-headers-missing',
        missing: 55,
        responses: 55,
        statuses: [200, 429],
        firstRequests: [1, 2, 3, 4, 5],
      },
    ]);
    expect(limitHeaderVerdict(series, FIGURE, 'read', W).reasons).toEqual([
      { code: 'header-absent-everywhere', header: 'X-RateLimit-Limit', responses: 55 },
    ]);
    expect(remainingDecrementsVerdict(series, window).reasons).toEqual([
      { code: 'header-absent-everywhere', header: 'X-RateLimit-Remaining', responses: 55 },
    ]);
    expect(resetEpochVerdict(series, W, window).reasons).toEqual([
      { code: 'header-absent-everywhere', header: 'X-RateLimit-Reset', responses: 55 },
    ]);
    const quota = quotaExactVerdict(series, { figure: FIGURE, quotaClass: 'read', variant: 'sequential', window });
    expect(quota.verdict).toBe('pass');
  });
});
