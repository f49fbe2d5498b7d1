/**
 * A response's rate-limit fields as observations keep them: §8's X-RateLimit-* as they come; a
 * declared dialect's figures of the quota the response reports in the places of Limit, Remaining and
 * Reset, each with the field it was read from, and the fields kept as received.
 */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import {
  renderRateLimitFields,
  type RateLimitDialectName,
  type RateLimitFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';

const NOW = 1_795_818_900_000;
const figures: RateLimitFigures = {
  now: NOW,
  quota: { policy: 'read', limit: 60, remaining: 59, resetMs: NOW + 42_000 },
  policies: [
    { name: 'read', quota: 60, windowS: 60 },
    { name: 'ingest', quota: 20, windowS: 60 },
  ],
};
const headersOf = (dialect: RateLimitDialectName, f: RateLimitFigures = figures): Record<string, string> =>
  Object.fromEntries(renderRateLimitFields(dialect, f));
const names = recruitingApi.headers;

describe('rateLimitHeadersOf', () => {
  it("reads §8's triple as it comes, with no dialect kept", () => {
    const read = rateLimitHeadersOf(
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1795818942' },
      names,
    );
    expect(read).toEqual({
      limit: { raw: '60', value: 60 },
      remaining: { raw: '59', value: 59 },
      reset: { raw: '1795818942', value: 1795818942 },
      retryAfter: { raw: null, value: null },
    });
  });

  it('reads the IETF fields: the policy quota as Limit, r as Remaining, t as Reset, each from its field', () => {
    const headers: Record<string, string> = { ...headersOf('ietf'), 'retry-after': '42' };
    const read = rateLimitHeadersOf(headers, names, { dialect: 'ietf', policies: {} });
    expect(read.limit).toEqual({ raw: headers['ratelimit-policy'], value: 60 });
    expect(read.remaining).toEqual({ raw: headers.ratelimit, value: 59 });
    expect(read.reset).toEqual({ raw: headers.ratelimit, value: 42 });
    expect(read.retryAfter).toEqual({ raw: '42', value: 42 });
    expect(read.dialect).toEqual({
      name: 'ietf',
      fields: { 'ratelimit-policy': headers['ratelimit-policy'], ratelimit: headers.ratelimit },
      policy: { name: 'read', quota: 60, windowS: 60, unit: 'requests' },
      policies: [
        { name: 'read', quota: 60, windowS: 60, unit: 'requests' },
        { name: 'ingest', quota: 20, windowS: 60, unit: 'requests' },
      ],
      problems: [],
    });
  });

  it("reads the policy the request's class goes by where declared, and none where the response reports another", () => {
    const headers = headersOf('ietf');
    const reader = { dialect: 'ietf', policies: { read: 'read', ingest: 'ingest' } } as const;
    const read = rateLimitHeadersOf(headers, names, reader, 'read');
    expect([read.limit.value, read.remaining.value, read.reset.value]).toEqual([60, 59, 42]);
    expect(read.dialect?.policy?.name).toBe('read');
    // This response reports the read quota: an upload's answer, read by the ingest policy, holds no figure.
    const ingest = rateLimitHeadersOf(headers, names, reader, 'ingest');
    expect([ingest.limit.value, ingest.remaining.value, ingest.reset.value]).toEqual([null, null, null]);
    expect(ingest.remaining.raw).toBe(headers.ratelimit);
    expect(ingest.dialect?.policy).toBeNull();
  });

  it('reads the first quota reported for a class that has no policy declared', () => {
    const uploads = headersOf('ietf', { ...figures, quota: { ...figures.quota, policy: 'ingest', limit: 20 } });
    const onlyRead = { dialect: 'ietf', policies: { read: 'read' } } as const;
    const ingest = rateLimitHeadersOf(uploads, names, onlyRead, 'ingest');
    expect([ingest.limit.value, ingest.remaining.value]).toEqual([20, 59]);
    expect(ingest.dialect?.policy?.name).toBe('ingest');
    // The class defaults to read, whose declared name the response does not report.
    expect(rateLimitHeadersOf(uploads, names, onlyRead).limit.value).toBeNull();
  });

  it("keeps a RateLimit item whose policy is not announced without a Limit (Cloudflare's names differ)", () => {
    const headers = { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"burst";q=100;w=60' };
    const read = rateLimitHeadersOf(headers, names, { dialect: 'ietf', policies: {} });
    expect([read.limit.value, read.remaining.value, read.reset.value]).toEqual([null, 50, 30]);
    expect(read.dialect).toMatchObject({ policy: null, problems: ['policy-unannounced'] });
  });

  it('reads drafts 7 and 6: Limit, Remaining and Reset (seconds until) from their fields, the policy matched by quota', () => {
    const seven = headersOf('ietf-draft-7');
    const readSeven = rateLimitHeadersOf(seven, names, { dialect: 'ietf-draft-7', policies: {} });
    expect([readSeven.limit, readSeven.remaining, readSeven.reset]).toEqual([
      { raw: seven.ratelimit, value: 60 },
      { raw: seven.ratelimit, value: 59 },
      { raw: seven.ratelimit, value: 42 },
    ]);
    expect(readSeven.dialect?.policy).toEqual({ name: null, quota: 60, windowS: 60, unit: 'requests' });
    const six = headersOf('ietf-draft-6');
    const readSix = rateLimitHeadersOf(six, names, { dialect: 'ietf-draft-6', policies: {} });
    expect([readSix.limit, readSix.remaining, readSix.reset]).toEqual([
      { raw: '60', value: 60 },
      { raw: '59', value: 59 },
      { raw: '42', value: 42 },
    ]);
    expect(readSix.dialect?.fields['ratelimit-policy']).toBe(six['ratelimit-policy']);
  });

  it('gives absent fields as absent and garbage as present without a value, naming the problem', () => {
    const none = rateLimitHeadersOf({}, names, { dialect: 'ietf', policies: {} });
    expect([none.limit, none.remaining, none.reset].map((h) => h.raw)).toEqual([null, null, null]);
    expect(none.dialect?.problems).toContain('field-missing');
    const garbage = rateLimitHeadersOf({ ratelimit: '%%', 'ratelimit-policy': '"read";q=60;w=60' }, names, {
      dialect: 'ietf',
      policies: {},
    });
    expect([garbage.limit.value, garbage.remaining]).toEqual([null, { raw: '%%', value: null }]);
    expect(garbage.dialect?.problems).toContain('field-invalid');
  });
});
