/** dialectsSent: which dialects one response speaks, on what deployments send, garbage included. */
import { describe, expect, it } from 'vitest';
import {
  renderRateLimitFields,
  type RateLimitDialectName,
  type RateLimitFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import { dialectsSent } from '../../src/contract/rate-limit-sent.ts';

/** The server's clock: a quarter second past a whole second, so that Date and the resets round as they do live. */
const NOW = 1_750_000_000_250;
const DATE = new Date(NOW).toUTCString();

const figures: RateLimitFigures = {
  now: NOW,
  quota: { policy: 'read', limit: 60, remaining: 12, resetMs: NOW + 41_500 },
  policies: [
    { name: 'read', quota: 60, windowS: 60 },
    { name: 'ingest', quota: 10, windowS: 60 },
  ],
};

/** The fields of several dialects for the same figures, as one response's headers. */
const headersOf = (dialects: readonly RateLimitDialectName[], f: RateLimitFigures = figures) =>
  Object.fromEntries(dialects.flatMap((d) => renderRateLimitFields(d, f)));

const sentNames = (headers: Record<string, string>) => dialectsSent(headers).sent.map((r) => r.dialect);

describe('dialectsSent: which dialects a response speaks', () => {
  it.each<RateLimitDialectName>(['x-ratelimit', 'ietf', 'ietf-draft-7', 'ietf-draft-6'])(
    'each dialect alone, as rendered, is named alone and read without a problem: %s',
    (dialect) => {
      const sent = dialectsSent({ ...headersOf([dialect]), date: DATE });
      expect(sent.sent.map((r) => r.dialect)).toEqual([dialect]);
      expect(sent.sent[0]!.problems).toEqual([]);
      expect(sent.sent[0]!.quotas.map((q) => [q.limit, q.remaining])).toEqual([[60, 12]]);
      expect(sent.agreement).toEqual([]);
    },
  );

  it('announces the policies: named by the IETF draft, unnamed by drafts 6 and 7, none by §8', () => {
    const announced = (d: RateLimitDialectName) =>
      dialectsSent(headersOf([d])).policies.map((p) => [p.name, p.quota, p.windowS]);
    expect(announced('ietf')).toEqual([
      ['read', 60, 60],
      ['ingest', 10, 60],
    ]);
    expect(announced('ietf-draft-7')).toEqual([[null, 60, 60]]);
    expect(announced('ietf-draft-6')).toEqual([[null, 60, 60]]);
    expect(announced('x-ratelimit')).toEqual([]);
  });

  it('keeps every rate-limit field received by lower-case name, and no other header', () => {
    const sent = dialectsSent({
      'X-RateLimit-Limit': '60',
      'Content-Type': 'text/plain',
      'RateLimit-Policy': '60;w=60',
    });
    expect(sent.fields).toEqual({ 'x-ratelimit-limit': '60', 'ratelimit-policy': '60;w=60' });
  });

  it('none at all: nothing sent, nothing announced', () => {
    expect(dialectsSent({ date: DATE, 'content-type': 'application/json' })).toEqual({
      fields: {},
      sent: [],
      policies: [],
      agreement: [],
    });
  });
});

describe('dialectsSent: the X-RateLimit triple beside another dialect', () => {
  it.each<RateLimitDialectName>(['ietf', 'ietf-draft-7', 'ietf-draft-6'])(
    'the same figures rendered in both agree: limit, remaining, and resets the same moment by Date (%s)',
    (dialect) => {
      const sent = dialectsSent({ ...headersOf(['x-ratelimit', dialect]), date: DATE });
      expect(sent.sent.map((r) => r.dialect)).toEqual(['x-ratelimit', dialect]);
      const [agreement] = sent.agreement;
      expect(agreement).toMatchObject({
        dialect,
        limit: { x: 60, other: 60, agrees: true },
        remaining: { x: 12, other: 12, agrees: true },
        agrees: true,
      });
      // Date is to the second and each reset rounded up: they meet within a second.
      expect(agreement!.reset.x).toBe(1_750_000_042_000);
      expect(Math.abs(agreement!.reset.x! - agreement!.reset.other!)).toBeLessThanOrEqual(1000);
    },
  );

  it('resets in agreement wherever in its second the server clock stands', () => {
    for (const past of [0, 1, 499, 999]) {
      for (const until of [1, 999, 1000, 1001, 41_999]) {
        const now = 1_750_000_000_000 + past;
        const f = { ...figures, now, quota: { ...figures.quota, resetMs: now + until } };
        const sent = dialectsSent({ ...headersOf(['x-ratelimit', 'ietf'], f), date: new Date(now).toUTCString() });
        expect([past, until, sent.agreement[0]!.reset.agrees]).toEqual([past, until, true]);
      }
    }
  });

  it('names each figure that differs: another remaining, another limit, a reset two seconds off', () => {
    const x = headersOf(['x-ratelimit']);
    const other = headersOf(['ietf-draft-6'], {
      ...figures,
      quota: { ...figures.quota, limit: 50, remaining: 11, resetMs: figures.quota.resetMs + 2000 },
      policies: [{ name: 'read', quota: 50, windowS: 60 }],
    });
    const [agreement] = dialectsSent({ ...x, ...other, date: DATE }).agreement;
    expect(agreement).toMatchObject({
      dialect: 'ietf-draft-6',
      limit: { x: 60, other: 50, agrees: false },
      remaining: { x: 12, other: 11, agrees: false },
      reset: { agrees: false },
      agrees: false,
    });
    expect(agreement!.reset.other! - agreement!.reset.x!).toBe(2000);
  });

  it('a reset in seconds until with neither Date nor a clock given: that figure cannot be compared', () => {
    const [agreement] = dialectsSent(headersOf(['x-ratelimit', 'ietf'])).agreement;
    expect(agreement).toMatchObject({ reset: { x: 1_750_000_042_000, other: null, agrees: null }, agrees: null });
    const [withClock] = dialectsSent(headersOf(['x-ratelimit', 'ietf']), { now: NOW }).agreement;
    expect(withClock!.agrees).toBe(true);
  });

  it("express-rate-limit's draft-6 beside its legacy X-RateLimit-* headers", () => {
    // As the test bed's express-rate-limit (standardHeaders: 'draft-6', legacyHeaders: true) answers its 5th read of 5.
    const sent = dialectsSent({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1750000060',
      'ratelimit-policy': '5;w=60',
      'ratelimit-limit': '5',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '60',
      date: DATE,
    });
    expect(sent.sent.map((r) => [r.dialect, r.problems])).toEqual([
      ['x-ratelimit', []],
      ['ietf-draft-6', []],
    ]);
    expect(sent.policies).toEqual([{ name: null, quota: 5, windowS: 60, unit: 'requests', partitionKey: null }]);
    expect(sent.agreement).toMatchObject([
      { dialect: 'ietf-draft-6', limit: { agrees: true }, remaining: { agrees: true }, agrees: true },
    ]);
  });
});

describe('dialectsSent: what real servers send', () => {
  it("Cloudflare's RateLimit naming another policy than RateLimit-Policy announces: IETF, its limit unknown", () => {
    const sent = dialectsSent({ Ratelimit: '"default";r=50;t=30', 'Ratelimit-Policy': '"burst";q=100;w=60' });
    expect(sent.sent.map((r) => r.dialect)).toEqual(['ietf']);
    expect(sent.policies.map((p) => [p.name, p.quota, p.windowS])).toEqual([['burst', 100, 60]]);
    expect(sent.sent[0]!.quotas.map((q) => [q.policy, q.limit, q.remaining])).toEqual([['default', null, 50]]);
    expect(sent.sent[0]!.problems.map((p) => p.code)).toEqual(['policy-unannounced']);
  });

  it('the same beside an X-RateLimit triple: the limit cannot be compared, remaining can', () => {
    const sent = dialectsSent({
      ratelimit: '"default";r=50;t=30',
      'ratelimit-policy': '"burst";q=100;w=60',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '50',
      'x-ratelimit-reset': String(Math.ceil(NOW / 1000) + 30),
      date: DATE,
    });
    expect(sent.agreement).toMatchObject([
      { dialect: 'ietf', limit: { x: 100, other: null, agrees: null }, remaining: { agrees: true }, agrees: null },
    ]);
    expect(sent.agreement[0]!.reset.agrees).toBe(true);
  });

  it('a RateLimit-Policy alone: the IETF draft where it names its policies, no dialect where it does not', () => {
    expect(sentNames({ 'ratelimit-policy': '"read";q=60;w=60' })).toEqual(['ietf']);
    const unnamed = dialectsSent({ 'ratelimit-policy': '60;w=60' });
    expect(unnamed.sent).toEqual([]);
    expect(unnamed.policies.map((p) => [p.name, p.quota])).toEqual([[null, 60]]);
  });
});

describe('dialectsSent: garbage', () => {
  it('a RateLimit that is no Structured Field is the IETF draft, read with its problem', () => {
    const sent = dialectsSent({ ratelimit: 'limit=five;;', 'ratelimit-policy': '"read";q=60' });
    expect(sent.sent.map((r) => [r.dialect, r.problems.map((p) => `${p.code} ${p.field}`)])).toEqual([
      ['ietf', ['field-invalid ratelimit']],
    ]);
  });

  it('a token-named policy called "limit" is still the IETF draft, not draft 7', () => {
    expect(sentNames({ ratelimit: 'limit;r=5;t=3', 'ratelimit-policy': 'limit;q=5;w=60' })).toEqual(['ietf']);
  });

  it('a broken X-RateLimit triple is sent, its problems kept; figures it lacks are not compared', () => {
    const sent = dialectsSent({
      'x-ratelimit-limit': 'sixty',
      'x-ratelimit-remaining': '12',
      ...Object.fromEntries(renderRateLimitFields('ietf-draft-7', figures)),
    });
    expect(sent.sent.map((r) => [r.dialect, r.problems.map((p) => `${p.code} ${p.field}`)])).toEqual([
      ['x-ratelimit', ['field-invalid x-ratelimit-limit', 'field-missing x-ratelimit-reset']],
      ['ietf-draft-7', []],
    ]);
    // The triple's quota is read only where one of its figures parsed: here the remaining.
    expect(sent.agreement).toMatchObject([{ limit: { agrees: null }, remaining: { agrees: true }, agrees: null }]);
  });

  it('an unparsable Date leaves a seconds-until reset uncompared, and throws nothing', () => {
    const [agreement] = dialectsSent({ ...headersOf(['x-ratelimit', 'ietf']), date: 'yesterday' }).agreement;
    expect(agreement!.reset.agrees).toBeNull();
    expect(() => dialectsSent({ ratelimit: ['', ','], 'ratelimit-limit': '-', date: '' })).not.toThrow();
  });
});
