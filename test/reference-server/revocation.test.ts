/**
 * Edge nodes share one state; a revocation (§5.9) reaches each edge at its own scheduled time.
 * The server runs in this process, so its clock is ours: a probe answered before an edge's
 * effectiveAt must be admitted, and one sent at or after it must be refused, on every edge.
 */
import { describe, expect, it } from 'vitest';
import { call, orgWithKey, sleep, useTarget, type Answer } from '../helpers/target.ts';

const DELAY_MS = 800;
const JITTER_MS = 400;
const target = useTarget({ windowMs: 60_000, edges: 3, revocationDelayMs: DELAY_MS, revocationJitterMs: JITTER_MS });

/** Probe one edge every `everyMs` until `until` (bounded by the sample count). */
async function probe(base: string, key: string, until: number, everyMs = 20): Promise<Answer[]> {
  const samples: Answer[] = [];
  for (let i = 0; i < 500 && Date.now() <= until; i++) {
    samples.push(await call(base, '/recruiter/jobs', { key }));
    await sleep(everyMs);
  }
  return samples;
}

describe('edge nodes', () => {
  it('each edge names itself and all share one organization state and quota', async () => {
    const t = target();
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = [await call(t.edge(0), '/recruiter/jobs', { key }), await call(t.edge(1), '/recruiter/jobs', { key }), await call(t.edge(2), '/recruiter/jobs', { key })];
    expect(answers.map((a) => a.headers['x-edge-node'])).toEqual(['edge-0', 'edge-1', 'edge-2']);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    if (answers[0]!.reset === answers[2]!.reset) expect(answers.map((a) => a.remaining)).toEqual([59, 58, 57]);
    const ports = t.target.edges.map((u) => new URL(u).port);
    expect(new Set(ports).size).toBe(3);
  });

  it('a revoked key is admitted on each edge until its scheduled time, and refused from then on', async () => {
    const t = target();
    // Enterprise: the probes stay far below its read quota.
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const revocation = await t.admin.revokeKey(keyId);
    expect(revocation.edges.map((e) => e.edge)).toEqual(['edge-0', 'edge-1', 'edge-2']);
    for (const e of revocation.edges) {
      expect(e.effectiveAt - revocation.revokedAt).toBeGreaterThanOrEqual(DELAY_MS);
      expect(e.effectiveAt - revocation.revokedAt).toBeLessThanOrEqual(DELAY_MS + JITTER_MS);
    }
    const lastEffective = Math.max(...revocation.edges.map((e) => e.effectiveAt));
    const perEdge = await Promise.all(t.target.edges.map((url) => probe(url, key, lastEffective + 150)));
    perEdge.forEach((samples, i) => {
      const effectiveAt = revocation.edges[i]!.effectiveAt;
      for (const s of samples) {
        if (s.receivedAt < effectiveAt) expect(s.status).toBe(200);
        if (s.sentAt >= effectiveAt) {
          expect(s.status).toBe(401);
          expect(s.json.reason).toBe('revoked');
        }
      }
      // Both sides of the boundary were observed on this edge.
      expect(samples.some((s) => s.status === 200)).toBe(true);
      expect(samples.at(-1)!.status).toBe(401);
      // Sticky: once refused, never admitted again.
      const firstRefused = samples.findIndex((s) => s.status === 401);
      expect(samples.slice(firstRefused).every((s) => s.status === 401)).toBe(true);
    });

    const again = await t.admin.revokeKey(keyId);
    expect(again).toEqual(revocation);
    const [listed] = (await t.admin.listOrgs()).filter((o) => o.keys.some((k) => k.id === keyId));
    expect(listed!.keys.find((k) => k.id === keyId)!.revokedAt).toBe(revocation.revokedAt);
  });

  it('a revocation leaves the organization’s other keys working', async () => {
    const t = target();
    const first = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const second = await t.admin.createKey(first.orgId, ['jobs.read'], 'live');
    const { edges } = await t.admin.revokeKey(first.keyId);
    await sleep(Math.max(...edges.map((e) => e.effectiveAt)) - Date.now() + 5);
    for (const url of t.target.edges) {
      expect((await call(url, '/recruiter/jobs', { key: first.key })).status).toBe(401);
      expect((await call(url, '/recruiter/jobs', { key: second.key })).status).toBe(200);
    }
  });
});
