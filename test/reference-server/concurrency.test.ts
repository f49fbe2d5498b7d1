/**
 * §8 concurrency cap (assumption concurrency-status): with the cap of slow uploads in flight for
 * an org, across edges, one more is refused at once with 429 and the §7 body, consuming no quota.
 * The target runs on a ManualClock, so an admitted upload stays in flight (waiting out its parse
 * time) until the test moves the clock: the clock's pending waits say how many are held, and a key
 * without the upload scope reads the server's own count (403, with the ingest bucket's Remaining).
 */
import { describe, expect, it } from 'vitest';
import { rateLimitErrorBody } from '../../src/contract/error-body.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, keyOf, orgWithKey, sleep, track, useTarget, type TestTarget, type Tracked } from '../helpers/target.ts';

const PARSE_MS = 1500;
const clock = new ManualClock();
const target = useTarget({ edges: 2, parseMs: PARSE_MS, clock });
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const upload = (key: string, signal?: AbortSignal) =>
  ({
    method: 'POST',
    key,
    headers: { 'content-type': 'text/plain' },
    body: 'Jane Doe\nGo, SQL\n',
    ...(signal ? { signal } : {}),
  }) as const;

/** `n` slow uploads, alternating between the two edges, once all of them are in flight. */
async function hold(t: TestTarget, key: string, n: number, signal?: AbortSignal): Promise<Tracked[]> {
  const waiting = clock.pending;
  const held = Array.from({ length: n }, (_, i) => track(call(t.edge(i % 2), UPLOAD, upload(key, signal))));
  await clock.untilPending(waiting + n);
  return held;
}

describe('concurrency cap per organization', () => {
  it('admits the cap across edges, refuses one more at once with the §7 429, and counts no quota for it', async () => {
    const t = target();
    clock.toNextWindow(t.windowMs);
    const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
    const probe = await keyOf(t.admin, org.orgId, []);
    const other = await orgWithKey(t.admin, 'starter', ['resume.parse']);
    const held = await hold(t, org.key, 5);
    const before = await call(t.edge(), UPLOAD, upload(probe.key));
    const extra = await call(t.edge(1), UPLOAD, upload(org.key));
    const after = await call(t.edge(), UPLOAD, upload(probe.key));
    const [otherOrg] = await hold(t, other.key, 1);
    expect(held.some((h) => h.done())).toBe(false);
    clock.advance(PARSE_MS);
    const answers = await Promise.all(held.map((h) => h.answer));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect([before.status, before.remaining]).toEqual([403, 5]);
    expect(extra.status).toBe(429);
    const body = rateLimitErrorBody.parse(extra.json);
    expect(Number(extra.headers['retry-after'])).toBe(body.retry_after_seconds);
    expect(extra.headers['x-edge-node']).toBe('edge-1');
    expect([extra.limit, extra.remaining]).toEqual([10, 5]);
    expect(after.remaining).toBe(5);
    expect((await otherOrg!.answer).status).toBe(200);
  });

  it('frees a slot when the client goes away mid-request', async () => {
    const t = target();
    clock.toNextWindow(t.windowMs);
    const org = await orgWithKey(t.admin, 'starter', ['resume.parse']);
    const controller = new AbortController();
    const held = await hold(t, org.key, 5, controller.signal);
    const refused = await call(t.edge(), UPLOAD, upload(org.key));
    expect(refused.status).toBe(429);
    controller.abort();
    await Promise.allSettled(held.map((h) => h.answer));
    // The five aborted uploads still wait out their parse time: only their closed connections can free the slots.
    const gone = clock.pending;
    expect(gone).toBe(5);
    // The server notices the closed sockets asynchronously: retry (bounded) until an upload is
    // admitted, which it shows by waiting out its parse time on the clock.
    let admitted: Tracked | null = null;
    for (let i = 0; i < 100 && !admitted; i++) {
      const attempt = track(call(t.edge(), UPLOAD, upload(org.key)));
      // An answer before the clock moves is a refusal.
      const inFlight = await Promise.race([
        attempt.answer.then(() => false),
        clock.untilPending(gone + 1).then(() => true),
      ]);
      if (inFlight) admitted = attempt;
      else await sleep(10);
    }
    expect(admitted).not.toBeNull();
    clock.advance(PARSE_MS);
    expect((await admitted!.answer).status).toBe(200);
  });
});
