/**
 * Access and revocation faults over HTTP: the cap, scopes, unknown keys, and revocation that is slow
 * or flaps on the last edge. The cap and revocation tests run the target on a ManualClock: uploads
 * stay in flight until the clock passes their parse time, and each edge is asked at the exact
 * milliseconds its schedule changes.
 */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { resolvePath } from '../../src/contract/lookup.ts';
import { FLAP_AFTER_MS, FLAP_FOR_MS, SLOW_REVOCATION_MS } from '../../src/reference-server/faults.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, keyOf, orgWithKey, startTestTarget, track } from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';

describe('access faults', () => {
  it('no-concurrency-cap admits one more than the cap while the cap is in flight', async () => {
    const PARSE_MS = 1500;
    const clock = new ManualClock();
    const t = await startTestTarget({ edges: 1, parseMs: PARSE_MS, faults: ['no-concurrency-cap'], clock });
    const upload = (key: string) =>
      ({ method: 'POST', key, headers: { 'content-type': 'text/plain' }, body: 'Jane' }) as const;
    const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
    const probe = await keyOf(t.admin, org.orgId, []);
    const held = Array.from({ length: 5 }, () => track(call(t.edge(), UPLOAD, upload(org.key))));
    // Each admitted upload waits out its parse time on the clock: five waits, five in flight.
    await clock.untilPending(5);
    const extra = track(call(t.edge(), UPLOAD, upload(org.key)));
    await clock.untilPending(6);
    // The server's own count agrees: six ingest units used, and nothing has finished.
    const counted = await call(t.edge(), UPLOAD, upload(probe.key));
    expect([counted.status, counted.remaining]).toEqual([403, 4]);
    expect([...held, extra].some((h) => h.done())).toBe(false);
    clock.advance(PARSE_MS);
    const answers = await Promise.all([...held, extra].map((h) => h.answer));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('scope-unenforced lets a key without scopes call every endpoint', async () => {
    const t = await startTestTarget({ faults: ['scope-unenforced'] });
    const { key } = await orgWithKey(t.admin, 'professional', []);
    for (const e of recruitingApi.endpoints.filter((x) => x.scope !== null && x.method === 'GET')) {
      expect((await call(t.edge(), resolvePath(e.path, 'demo-1'), { key })).status).toBe(200);
    }
    const webhooks = await call(t.edge(), '/recruiter/webhooks', { method: 'POST', key });
    expect(webhooks.status).toBe(200);
  });

  it('unknown-key-admitted admits a well-formed key that was never issued', async () => {
    const t = await startTestTarget({ faults: ['unknown-key-admitted'] });
    await orgWithKey(t.admin, 'starter');
    const never = `xh_live_${'Z'.repeat(32)}`;
    expect((await call(t.edge(), JOBS, { key: never })).status).toBe(200);
    expect((await call(t.edge(), JOBS, { key: 'xh_live_short' })).status).toBe(401);
  });
});

describe('revocation faults', () => {
  it(`slow-revocation: the last edge applies a revocation only after ${SLOW_REVOCATION_MS} ms`, async () => {
    const clock = new ManualClock();
    const t = await startTestTarget({
      edges: 3,
      windowMs: 60_000,
      revocationDelayMs: 200,
      faults: ['slow-revocation'],
      clock,
    });
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const r = await t.admin.revokeKey(keyId);
    expect(r.edges.map((e) => e.effectiveAt - r.revokedAt)).toEqual([200, 200, SLOW_REVOCATION_MS]);
    const onEdges = () => Promise.all(t.target.edges.map(async (url) => (await call(url, JOBS, { key })).status));
    const seen: [number, number[]][] = [];
    for (const after of [199, 200, 3000, SLOW_REVOCATION_MS - 1, SLOW_REVOCATION_MS]) {
      clock.set(r.revokedAt + after);
      seen.push([after, await onEdges()]);
    }
    expect(seen).toEqual([
      [199, [200, 200, 200]],
      [200, [401, 401, 200]],
      // Past the 3 s of §5.9, the last edge still admits the key.
      [3000, [401, 401, 200]],
      [SLOW_REVOCATION_MS - 1, [401, 401, 200]],
      [SLOW_REVOCATION_MS, [401, 401, 401]],
    ]);
  });

  it('revocation-flaps: the last edge admits the key again for a while after rejecting it', async () => {
    const clock = new ManualClock();
    const t = await startTestTarget({
      edges: 2,
      windowMs: 60_000,
      revocationDelayMs: 200,
      faults: ['revocation-flaps'],
      clock,
    });
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const r = await t.admin.revokeKey(keyId);
    expect(r.edges.map((e) => e.effectiveAt - r.revokedAt)).toEqual([200, 200]);
    const effectiveAt = r.edges[1]!.effectiveAt;
    const from = effectiveAt + FLAP_AFTER_MS;
    const until = from + FLAP_FOR_MS;
    const seen: [number, number, number][] = [];
    for (const at of [effectiveAt - 1, effectiveAt, from - 1, from, until - 1, until, until + 60_000]) {
      clock.set(at);
      const [first, last] = await Promise.all(
        t.target.edges.map(async (url) => (await call(url, JOBS, { key })).status),
      );
      seen.push([at - effectiveAt, first!, last!]);
    }
    // The last edge: admitted, rejected, admitted again for FLAP_FOR_MS, then rejected for good; the other edge is sticky.
    expect(seen).toEqual([
      [-1, 200, 200],
      [0, 401, 401],
      [FLAP_AFTER_MS - 1, 401, 401],
      [FLAP_AFTER_MS, 401, 200],
      [FLAP_AFTER_MS + FLAP_FOR_MS - 1, 401, 200],
      [FLAP_AFTER_MS + FLAP_FOR_MS, 401, 401],
      [FLAP_AFTER_MS + FLAP_FOR_MS + 60_000, 401, 401],
    ]);
  });
});
