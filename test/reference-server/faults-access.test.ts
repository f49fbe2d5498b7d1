/**
 * Access and revocation faults over HTTP: the cap, scopes, unknown keys, and revocation that is slow
 * or flaps on the last edge. The server shares this process's clock, so revocation samples are
 * judged against the edge's own schedule: answered before a moment, or sent after it.
 */
import { describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { resolvePath } from '../../src/contract/lookup.ts';
import { FLAP_AFTER_MS, FLAP_FOR_MS, SLOW_REVOCATION_MS } from '../../src/reference-server/faults.ts';
import { call, inOneWindow, keyOf, orgWithKey, sleep, startTestTarget, track, untilRemaining, type Answer } from '../helpers/target.ts';

const JOBS = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';

describe('access faults', () => {
  it('no-concurrency-cap admits one more than the cap while the cap is in flight', async () => {
    const t = await startTestTarget({ edges: 1, windowMs: 4000, parseMs: 1500, faults: ['no-concurrency-cap'] });
    const upload = (key: string) => ({ method: 'POST', key, headers: { 'content-type': 'text/plain' }, body: 'Jane' }) as const;
    const run = await inOneWindow(4000, async () => {
      const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
      const probe = await keyOf(t.admin, org.orgId, []);
      const seen: Answer[] = [];
      const held = Array.from({ length: 5 }, () => track(call(t.edge(), UPLOAD, upload(org.key))));
      const capIn = await untilRemaining(t.edge(), UPLOAD, upload(probe.key), 5, seen);
      const extra = track(call(t.edge(), UPLOAD, upload(org.key)));
      // The extra was admitted (its ingest unit counted) while all five were still in flight.
      const extraIn = await untilRemaining(t.edge(), UPLOAD, upload(probe.key), 4, seen);
      const overlapping = [...held, extra].every((h) => !h.done());
      const answers = await Promise.all([...held, extra].map((h) => h.answer));
      return { answers: [...seen, ...answers], capIn, extraIn, overlapping, statuses: answers.map((a) => a.status) };
    });
    expect([run.capIn, run.extraIn, run.overlapping]).toEqual([true, true, true]);
    expect(run.statuses).toEqual([200, 200, 200, 200, 200, 200]);
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

/** Probe one edge (bounded) until `until`, every `everyMs`. */
async function probe(base: string, key: string, until: number, everyMs: number): Promise<Answer[]> {
  const samples: Answer[] = [];
  for (let i = 0; i < 1000 && Date.now() <= until; i++) {
    samples.push(await call(base, JOBS, { key }));
    await sleep(everyMs);
  }
  return samples;
}

describe('revocation faults', () => {
  it(`slow-revocation: the last edge applies a revocation only after ${SLOW_REVOCATION_MS} ms`, async () => {
    const t = await startTestTarget({ edges: 3, windowMs: 60_000, revocationDelayMs: 200, faults: ['slow-revocation'] });
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const r = await t.admin.revokeKey(keyId);
    expect(r.edges.map((e) => e.effectiveAt - r.revokedAt)).toEqual([200, 200, SLOW_REVOCATION_MS]);
    await sleep(r.revokedAt + 3000 - Date.now());
    const first = await call(t.edge(0), JOBS, { key });
    expect(first.status).toBe(401);
    const last = await call(t.edge(2), JOBS, { key });
    const lastAt = r.edges[2]!.effectiveAt;
    if (last.receivedAt < lastAt) expect(last.status).toBe(200);
    await sleep(lastAt - Date.now() + 1);
    expect((await call(t.edge(2), JOBS, { key })).status).toBe(401);
  });

  it('revocation-flaps: the last edge admits the key again for a while after rejecting it', async () => {
    const t = await startTestTarget({ edges: 2, windowMs: 60_000, revocationDelayMs: 200, faults: ['revocation-flaps'] });
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const r = await t.admin.revokeKey(keyId);
    const effectiveAt = r.edges[1]!.effectiveAt;
    const from = effectiveAt + FLAP_AFTER_MS;
    const until = from + FLAP_FOR_MS;
    const samples = await probe(t.edge(1), key, until + 150, 10);
    const inside = (s: Answer, a: number, b: number) => s.sentAt >= a && s.receivedAt < b;
    for (const s of samples) {
      if (inside(s, effectiveAt, from)) expect(s.status).toBe(401);
      if (inside(s, from, until)) expect(s.status).toBe(200);
      if (s.sentAt >= until) expect(s.status).toBe(401);
    }
    // The flap was actually observed: rejected, admitted again, then rejected for good.
    expect(samples.some((s) => inside(s, from, until))).toBe(true);
    const pattern = samples.map((s) => (s.status === 200 ? 'A' : 'R')).join('').replace(/(.)\1+/g, '$1');
    expect(pattern).toMatch(/^A?RAR$/);
    // The other edge is sticky.
    expect((await call(t.edge(0), JOBS, { key })).status).toBe(401);
  });
});
