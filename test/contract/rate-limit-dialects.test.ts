/** The rate-limit dialects: each parser on what deployments send, garbage included, and round trips with the renderer. */
import { describe, expect, it } from 'vitest';
import {
  parseRateLimitFields,
  RATE_LIMIT_DIALECT_NAMES,
  RATE_LIMIT_DIALECTS,
  renderRateLimitFields,
  type RateLimitFigures,
  type RateLimitReading,
} from '../../src/contract/rate-limit-dialects.ts';

const NOW = 1_750_000_000_250;
const codes = (r: RateLimitReading) => r.problems.map((p) => `${p.code} ${p.field}${p.key ? ` ${p.key}` : ''}`);

describe('x-ratelimit', () => {
  it('reads the triple, Reset in epoch seconds, with seconds until from now', () => {
    const r = parseRateLimitFields(
      'x-ratelimit',
      { 'X-RateLimit-Limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '1750000042' },
      { now: NOW },
    );
    expect(r.problems).toEqual([]);
    expect(r.policies).toEqual([]);
    expect(r.quotas).toEqual([
      {
        policy: null,
        announced: null,
        limit: 60,
        remaining: 59,
        reset: { form: 'epoch-seconds', value: 1750000042, secondsUntil: 41.75, epochMs: 1_750_000_042_000 },
        partitionKey: null,
      },
    ]);
  });

  it('reads a Reset in epoch milliseconds where the deployment declares it', () => {
    const r = parseRateLimitFields(
      'x-ratelimit',
      { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1750000042000' },
      { now: NOW, resetForm: 'epoch-millis' },
    );
    expect(r.quotas[0]!.reset).toEqual({
      form: 'epoch-millis',
      value: 1_750_000_042_000,
      secondsUntil: 41.75,
      epochMs: 1_750_000_042_000,
    });
  });

  it('names garbage and missing fields, keeping what did parse', () => {
    const r = parseRateLimitFields('x-ratelimit', { 'x-ratelimit-limit': '60, 60', 'x-ratelimit-remaining': '-1' });
    expect(codes(r)).toEqual([
      'field-invalid x-ratelimit-limit',
      'field-invalid x-ratelimit-remaining',
      'field-missing x-ratelimit-reset',
    ]);
    expect(r.quotas).toEqual([]);
    expect(r.raw).toEqual({ 'x-ratelimit-limit': '60, 60', 'x-ratelimit-remaining': '-1' });
  });

  it('without any of its fields: every one missing, no quota', () => {
    const r = parseRateLimitFields('x-ratelimit', { 'content-type': 'text/plain' });
    expect(r.problems.map((p) => p.code)).toEqual(['field-missing', 'field-missing', 'field-missing']);
    expect(r.quotas).toEqual([]);
  });
});

describe('ietf (drafts 8 to 11)', () => {
  it('reads several policies with q, w, qu and pk, and the quota RateLimit names', () => {
    const r = parseRateLimitFields(
      'ietf',
      {
        'ratelimit-policy':
          '"read";q=60;w=60;pk=:AQID:, ingest;q=10;w=60;qu="content-bytes", "cap";q=5;qu="concurrent-requests"',
        ratelimit: '"ingest";r=9;t=30;pk=:AQID:',
      },
      { now: NOW },
    );
    expect(r.problems).toEqual([]);
    expect(r.policies).toEqual([
      { name: 'read', quota: 60, windowS: 60, unit: 'requests', partitionKey: 'AQID' },
      { name: 'ingest', quota: 10, windowS: 60, unit: 'content-bytes', partitionKey: null },
      { name: 'cap', quota: 5, windowS: null, unit: 'concurrent-requests', partitionKey: null },
    ]);
    expect(Buffer.from(r.policies[0]!.partitionKey!, 'base64')).toEqual(Buffer.from([1, 2, 3]));
    expect(r.quotas).toEqual([
      {
        policy: 'ingest',
        announced: 1,
        limit: 10,
        remaining: 9,
        reset: { form: 'seconds-until', value: 30, secondsUntil: 30, epochMs: NOW + 30_000 },
        partitionKey: 'AQID',
      },
    ]);
  });

  it("keeps Cloudflare's RateLimit naming a policy RateLimit-Policy does not announce, guessing nothing", () => {
    const r = parseRateLimitFields('ietf', {
      Ratelimit: '"default";r=50;t=30',
      'Ratelimit-Policy': '"burst";q=100;w=60',
    });
    expect(r.policies).toEqual([{ name: 'burst', quota: 100, windowS: 60, unit: 'requests', partitionKey: null }]);
    expect(r.quotas).toEqual([
      {
        policy: 'default',
        announced: null,
        limit: null,
        remaining: 50,
        reset: { form: 'seconds-until', value: 30, secondsUntil: 30, epochMs: null },
        partitionKey: null,
      },
    ]);
    expect(r.problems).toMatchObject([{ code: 'policy-unannounced', field: 'ratelimit', member: 0 }]);
  });

  it('reports several quotas in one RateLimit field, and joins repeated field lines', () => {
    const r = parseRateLimitFields('ietf', {
      'ratelimit-policy': ['"read";q=60;w=60', '"ingest";q=10;w=60'],
      ratelimit: '"read";r=0;t=5, "ingest";r=10;t=5',
    });
    expect(r.problems).toEqual([]);
    expect(r.quotas.map((q) => [q.policy, q.announced, q.limit, q.remaining])).toEqual([
      ['read', 0, 60, 0],
      ['ingest', 1, 10, 10],
    ]);
  });

  it('names each bad member and parameter: no q, no r, a negative r, w of 0, pk not bytes, an inner list', () => {
    const r = parseRateLimitFields('ietf', {
      'ratelimit-policy': '"a";w=60, "b";q=5;w=0;pk="x", (1 2), 7;q=1',
      ratelimit: '"b";t=3, "b";r=-1',
    });
    expect(r.problems.map((p) => [p.code, p.field, p.member, p.key])).toEqual([
      ['member-invalid', 'ratelimit-policy', 2, null],
      ['parameter-missing', 'ratelimit-policy', 0, 'q'],
      ['parameter-invalid', 'ratelimit-policy', 1, 'w'],
      ['parameter-invalid', 'ratelimit-policy', 1, 'pk'],
      ['member-invalid', 'ratelimit-policy', 3, null],
      ['parameter-missing', 'ratelimit', 0, 'r'],
      ['parameter-invalid', 'ratelimit', 1, 'r'],
    ]);
    expect(r.policies).toEqual([{ name: 'b', quota: 5, windowS: null, unit: 'requests', partitionKey: null }]);
    expect(r.quotas.map((q) => [q.policy, q.remaining, q.reset?.value ?? null])).toEqual([
      ['b', null, 3],
      ['b', null, null],
    ]);
  });

  it('a field that is no Structured Field, or an empty one, is field-invalid; a missing one field-missing', () => {
    expect(codes(parseRateLimitFields('ietf', { 'ratelimit-policy': '"read";q=60;w=', ratelimit: '' }))).toEqual([
      'field-invalid ratelimit-policy',
      'field-invalid ratelimit',
    ]);
    expect(codes(parseRateLimitFields('ietf', { ratelimit: '"read";r=1;t=1' }))).toEqual([
      'field-missing ratelimit-policy',
    ]);
  });
});

describe('ietf-draft-7', () => {
  it('reads the RateLimit Dictionary and the unnamed policy it matches by its limit', () => {
    const r = parseRateLimitFields('ietf-draft-7', {
      ratelimit: 'limit=5, remaining=4, reset=60',
      'ratelimit-policy': '5;w=60',
    });
    expect(r.problems).toEqual([]);
    expect(r.policies).toEqual([{ name: null, quota: 5, windowS: 60, unit: 'requests', partitionKey: null }]);
    expect(r.quotas).toMatchObject([{ policy: null, announced: 0, limit: 5, remaining: 4, reset: { value: 60 } }]);
  });

  it('names a missing member, a policy of another limit, and a policy that is no Integer', () => {
    const r = parseRateLimitFields('ietf-draft-7', {
      ratelimit: 'limit=5, reset=60',
      'ratelimit-policy': '6;w=60, "x";w=1',
    });
    expect(codes(r)).toEqual([
      'member-invalid ratelimit-policy',
      'parameter-missing ratelimit remaining',
      'limit-unannounced ratelimit',
    ]);
    expect(r.quotas).toMatchObject([{ announced: null, limit: 5, remaining: null }]);
  });
});

describe('ietf-draft-6', () => {
  it('reads the three fields in seconds until, and RateLimit-Policy beside them', () => {
    const r = parseRateLimitFields(
      'ietf-draft-6',
      {
        'ratelimit-limit': '5',
        'ratelimit-remaining': '4',
        'ratelimit-reset': '42',
        'ratelimit-policy': '5;w=60, 100;w=3600',
      },
      { now: NOW },
    );
    expect(r.problems).toEqual([]);
    expect(r.policies.map((p) => [p.quota, p.windowS])).toEqual([
      [5, 60],
      [100, 3600],
    ]);
    expect(r.quotas).toEqual([
      {
        policy: null,
        announced: 0,
        limit: 5,
        remaining: 4,
        reset: { form: 'seconds-until', value: 42, secondsUntil: 42, epochMs: NOW + 42_000 },
        partitionKey: null,
      },
    ]);
  });

  it('names a decimal, a string and a missing policy', () => {
    const r = parseRateLimitFields('ietf-draft-6', {
      'ratelimit-limit': '5.5',
      'ratelimit-remaining': '"4"',
      'ratelimit-reset': '42',
    });
    expect(codes(r)).toEqual([
      'field-invalid ratelimit-limit',
      'field-invalid ratelimit-remaining',
      'field-missing ratelimit-policy',
    ]);
  });
});

describe('the renderer', () => {
  const figures: RateLimitFigures = {
    now: NOW,
    quota: { policy: 'read', limit: 60, remaining: 12, resetMs: NOW + 41_500, partitionKey: 'AQID' },
    policies: [
      { name: 'read', quota: 60, windowS: 60, partitionKey: 'AQID' },
      { name: 'ingest', quota: 10, windowS: 60 },
      { name: 'concurrency', quota: 5, windowS: null, unit: 'concurrent-requests' },
    ],
  };

  it('writes each dialect as deployments do', () => {
    const rendered = Object.fromEntries(RATE_LIMIT_DIALECT_NAMES.map((d) => [d, renderRateLimitFields(d, figures)]));
    expect(rendered).toEqual({
      'x-ratelimit': [
        ['x-ratelimit-limit', '60'],
        ['x-ratelimit-remaining', '12'],
        ['x-ratelimit-reset', '1750000042'],
      ],
      ietf: [
        [
          'ratelimit-policy',
          '"read";q=60;w=60;pk=:AQID:, "ingest";q=10;w=60, "concurrency";q=5;qu="concurrent-requests"',
        ],
        ['ratelimit', '"read";r=12;t=42;pk=:AQID:'],
      ],
      'ietf-draft-7': [
        ['ratelimit-policy', '60;w=60'],
        ['ratelimit', 'limit=60, remaining=12, reset=42'],
      ],
      'ietf-draft-6': [
        ['ratelimit-limit', '60'],
        ['ratelimit-remaining', '12'],
        ['ratelimit-reset', '42'],
        ['ratelimit-policy', '60;w=60'],
      ],
    });
    for (const d of RATE_LIMIT_DIALECT_NAMES)
      expect(rendered[d]!.map(([name]) => name)).toEqual([...RATE_LIMIT_DIALECTS[d].fields]);
  });

  it.each(RATE_LIMIT_DIALECT_NAMES)('%s round-trips: what is rendered parses back to the figures', (dialect) => {
    const r = parseRateLimitFields(dialect, Object.fromEntries(renderRateLimitFields(dialect, figures)), { now: NOW });
    expect(r.problems).toEqual([]);
    expect(r.quotas).toHaveLength(1);
    const [quota] = r.quotas;
    expect([quota!.limit, quota!.remaining]).toEqual([60, 12]);
    // Rounded up to the second: the quota is back by the time the reset names.
    const epochMs = quota!.reset!.epochMs!;
    expect(epochMs >= figures.quota.resetMs && epochMs < figures.quota.resetMs + 1000).toBe(true);
    const announced = dialect === 'ietf' ? 3 : dialect === 'x-ratelimit' ? 0 : 1;
    expect(r.policies).toHaveLength(announced);
    if (announced > 0) expect(r.policies[quota!.announced!]).toMatchObject({ quota: 60, windowS: 60 });
  });

  it('writes a reset in the form a fault asks for', () => {
    const millis = renderRateLimitFields('ietf', { ...figures, resetForm: 'epoch-millis' });
    expect(millis[1]).toEqual(['ratelimit', `"read";r=12;t=${NOW + 41_500};pk=:AQID:`]);
    const relative = renderRateLimitFields('x-ratelimit', { ...figures, resetForm: 'seconds-until' });
    expect(relative[2]).toEqual(['x-ratelimit-reset', '42']);
  });
});
