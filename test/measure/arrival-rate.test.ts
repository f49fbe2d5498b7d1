/**
 * The arrival-rate driver's correctness, without speed thresholds (speed is bench/load.ts's):
 * the count it sends is rate × duration, intended send times are evenly spaced, every response is
 * recorded with its rate-limit headers, and it stays inside its bounds: in-flight per stream,
 * request count, time, and interruption.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import {
  ArrivalRateDriver,
  dueOffsetMs,
  scheduledCount,
  type ArrivalPlan,
  type ArrivalRateOptions,
} from '../../src/measure/arrival-rate.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { loadPhaseName } from '../../src/measure/tags.ts';

const KEY = 'xh_test_' + 'a'.repeat(28) + 'Zz90';

/** A tiny server answering 200 (or `reject`'s 429) with rate-limit headers after `delayMs`, counting requests in flight. */
async function server(delayMs = 0, reject = false) {
  let inFlight = 0;
  let maxInFlight = 0;
  let received = 0;
  const keys = new Set<string>();
  const s = createServer((req: IncomingMessage, res: ServerResponse) => {
    received += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    keys.add(String(req.headers['x-api-key']));
    setTimeout(() => {
      inFlight -= 1;
      if (reject) {
        // Header names in mixed case and one sent twice: the driver must match names as HTTP does.
        res.writeHead(429, [
          ['X-RateLimit-Limit', '60'],
          ['X-RateLimit-Remaining', '0'],
          ['Retry-After', '12'],
          ['X-Edge-Node', 'edge-7'],
          ['X-Edge-Node', 'edge-8'],
          ['Content-Type', 'application/json'],
        ]);
        res.end(`{"error":"rate_limited","pad":"${'x'.repeat(1000)}"}`);
        return;
      }
      res.writeHead(200, {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '7',
        'x-ratelimit-reset': '1764000060',
        'content-type': 'application/json',
      });
      res.end('{"status":"success"}');
    }, delayMs);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    stats: () => ({ inFlight, maxInFlight, received, keys }),
  };
}

function driver(url: string, overrides: Partial<ArrivalRateOptions> = {}) {
  const epoch = performance.now();
  let id = 0;
  const d = new ArrivalRateDriver({
    edges: [{ label: 'edge-0', url }],
    headers: recruitingApi.headers,
    connectionsPerEdge: 16,
    timeoutMs: 2000,
    now: () => performance.now() - epoch,
    wallNow: () => Date.now(),
    nextId: () => ++id,
    signal: new AbortController().signal,
    ...overrides,
  });
  onTestFinished(() => d.close());
  return { d, now: () => performance.now() - epoch };
}

const plan = (overrides: Partial<ArrivalPlan> & Pick<ArrivalPlan, 'sink'>): ArrivalPlan => ({
  check: 'LOAD-THRESHOLDS',
  phase: loadPhaseName('test'),
  request: { method: 'GET', path: '/recruiter/jobs' },
  streams: [{ org: 'starter-a', tier: 'starter', key: KEY, ratePerS: 200, maxInFlight: 8 }],
  startAt: 0,
  durationMs: 1000,
  ...overrides,
});

describe('the schedule', () => {
  it('counts rate × duration, the first request half an interval in', () => {
    expect(scheduledCount(200, 1000)).toBe(200);
    expect(scheduledCount(30, 2000)).toBe(60);
    expect(scheduledCount(3.3, 1000)).toBe(3);
    expect(scheduledCount(0, 1000)).toBe(0);
    expect(dueOffsetMs(0, 200)).toBe(2.5);
    expect(dueOffsetMs(199, 200)).toBeLessThan(1000);
  });
});

describe('ArrivalRateDriver', () => {
  it('sends rate × duration requests (±1) at evenly spaced intended times and records each response', async () => {
    const target = await server();
    const { d, now } = driver(target.url);
    const seen: Observation[] = [];
    const stats = await d.run(plan({ startAt: now() + 20, sink: (o) => seen.push(o) }));
    expect(Math.abs(stats.sent - 200)).toBeLessThanOrEqual(1);
    expect(stats).toMatchObject({ scheduled: 200, completed: stats.sent, failed: 0, dropped: 0 });
    expect(seen).toHaveLength(stats.sent);
    const intended = seen.map((o) => o.intendedAt!).sort((a, b) => a - b);
    const gaps = intended.slice(1).map((t, i) => t - intended[i]!);
    for (const gap of gaps) expect(gap).toBeCloseTo(5, 6);
    for (const o of seen) {
      expect(o.sentAt).toBeGreaterThanOrEqual(o.intendedAt!);
      expect(o.doneAt).toBeGreaterThanOrEqual(o.sentAt);
    }
    const first = seen[0]!;
    expect(first).toMatchObject({
      status: 200,
      check: 'LOAD-THRESHOLDS',
      phase: 'test',
      org: 'starter-a',
      tier: 'starter',
      path: '/recruiter/jobs',
      error: null,
    });
    expect(first.rateLimit.limit.value).toBe(60);
    expect(first.rateLimit.remaining.value).toBe(7);
    expect(first.rateLimit.reset.value).toBe(1764000060);
    expect(first.date).not.toBeNull();
    // Only the redacted key is recorded; the full one was sent.
    expect(first.key).toBe('xh_test_…Zz90');
    expect(target.stats().keys).toEqual(new Set([KEY]));
    expect(new Set(seen.map((o) => o.id)).size).toBe(seen.length);
  });

  it('records a rejection: its headers by name in any case, its Retry-After, the first bytes of its body', async () => {
    const target = await server(0, true);
    const { d, now } = driver(target.url);
    const seen: Observation[] = [];
    await d.run(
      plan({
        startAt: now(),
        durationMs: 50,
        streams: [{ org: 'a', tier: 'starter', key: KEY, ratePerS: 40, maxInFlight: 2 }],
        sink: (o) => seen.push(o),
      }),
    );
    expect(seen).toHaveLength(2);
    const o = seen[0]!;
    expect(o).toMatchObject({ status: 429, edgeNode: 'edge-7, edge-8', contentType: 'application/json' });
    expect(o.rateLimit).toEqual({
      limit: { raw: '60', value: 60 },
      remaining: { raw: '0', value: 0 },
      reset: { raw: null, value: null },
      retryAfter: { raw: '12', value: 12 },
    });
    expect(o.bodyBytes).toBe(1033);
    expect(o.bodyExcerpt).toHaveLength(512);
    expect(o.bodyExcerpt.startsWith('{"error":"rate_limited"')).toBe(true);
    expect(o.headersAt).not.toBeNull();
  });

  it('interleaves several streams, each at its own rate', async () => {
    const target = await server();
    const { d, now } = driver(target.url);
    const seen: Observation[] = [];
    await d.run(
      plan({
        startAt: now() + 10,
        durationMs: 500,
        streams: [
          { org: 'a', tier: 'starter', key: KEY, ratePerS: 100, maxInFlight: 4 },
          { org: 'b', tier: 'starter', key: KEY, ratePerS: 40, maxInFlight: 4 },
        ],
        sink: (o) => seen.push(o),
      }),
    );
    expect(seen.filter((o) => o.org === 'a')).toHaveLength(50);
    expect(seen.filter((o) => o.org === 'b')).toHaveLength(20);
  });

  it('keeps each stream under its in-flight bound, sending held requests late (latency counts it)', async () => {
    const target = await server(30);
    const { d, now } = driver(target.url);
    const seen: Observation[] = [];
    const stats = await d.run(
      plan({
        startAt: now() + 10,
        durationMs: 300,
        streams: [{ org: 'a', tier: null, key: null, ratePerS: 200, maxInFlight: 2 }],
        overrunMs: 0,
        sink: (o) => seen.push(o),
      }),
    );
    expect(target.stats().maxInFlight).toBeLessThanOrEqual(2);
    // 60 were due; two at a time at 30 ms each, far fewer fit: the rest are dropped at the deadline.
    expect(stats.dropped).toBeGreaterThan(0);
    expect(stats.sent + stats.dropped).toBe(60);
    const late = seen.filter((o) => o.sentAt - o.intendedAt! > 20);
    expect(late.length).toBeGreaterThan(0);
  });

  it('stops at maxRequests', async () => {
    const target = await server();
    const { d, now } = driver(target.url);
    const stats = await d.run(plan({ startAt: now(), maxRequests: 25, sink: () => {} }));
    expect(stats.sent).toBe(25);
    expect(target.stats().received).toBe(25);
  });

  it('stops sending when interrupted', async () => {
    const target = await server();
    const controller = new AbortController();
    const { d, now } = driver(target.url, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const started = now();
    const stats = await d.run(plan({ startAt: now(), durationMs: 5000, sink: () => {} }));
    expect(now() - started).toBeLessThan(2000);
    expect(stats.sent).toBeLessThan(200);
    expect(stats.dropped).toBe(stats.scheduled - stats.sent);
  });

  it('records a transport failure as an observation without a status', async () => {
    const target = await server();
    const url = target.url;
    const { d, now } = driver(url.replace(/:\d+$/, ':1'), { timeoutMs: 500 });
    const seen: Observation[] = [];
    const stats = await d.run(
      plan({
        startAt: now(),
        durationMs: 50,
        streams: [{ org: 'a', tier: null, key: null, ratePerS: 40, maxInFlight: 2 }],
        sink: (o) => seen.push(o),
      }),
    );
    expect(stats.failed).toBe(2);
    expect(seen.every((o) => o.status === null && o.error !== null)).toBe(true);
  });

  it('refuses a non-loopback edge', () => {
    expect(() => driver('http://192.0.2.1:8080')).toThrow(expect.objectContaining({ code: 'TG_NOT_LOOPBACK' }));
  });
});
