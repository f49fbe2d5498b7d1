/**
 * What express-rate-limit 8 (8.7.5, the test bed's: test/limiters/express-rate-limit.mjs) sends with
 * `standardHeaders: 'draft-7'` and `'draft-8'` and legacy headers off, captured from the running
 * test-bed server (starter org, 3 s windows): the contract's parsers read every field as the library
 * means it. Draft 8 writes `"name"; r=59; t=3` with a space after each `;` (RFC 9651 allows it), names
 * its policy `<limit>-in-<window>` (the library's default identifier), and gives each a `pk`, the
 * first 12 hex digits of the SHA-256 of the limiter's key, base64-encoded.
 */
import { describe, expect, it } from 'vitest';
import { parseRateLimitFields } from '../../src/contract/rate-limit-dialects.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';

const NOW = Date.parse('Sat, 28 Nov 2026 06:01:19 GMT');
const names = recruitingApi.headers;

/** One answer per row: the read window's first, its 429, and the first upload (the ingest limiter). */
const DRAFT_7 = {
  firstRead: { ratelimit: 'limit=60, remaining=59, reset=3', 'ratelimit-policy': '60;w=3' },
  rejected: { ratelimit: 'limit=60, remaining=0, reset=3', 'ratelimit-policy': '60;w=3', 'retry-after': '3' },
  firstUpload: { ratelimit: 'limit=10, remaining=9, reset=3', 'ratelimit-policy': '10;w=3' },
} as const;
const DRAFT_8 = {
  firstRead: {
    ratelimit: '"60-in-3sec"; r=59; t=3',
    'ratelimit-policy': '"60-in-3sec"; q=60; w=3; pk=:OGYxZmMyN2VlZmNj:',
  },
  rejected: {
    ratelimit: '"60-in-3sec"; r=0; t=3',
    'ratelimit-policy': '"60-in-3sec"; q=60; w=3; pk=:OGYxZmMyN2VlZmNj:',
    'retry-after': '3',
  },
  firstUpload: {
    ratelimit: '"10-in-3sec"; r=9; t=3',
    'ratelimit-policy': '"10-in-3sec"; q=10; w=3; pk=:OGJjMTAzNjgwYmYy:',
  },
} as const;

describe("express-rate-limit's draft-7 headers, read as ietf-draft-7", () => {
  it('reads the Dictionary and the unnamed policy: limit, remaining, reset in seconds until, the window', () => {
    const r = parseRateLimitFields('ietf-draft-7', DRAFT_7.firstRead, { now: NOW });
    expect(r.problems).toEqual([]);
    expect(r.policies).toEqual([{ name: null, quota: 60, windowS: 3, unit: 'requests', partitionKey: null }]);
    expect(r.quotas).toEqual([
      {
        policy: null,
        announced: 0,
        limit: 60,
        remaining: 59,
        reset: { form: 'seconds-until', value: 3, secondsUntil: 3, epochMs: NOW + 3000 },
        partitionKey: null,
      },
    ]);
  });

  it("gives an observation the library's figures, Retry-After beside them on the 429", () => {
    const rejected = rateLimitHeadersOf(DRAFT_7.rejected, names, { dialect: 'ietf-draft-7', policies: {} });
    expect(rejected).toEqual({
      limit: { raw: DRAFT_7.rejected.ratelimit, value: 60 },
      remaining: { raw: DRAFT_7.rejected.ratelimit, value: 0 },
      reset: { raw: DRAFT_7.rejected.ratelimit, value: 3 },
      retryAfter: { raw: '3', value: 3 },
      dialect: {
        name: 'ietf-draft-7',
        fields: { 'ratelimit-policy': '60;w=3', ratelimit: DRAFT_7.rejected.ratelimit },
        policy: { name: null, quota: 60, windowS: 3, unit: 'requests' },
        policies: [{ name: null, quota: 60, windowS: 3, unit: 'requests' }],
        problems: [],
      },
    });
    const upload = rateLimitHeadersOf(DRAFT_7.firstUpload, names, { dialect: 'ietf-draft-7', policies: {} });
    expect([upload.limit.value, upload.remaining.value, upload.reset.value]).toEqual([10, 9, 3]);
    expect(upload.dialect?.policy).toEqual({ name: null, quota: 10, windowS: 3, unit: 'requests' });
  });

  it('is no ietf field: read as ietf, the Dictionary is no List of policy items', () => {
    const r = parseRateLimitFields('ietf', DRAFT_7.firstRead);
    expect(r.quotas.every((q) => q.remaining === null)).toBe(true);
    expect(r.problems.length).toBeGreaterThan(0);
  });
});

describe("express-rate-limit's draft-8 headers, read as ietf", () => {
  it('reads the named policy with its pk, spaces after the semicolons and all', () => {
    const r = parseRateLimitFields('ietf', DRAFT_8.firstRead, { now: NOW });
    expect(r.problems).toEqual([]);
    expect(r.policies).toEqual([
      { name: '60-in-3sec', quota: 60, windowS: 3, unit: 'requests', partitionKey: 'OGYxZmMyN2VlZmNj' },
    ]);
    expect(r.quotas).toEqual([
      {
        policy: '60-in-3sec',
        announced: 0,
        limit: 60,
        remaining: 59,
        reset: { form: 'seconds-until', value: 3, secondsUntil: 3, epochMs: NOW + 3000 },
        partitionKey: null,
      },
    ]);
    // The pk is the library's: 12 hex digits of a SHA-256, base64-encoded.
    expect(Buffer.from(r.policies[0]!.partitionKey!, 'base64').toString('latin1')).toMatch(/^[0-9a-f]{12}$/);
  });

  it("gives an observation the library's figures: q as Limit, r as Remaining, t as Reset", () => {
    const reader = { dialect: 'ietf', policies: {} } as const;
    const rejected = rateLimitHeadersOf(DRAFT_8.rejected, names, reader);
    expect(rejected).toEqual({
      limit: { raw: DRAFT_8.rejected['ratelimit-policy'], value: 60 },
      remaining: { raw: DRAFT_8.rejected.ratelimit, value: 0 },
      reset: { raw: DRAFT_8.rejected.ratelimit, value: 3 },
      retryAfter: { raw: '3', value: 3 },
      dialect: {
        name: 'ietf',
        fields: { 'ratelimit-policy': DRAFT_8.rejected['ratelimit-policy'], ratelimit: DRAFT_8.rejected.ratelimit },
        policy: { name: '60-in-3sec', quota: 60, windowS: 3, unit: 'requests' },
        policies: [{ name: '60-in-3sec', quota: 60, windowS: 3, unit: 'requests' }],
        problems: [],
      },
    });
    const upload = rateLimitHeadersOf(DRAFT_8.firstUpload, names, reader);
    expect([upload.limit.value, upload.remaining.value, upload.reset.value]).toEqual([10, 9, 3]);
    expect(upload.dialect?.policy?.name).toBe('10-in-3sec');
  });

  it("reads the read and the ingest limiter by their own names: a declaration names the library's", () => {
    const read = rateLimitHeadersOf(DRAFT_8.firstRead, names, { dialect: 'ietf', policies: { read: '60-in-3sec' } });
    expect(read.remaining.value).toBe(59);
    // Each answer reports the one limiter its route went through: the other name finds no quota.
    const other = rateLimitHeadersOf(DRAFT_8.firstRead, names, { dialect: 'ietf', policies: { read: '10-in-3sec' } });
    expect(other.remaining).toEqual({ raw: DRAFT_8.firstRead.ratelimit, value: null });
  });

  it('reads both limiters where one answer appends both (response.append), as one field of two items', () => {
    const both = {
      ratelimit: [DRAFT_8.firstRead.ratelimit, DRAFT_8.firstUpload.ratelimit],
      'ratelimit-policy': [DRAFT_8.firstRead['ratelimit-policy'], DRAFT_8.firstUpload['ratelimit-policy']],
    };
    const r = parseRateLimitFields('ietf', both);
    expect(r.problems).toEqual([]);
    expect(r.quotas.map((q) => [q.policy, q.announced, q.limit, q.remaining])).toEqual([
      ['60-in-3sec', 0, 60, 59],
      ['10-in-3sec', 1, 10, 9],
    ]);
    const ingest = rateLimitHeadersOf(both, names, { dialect: 'ietf', policies: { read: '10-in-3sec' } });
    expect([ingest.limit.value, ingest.remaining.value, ingest.reset.value]).toEqual([10, 9, 3]);
  });
});
