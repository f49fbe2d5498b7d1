/**
 * §8 concurrency cap (assumption concurrency-status): with the cap of slow uploads in flight for
 * an org, across edges, one more is refused at once with 429 and the §7 body, consuming no quota.
 * Held requests are known to be in flight from the server's own counts: a key without the upload
 * scope gets 403 with the ingest bucket's Remaining, which drops as the held uploads are admitted.
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import {
  call,
  inOneWindow,
  keyOf,
  orgWithKey,
  sleep,
  track,
  untilRemaining,
  useTarget,
  type Answer,
  type OrgKey,
  type TestTarget,
  type Tracked,
} from '../helpers/target.ts';

const WINDOW_MS = 4000;
const PARSE_MS = 1500;
const target = useTarget({ windowMs: WINDOW_MS, edges: 2, parseMs: PARSE_MS });
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = (key: string, signal?: AbortSignal) =>
  ({ method: 'POST', key, headers: { 'content-type': 'text/plain' }, body: 'Jane Doe\nGo, SQL\n', ...(signal ? { signal } : {}) }) as const;

/** Poll until the org's ingest Remaining shows `remaining`: the probe key lacks the scope, so 403s count nothing. */
const untilIngestRemaining = (t: TestTarget, probe: OrgKey, remaining: number, seen: Answer[]) =>
  untilRemaining(t.edge(), UPLOAD, upload(probe.key), remaining, seen);

/** `n` slow uploads, alternating between the two edges. */
const hold = (t: TestTarget, key: string, n: number, signal?: AbortSignal): Tracked[] =>
  Array.from({ length: n }, (_, i) => track(call(t.edge(i % 2), UPLOAD, upload(key, signal))));

describe('concurrency cap per organization', () => {
  it('admits the cap across edges, refuses one more at once with the §7 429, and counts no quota for it', async () => {
    const t = target();
    const run = await inOneWindow(WINDOW_MS, async () => {
      const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
      const probe = await keyOf(t.admin, org.orgId, []);
      const other = await orgWithKey(t.admin, 'starter', ['resume.parse']);
      const polls: Answer[] = [];
      const held = hold(t, org.key, 5);
      const allIn = await untilIngestRemaining(t, probe, 10 - 5, polls);
      const extra = await call(t.edge(1), UPLOAD, upload(org.key));
      const heldWhileExtra = held.every((h) => !h.done());
      const otherOrg = call(t.edge(0), UPLOAD, upload(other.key));
      const after = await call(t.edge(), UPLOAD, upload(probe.key));
      const answers = await Promise.all(held.map((h) => h.answer));
      return { answers: [...polls, ...answers, extra, after, await otherOrg], held: answers, allIn, extra, heldWhileExtra, after, otherOrg: await otherOrg };
    });
    expect(run.allIn).toBe(true);
    expect(run.heldWhileExtra).toBe(true);
    expect(run.held.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(run.extra.status).toBe(429);
    const body = rateLimitErrorBody.parse(run.extra.json);
    expect(Number(run.extra.headers['retry-after'])).toBe(body.retry_after_seconds);
    expect(run.extra.headers['x-edge-node']).toBe('edge-1');
    expect([run.extra.limit, run.extra.remaining]).toEqual([10, 5]);
    expect(run.after.remaining).toBe(5);
    expect(run.otherOrg.status).toBe(200);
  });

  it('frees a slot when the client goes away mid-request', async () => {
    const t = target();
    const run = await inOneWindow(WINDOW_MS, async () => {
      const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
      const probe = await keyOf(t.admin, org.orgId, []);
      const polls: Answer[] = [];
      const controller = new AbortController();
      const held = hold(t, org.key, 5, controller.signal);
      const allIn = await untilIngestRemaining(t, probe, 5, polls);
      const refused = await call(t.edge(), UPLOAD, upload(org.key));
      controller.abort();
      await Promise.allSettled(held.map((h) => h.answer));
      // The server notices the closed sockets asynchronously: retry (bounded) until a slot is free.
      let admitted: Answer | null = null;
      for (let i = 0; i < 100 && !admitted; i++) {
        const a = await call(t.edge(), UPLOAD, upload(org.key));
        polls.push(a);
        if (a.status === 200) admitted = a;
        else await sleep(10);
      }
      return { answers: [...polls, refused], allIn, refused, admitted };
    });
    expect(run.allIn).toBe(true);
    expect(run.refused.status).toBe(429);
    expect(run.admitted?.status).toBe(200);
  });
});
