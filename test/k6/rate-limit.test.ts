/**
 * The k6 scripts' reading of a declared dialect (scenarios/k6/lib/rate-limit.ts) against the
 * contract's (rateLimitHeadersOf) on the same fields: the same Limit, Remaining and Reset on every
 * well-formed field, none where a field is absent or not a figure; and the ingest reading the fields a
 * sample records with the contract's parser.
 */
import { describe, expect, it } from 'vitest';
import {
  RATE_LIMIT_DIALECTS,
  renderRateLimitFields,
  type RateLimitFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';
import { FIELD_TAG_PREFIX, k6RateLimit } from '../../src/k6/ingest.ts';
import type { K6Point } from '../../src/k6/ndjson.ts';
import {
  FIELD_TAG_PREFIX as SCRIPT_FIELD_TAG_PREFIX,
  dialectFields,
  dialectFigures,
  structuredMembers,
  type K6RateLimitDialect,
} from '../../scenarios/k6/lib/rate-limit.ts';

type Dialect = K6RateLimitDialect['dialect'];
const names = recruitingApi.headers;
const NOW = 1_795_818_900_000;
const spec = (dialect: Dialect, policyName: string | null = null): K6RateLimitDialect => ({
  dialect,
  fields: RATE_LIMIT_DIALECTS[dialect].fields,
  policyName,
});

/** The contract's figures for the same fields, as an Observation keeps them. */
function contractFigures(raw: Record<string, string>, dialect: Dialect, policyName: string | null = null) {
  const read = rateLimitHeadersOf(raw, names, { dialect, policies: policyName === null ? {} : { read: policyName } });
  return { limit: read.limit.value, remaining: read.remaining.value, reset: read.reset.value };
}

const figures = (remaining: number, resetS: number, pk?: string): RateLimitFigures => ({
  now: NOW,
  quota: { policy: 'ingest', limit: 20, remaining, resetMs: NOW + resetS * 1000, partitionKey: pk ?? null },
  policies: [
    { name: 'read', quota: 60, windowS: 60, partitionKey: 'b3JnLWE=' },
    { name: 'ingest', quota: 20, windowS: 60, unit: 'requests' },
    { name: 'cap', quota: 5, windowS: null, unit: 'concurrent-requests' },
  ],
});

/** Fields deployments send, well-formed: rendered by the reference target's renderer, and written by others. */
const WELL_FORMED: readonly [Dialect, Record<string, string>, string | null][] = [
  ...(['ietf', 'ietf-draft-7', 'ietf-draft-6'] as const).flatMap((d) =>
    [
      [0, 0],
      [19, 42],
      [7, 60],
    ].map(([r, t]): [Dialect, Record<string, string>, string | null] => [
      d,
      Object.fromEntries(renderRateLimitFields(d, figures(r!, t!, 'cGs='))),
      null,
    ]),
  ),
  // express-rate-limit 8, draft 8 and draft 7 (test/limiters README).
  [
    'ietf',
    { ratelimit: '"60-in-3sec"; r=59; t=3', 'ratelimit-policy': '"60-in-3sec"; q=60; w=3; pk=:OGYxZmMyN2VlZmNj:' },
    null,
  ],
  ['ietf-draft-7', { ratelimit: 'limit=60, remaining=59, reset=3', 'ratelimit-policy': '60;w=3' }, null],
  // Cloudflare: RateLimit names a policy RateLimit-Policy does not announce (no Limit).
  ['ietf', { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"burst";q=100;w=60' }, null],
  // Names with a comma, a semicolon and an escaped quote; a Token name; parameters of every kind skipped.
  [
    'ietf',
    {
      ratelimit: '"a,b;c";r=3;t=9;x=1.5, day;r=100;t=3600;pk=:AAEC:;flag;s=%"caf%c3%a9"',
      'ratelimit-policy': '"a,b;c";q=10;w=10;qu="requests", day;q=1000;w=86400, ("inner" 1);q=5',
    },
    'day',
  ],
  ['ietf', { ratelimit: '"q\\"x";r=1;t=2', 'ratelimit-policy': '"q\\"x";q=4;w=5' }, null],
  [
    'ietf',
    { ratelimit: '"read";r=5;t=7,   "ingest";r=2;t=7', 'ratelimit-policy': '"read";q=60, "ingest";q=20' },
    'ingest',
  ],
  ['ietf-draft-7', { ratelimit: 'remaining=4, limit=5, reset=60, remaining=3', 'ratelimit-policy': '5;w=60' }, null],
  ['ietf-draft-6', { 'ratelimit-limit': '5;w=60', 'ratelimit-remaining': ' 4 ', 'ratelimit-reset': '60' }, null],
];

/** Fields the contract gives no figure of, where the k6 reading gives none either. */
const NO_FIGURES: readonly [Dialect, Record<string, string>][] = [
  ['ietf', {}],
  ['ietf', { ratelimit: '"read";r=-1;t=1.5', 'ratelimit-policy': '"read";q=60' }],
  ['ietf', { ratelimit: '7;r=1;t=1', 'ratelimit-policy': '7;q=1' }],
  ['ietf', { ratelimit: '%%', 'ratelimit-policy': '"read";q=60' }],
  ['ietf-draft-7', { ratelimit: 'limit="5", remaining=?1, reset=1.5' }],
  ['ietf-draft-7', { ratelimit: 'limit=5, remaining=4,' }],
  ['ietf-draft-6', { 'ratelimit-limit': 'x', 'ratelimit-remaining': '-4', 'ratelimit-reset': '1.5' }],
];

describe("the k6 scripts' reading of a dialect", () => {
  it.each(WELL_FORMED)('%s: the figures the contract reads, on %j', (dialect, raw, policyName) => {
    const k6 = dialectFigures(raw, spec(dialect, policyName));
    expect(k6).toEqual(contractFigures(raw, dialect, policyName));
  });

  it('reads figures on the well-formed fields, not only nulls', () => {
    const read = WELL_FORMED.map(([d, raw, p]) => dialectFigures(raw, spec(d, p)).remaining);
    expect(read.filter((r) => r !== null).length).toBe(WELL_FORMED.length);
  });

  it.each(NO_FIGURES)('%s: no figure where the contract reads none, on %j', (dialect, raw) => {
    const k6 = dialectFigures(raw, spec(dialect));
    const contract = contractFigures(raw, dialect);
    expect(k6).toEqual(contract);
  });

  it('picks the fields by name in any case, and only the dialect’s', () => {
    const headers = { Ratelimit: '"read";r=5;t=7', 'Ratelimit-Policy': '"read";q=60', 'X-Ratelimit-Limit': '60' };
    expect(dialectFields(headers, spec('ietf'))).toEqual({
      ratelimit: '"read";r=5;t=7',
      'ratelimit-policy': '"read";q=60',
    });
  });

  it('reads Lists and Dictionaries as RFC 9651 writes them, refusing what is none', () => {
    expect(structuredMembers('"a";r=1, b', false)).toEqual([
      { key: null, value: 'a', params: { r: 1 } },
      { key: null, value: 'b', params: {} },
    ]);
    expect(structuredMembers('limit=5, flag;x=2', true)).toEqual([
      { key: 'limit', value: 5, params: {} },
      { key: 'flag', value: null, params: { x: 2 } },
    ]);
    for (const bad of ['', '"open', 'a,', 'a b', '(1 2', 'a;=1']) expect(structuredMembers(bad, false)).toBeNull();
  });
});

describe('the k6 ingest under a dialect', () => {
  const point = (tags: Record<string, string>, value = 3): K6Point => ({
    metric: 'tiergate_remaining',
    timeMs: NOW,
    value,
    tags: { org: 'starter-a', tier: 'starter', status: '200', ...tags },
    file: 0,
  });

  it('records the fields under the tag prefix the ingest reads', () => {
    expect(SCRIPT_FIELD_TAG_PREFIX).toBe(FIELD_TAG_PREFIX);
  });

  it('reads the fields a sample recorded with the contract’s parser, the policy the script was told', () => {
    const fields = { ratelimit: '"read";r=5;t=7, "ingest";r=2;t=9', 'ratelimit-policy': '"read";q=60, "ingest";q=20' };
    const tags = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`${FIELD_TAG_PREFIX}${k}`, v]));
    const read = k6RateLimit(point({ dialect: 'ietf', policy: 'ingest', window: '9', limit: '20', ...tags }), names);
    expect(read).toEqual(rateLimitHeadersOf(fields, names, { dialect: 'ietf', policies: { read: 'ingest' } }));
    expect([read.limit.value, read.remaining.value, read.reset.value]).toEqual([20, 2, 9]);
    // A field the response lacked is missing in the reading too.
    const none = k6RateLimit(point({ dialect: 'ietf-draft-7' }), names);
    expect(none.dialect?.problems).toContain('field-missing');
    expect(none.remaining).toEqual({ raw: null, value: null });
  });

  it("reads §8's triple from the tags and the value where no dialect is named, as before", () => {
    expect(k6RateLimit(point({ window: '1795818960', limit: '60' }, 12), names)).toEqual({
      limit: { raw: '60', value: 60 },
      remaining: { raw: '12', value: 12 },
      reset: { raw: '1795818960', value: 1795818960 },
      retryAfter: { raw: null, value: null },
    });
  });
});
