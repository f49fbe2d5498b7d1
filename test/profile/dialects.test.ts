/**
 * The profile's dialects: pure inference over answers read whole (dialectProfileOf), and what a
 * discovery learns from the reference target speaking §8's triple and the IETF fields.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  renderRateLimitFields,
  type RateLimitDialectName,
  type RateLimitFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import { dialectsSent } from '../../src/contract/rate-limit-sent.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { dialectProfileOf } from '../../src/profile/dialects.ts';
import { discover } from '../../src/profile/discover.ts';
import { inferProfile } from '../../src/profile/infer.ts';
import type { DialectsSentBy } from '../../src/profile/record.ts';
import { systemClock } from '../../src/util/io.ts';
import { keyOf, orgWithKey, startTestTarget } from '../helpers/target.ts';

const NOW = 1_750_000_000_250;
const DATE = new Date(NOW).toUTCString();
const figures = (remaining: number, limit = 60): RateLimitFigures => ({
  now: NOW,
  quota: { policy: 'read', limit, remaining, resetMs: NOW + 41_500 },
  policies: [
    { name: 'read', quota: limit, windowS: 60 },
    { name: 'ingest', quota: 10, windowS: 60 },
  ],
});

/** Answer `id` carrying `dialects` for the same figures (or the triple's own beside another's). */
function answer(id: number, dialects: readonly RateLimitDialectName[], other?: RateLimitFigures): DialectsSentBy {
  const headers = Object.fromEntries(
    dialects.flatMap((d) => renderRateLimitFields(d, d === 'x-ratelimit' || !other ? figures(12) : other)),
  );
  return { id, sent: dialectsSent({ ...headers, date: DATE }) };
}

describe('dialectProfileOf', () => {
  it('§8 alone: x-ratelimit sent, no policy, nothing to compare', () => {
    const d = dialectProfileOf([answer(1, ['x-ratelimit']), answer(2, ['x-ratelimit'])], 3);
    expect(d).toEqual({
      sent: { value: ['x-ratelimit'], how: expect.any(String), evidence: [1] },
      fields: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      policies: [],
      agreement: { value: 'not-both', how: expect.any(String), evidence: [] },
    });
  });

  it('draft 6 beside the triple, telling the same state: both sent, its policy, they agree', () => {
    const d = dialectProfileOf(
      [answer(4, ['x-ratelimit', 'ietf-draft-6']), answer(5, ['x-ratelimit', 'ietf-draft-6'])],
      2,
    );
    expect(d.sent).toMatchObject({ value: ['x-ratelimit', 'ietf-draft-6'], evidence: [4, 4] });
    expect(d.policies).toEqual([{ name: null, quota: 60, windowS: 60, unit: 'requests' }]);
    expect(d.agreement).toMatchObject({ value: 'agrees', evidence: [4] });
  });

  it('another remaining on one answer: they differ, that answer the evidence', () => {
    const d = dialectProfileOf(
      [answer(4, ['x-ratelimit', 'ietf']), answer(5, ['x-ratelimit', 'ietf'], figures(11)), answer(6, ['ietf'])],
      3,
    );
    expect(d.agreement).toMatchObject({ value: 'differs', evidence: [5] });
    expect(d.policies.map((p) => [p.name, p.quota])).toEqual([
      ['read', 60],
      ['ingest', 10],
    ]);
  });

  it('no field at all: none sent (decided); nothing answered: undecided', () => {
    expect(dialectProfileOf([], 5).sent).toMatchObject({ value: [], evidence: [] });
    expect(dialectProfileOf([], 0).sent.value).toBeNull();
  });

  it('both sent but no figure comparable on every answer (seconds until, no Date): undecided', () => {
    const headers = Object.fromEntries(
      ['x-ratelimit', 'ietf'].flatMap((d) => renderRateLimitFields(d as RateLimitDialectName, figures(12))),
    );
    const d = dialectProfileOf([{ id: 9, sent: dialectsSent(headers) }], 1);
    expect(d.agreement).toMatchObject({ value: null, evidence: [9] });
  });
});

describe('discover learns the dialect the reference target speaks', () => {
  async function learned(headers: RateLimitDialectName) {
    const t = await startTestTarget({ windowMs: 2000, headers });
    const org = await orgWithKey(t.admin, 'starter');
    const unscoped = await keyOf(t.admin, org.orgId, []);
    const controller = new AbortController();
    onTestFinished(() => controller.abort());
    const prober = new HttpProber({
      edges: [{ label: 'edge-0', url: t.edge(0) }],
      contract: recruitingApi,
      clock: systemClock,
      epoch: 0,
      recorder: new ObservationRecorder(null),
      timeoutMs: 5000,
      connectionsPerEdge: 4,
      signal: controller.signal,
    });
    onTestFinished(() => prober.close());
    const record = await discover({
      prober,
      contract: recruitingApi,
      tier: 'starter',
      org: 'starter-a',
      keys: { primary: org.key, unscoped: unscoped.key },
      windowMs: 2000,
      clockOffsetMs: () => 0,
      signal: controller.signal,
      runId: 'test',
      brief: true,
    });
    return { record, profile: inferProfile(record) };
  }

  it.concurrent('x-ratelimit: the triple alone, no policy', async () => {
    const { record, profile } = await learned('x-ratelimit');
    expect(profile.dialects).toMatchObject({
      sent: { value: ['x-ratelimit'] },
      fields: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      policies: [],
      agreement: { value: 'not-both' },
    });
    // Every answer's fields were read whole, the observations' ids kept as evidence.
    const ids = new Set(record.all.map((o) => o.id));
    expect(record.dialects!.length).toBeGreaterThan(10);
    expect(record.dialects!.every((d) => ids.has(d.id))).toBe(true);
  });

  it.concurrent('ietf: RateLimit and RateLimit-Policy, the starter policies announced', async () => {
    const { profile } = await learned('ietf');
    const starter = recruitingApi.tiers.starter;
    expect(profile.dialects).toMatchObject({
      sent: { value: ['ietf'] },
      fields: ['ratelimit-policy', 'ratelimit'],
      agreement: { value: 'not-both' },
    });
    expect(profile.dialects!.policies).toContainEqual({
      name: expect.any(String),
      quota: starter.read.value,
      windowS: 2,
      unit: 'requests',
    });
    // §8's triple is absent: the headers the spec names were not sent.
    expect(profile.headers.value).toBe(false);
  });
});
