/**
 * The reference target speaks each rate-limit dialect (`headers`): the dialect's fields and no
 * other's, on admitted, refused, unauthenticated and malformed requests, read back without a
 * problem by the dialect's own parser. The target runs on a ManualClock, so resets are exact.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  parseRateLimitFields,
  RATE_LIMIT_DIALECT_NAMES,
  RATE_LIMIT_DIALECTS,
  type RateLimitDialectName,
} from '../../src/contract/rate-limit-dialects.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, startTestTarget, type Answer } from '../helpers/target.ts';

const W = 2000;
const EVERY_FIELD = new Set(RATE_LIMIT_DIALECT_NAMES.flatMap((d) => RATE_LIMIT_DIALECTS[d].fields));

/** The rate-limit fields an answer carries, of any dialect. */
const rateFields = (a: Answer) => Object.keys(a.headers).filter((name) => EVERY_FIELD.has(name));

function reading(dialect: RateLimitDialectName, a: Answer, now: number) {
  return parseRateLimitFields(dialect, a.headers, { now });
}

async function dialectTarget(headers: RateLimitDialectName) {
  const clock = new ManualClock();
  // Mid-window: the reset is W/2 away, a whole second.
  clock.advance(W / 2);
  const t = await startTestTarget({ windowMs: W, headers, clock });
  return { ...t, clock };
}

describe.each(RATE_LIMIT_DIALECT_NAMES)('--headers %s', (dialect) => {
  it("an admitted read carries the dialect's fields alone, its quota, remaining and reset", async () => {
    const { admin, edge, clock } = await dialectTarget(dialect);
    const { key } = await orgWithKey(admin, 'starter');
    const a = await call(edge(), '/recruiter/jobs', { key });
    expect(a.status).toBe(200);
    expect(rateFields(a).sort()).toEqual([...RATE_LIMIT_DIALECTS[dialect].fields].sort());
    const r = reading(dialect, a, clock.now());
    expect(r.problems).toEqual([]);
    expect(r.quotas).toHaveLength(1);
    expect(r.quotas[0]).toMatchObject({ limit: 60, remaining: 59, reset: { epochMs: clock.now() + W / 2 } });
  });

  it('a refused read reports remaining 0, and a malformed request still carries the fields', async () => {
    const { admin, edge, clock, target } = await dialectTarget(dialect);
    const { key } = await orgWithKey(admin, 'starter');
    let last: Answer | null = null;
    for (let i = 0; i <= 60; i++) last = await call(edge(), '/recruiter/jobs', { key });
    expect(last!.status).toBe(429);
    expect(reading(dialect, last!, clock.now()).quotas[0]).toMatchObject({ limit: 60, remaining: 0 });

    const url = new URL(target.edges[0]!);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const fields = Object.fromEntries(
      head
        .split('\r\n\r\n')[0]!
        .split('\r\n')
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    expect(head.startsWith('HTTP/1.1 400')).toBe(true);
    expect(parseRateLimitFields(dialect, fields, { now: clock.now() }).problems).toEqual([]);
  });
});

describe('--headers ietf: the policies announced', () => {
  it('lists read, ingest and the concurrency cap, and names the policy the response counts', async () => {
    const { admin, edge, clock } = await dialectTarget('ietf');
    const { key } = await orgWithKey(admin, 'professional');
    const read = await call(edge(), '/recruiter/jobs', { key });
    expect(read.headers['ratelimit-policy']).toBe(
      '"read";q=300;w=2, "ingest";q=60;w=2, "concurrency";q=25;qu="concurrent-requests"',
    );
    expect(read.headers['ratelimit']).toBe('"read";r=299;t=1');
    const upload = await call(edge(), '/recruiter/jobs/vendor/resume-analysis', {
      method: 'POST',
      key,
      headers: { 'content-type': 'text/plain' },
      body: 'Jane Doe, QA engineer',
    });
    expect(upload.status).toBe(200);
    const r = reading('ietf', upload, clock.now());
    expect(r.quotas).toMatchObject([{ policy: 'ingest', announced: 1, limit: 60, remaining: 59 }]);
  });

  it('an unauthenticated request reports the anonymous bucket as its only policy', async () => {
    const { edge } = await dialectTarget('ietf');
    const a = await call(edge(), '/recruiter/jobs');
    expect(a.status).toBe(401);
    expect(a.headers['ratelimit-policy']).toBe('"anonymous";q=1000;w=2');
    expect(a.headers['ratelimit']).toBe('"anonymous";r=999;t=1');
  });
});

describe('--headers ietf-draft-7 and ietf-draft-6: the policy of the quota counted', () => {
  it.each(['ietf-draft-7', 'ietf-draft-6'] as const)('%s announces the read quota on a read', async (dialect) => {
    const { admin, edge } = await dialectTarget(dialect);
    const { key } = await orgWithKey(admin, 'starter');
    const a = await call(edge(), '/recruiter/jobs', { key });
    expect(a.headers['ratelimit-policy']).toBe('60;w=2');
    if (dialect === 'ietf-draft-7') expect(a.headers['ratelimit']).toBe('limit=60, remaining=59, reset=1');
    else expect([a.headers['ratelimit-limit'], a.headers['ratelimit-reset']]).toEqual(['60', '1']);
  });
});
