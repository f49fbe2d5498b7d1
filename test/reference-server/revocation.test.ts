/**
 * Edge nodes share one state; a revocation (§5.9) reaches each edge at its own scheduled time. The
 * target runs on a ManualClock: each edge is asked one millisecond before its effectiveAt (admitted)
 * and at it (refused), and then ever after (still refused).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, useTarget } from '../helpers/target.ts';

const DELAY_MS = 800;
const JITTER_MS = 400;
const clock = new ManualClock();
const target = useTarget({
  windowMs: 60_000,
  edges: 3,
  revocationDelayMs: DELAY_MS,
  revocationJitterMs: JITTER_MS,
  clock,
});

/** The status each edge answers the key with, now. */
async function statusesOnEdges(edges: readonly string[], key: string): Promise<number[]> {
  return Promise.all(edges.map(async (url) => (await call(url, '/recruiter/jobs', { key })).status));
}

describe('edge nodes', () => {
  it('each edge names itself and all share one organization state and quota', async () => {
    const t = target();
    const { key } = await orgWithKey(t.admin, 'starter', ['jobs.read']);
    const answers = [
      await call(t.edge(0), '/recruiter/jobs', { key }),
      await call(t.edge(1), '/recruiter/jobs', { key }),
      await call(t.edge(2), '/recruiter/jobs', { key }),
    ];
    expect(answers.map((a) => a.headers['x-edge-node'])).toEqual(['edge-0', 'edge-1', 'edge-2']);
    expect(answers.map((a) => [a.status, a.remaining])).toEqual([
      [200, 59],
      [200, 58],
      [200, 57],
    ]);
    const ports = t.target.edges.map((u) => new URL(u).port);
    expect(new Set(ports).size).toBe(3);
  });

  it('a revoked key is admitted on each edge until its scheduled time, and refused from then on', async () => {
    const t = target();
    // Enterprise: the probes stay far below its read quota.
    const { key, keyId } = await orgWithKey(t.admin, 'enterprise', ['jobs.read']);
    const revocation = await t.admin.revokeKey(keyId);
    expect(revocation.revokedAt).toBe(clock.now());
    expect(revocation.edges.map((e) => e.edge)).toEqual(['edge-0', 'edge-1', 'edge-2']);
    for (const e of revocation.edges) {
      expect(e.effectiveAt - revocation.revokedAt).toBeGreaterThanOrEqual(DELAY_MS);
      expect(e.effectiveAt - revocation.revokedAt).toBeLessThanOrEqual(DELAY_MS + JITTER_MS);
    }
    // Step through every edge's last admitted and first refused millisecond, earliest first; at each
    // step every edge answers by its own schedule.
    const moments = [...new Set(revocation.edges.flatMap((e) => [e.effectiveAt - 1, e.effectiveAt]))].sort(
      (a, b) => a - b,
    );
    for (const at of [revocation.revokedAt, ...moments, revocation.revokedAt + 60_000]) {
      clock.set(at);
      const expected = revocation.edges.map((e) => (at < e.effectiveAt ? 200 : 401));
      expect({ at, statuses: await statusesOnEdges(t.target.edges, key) }).toEqual({ at, statuses: expected });
    }
    const refused = await call(t.edge(2), '/recruiter/jobs', { key });
    expect(refused.json.reason).toBe('revoked');

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
    clock.set(Math.max(...edges.map((e) => e.effectiveAt)));
    expect(await statusesOnEdges(t.target.edges, first.key)).toEqual([401, 401, 401]);
    expect(await statusesOnEdges(t.target.edges, second.key)).toEqual([200, 200, 200]);
  });
});
