/**
 * The arrival-rate driver under a declared rate-limit dialect: it picks that dialect's fields and
 * Retry-After out of the bytes and reads them as every Observation's rate-limit fields are read
 * (rateLimitHeadersOf), so for one response it records exactly what the precise prober records.
 * Under §8's X-RateLimit-* it ignores the dialects' fields, and under a dialect the triple.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import {
  renderRateLimitFields,
  RATE_LIMIT_DIALECT_NAMES,
  type RateLimitFigures,
} from '../../src/contract/rate-limit-dialects.ts';
import { ArrivalRateDriver } from '../../src/measure/arrival-rate.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { rateLimitHeadersOf, type RateLimitReader } from '../../src/measure/rate-limit-reading.ts';
import { loadPhaseName } from '../../src/measure/tags.ts';

const NOW = 1_795_818_900_000;
const figures: RateLimitFigures = {
  now: NOW,
  quota: { policy: 'ingest', limit: 20, remaining: 0, resetMs: NOW + 42_000, partitionKey: 'b3JnLWE=' },
  policies: [
    { name: 'read', quota: 60, windowS: 60, partitionKey: 'b3JnLWE=' },
    { name: 'ingest', quota: 20, windowS: 60 },
  ],
};

/** Every dialect's fields at once, in mixed case, the policy field split over two lines, and Retry-After. */
function sentHeaders(): [string, string][] {
  const lines: [string, string][] = [];
  for (const dialect of RATE_LIMIT_DIALECT_NAMES) {
    for (const [name, value] of renderRateLimitFields(dialect, figures)) {
      const mixed = name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
      if (lines.some(([n]) => n.toLowerCase() === name)) continue;
      if (name === 'ratelimit-policy' && dialect === 'ietf') {
        // "read";q=60;w=60;pk=:…:, "ingest";q=20;w=60 as two lines of one field (RFC 9110 §5.3).
        const [first, ...rest] = value.split(', ');
        lines.push([mixed, first!], [mixed, rest.join(', ')]);
      } else lines.push([mixed, value]);
    }
  }
  lines.push(['Retry-After', '42']);
  return lines;
}

/** The headers as Node's client gives them: lower-case names, a repeated field as a list. */
function asNodeGivesThem(lines: readonly [string, string][]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    const before = headers[key];
    headers[key] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return headers;
}

async function server(lines: readonly [string, string][]) {
  const s = createServer((_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(429, [...lines, ['Content-Type', 'application/json']]);
    res.end('{"error":"rate_limited"}');
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function oneResponse(url: string, reader?: RateLimitReader): Promise<Observation> {
  const epoch = performance.now();
  const now = () => performance.now() - epoch;
  let id = 0;
  const driver = new ArrivalRateDriver({
    edges: [{ label: 'edge-0', url }],
    headers: recruitingApi.headers,
    connectionsPerEdge: 1,
    timeoutMs: 2000,
    now,
    wallNow: () => Date.now(),
    nextId: () => ++id,
    signal: new AbortController().signal,
    rateLimitReader: reader,
  });
  onTestFinished(() => driver.close());
  const seen: Observation[] = [];
  await driver.run({
    check: 'LOAD-THRESHOLDS',
    phase: loadPhaseName('test'),
    request: { method: 'GET', path: '/recruiter/jobs' },
    streams: [{ org: 'a', tier: 'starter', key: null, ratePerS: 100, maxInFlight: 1 }],
    startAt: now(),
    durationMs: 10,
    sink: (o) => seen.push(o),
  });
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

describe('the arrival-rate driver under a declared dialect', () => {
  const lines = sentHeaders();
  const node = asNodeGivesThem(lines);

  it.each(RATE_LIMIT_DIALECT_NAMES)(
    '%s: records the figures rateLimitHeadersOf reads from the same response',
    async (dialect) => {
      const url = await server(lines);
      for (const policyName of dialect === 'ietf' ? [null, 'ingest', 'read'] : [null]) {
        const reader: RateLimitReader = { dialect, policies: policyName === null ? {} : { read: policyName } };
        const o = await oneResponse(url, reader);
        expect(o.status).toBe(429);
        expect(o.rateLimit).toEqual(rateLimitHeadersOf(node, recruitingApi.headers, reader));
      }
    },
  );

  it('reads the policy a declaration names, the pk of each kept as sent', async () => {
    const url = await server(lines);
    const ingest = await oneResponse(url, { dialect: 'ietf', policies: { read: 'ingest' } });
    expect(ingest.rateLimit.limit.value).toBe(20);
    expect(ingest.rateLimit.remaining.value).toBe(0);
    expect(ingest.rateLimit.reset.value).toBe(42);
    expect(ingest.rateLimit.retryAfter).toEqual({ raw: '42', value: 42 });
    expect(ingest.rateLimit.dialect).toMatchObject({ name: 'ietf', problems: [] });
    expect(ingest.rateLimit.dialect!.fields['ratelimit-policy']).toBe(
      (node['ratelimit-policy'] as string[]).join(', '),
    );
    // RateLimit reports "ingest" alone: a declaration naming "read" finds no quota reported.
    const read = await oneResponse(url, { dialect: 'ietf', policies: { read: 'read' } });
    expect(read.rateLimit.remaining).toEqual({ raw: node.ratelimit, value: null });
  });

  it("without a declaration reads §8's triple alone, as it always did", async () => {
    const url = await server(lines);
    const o = await oneResponse(url);
    expect(o.rateLimit).toEqual({
      limit: { raw: '20', value: 20 },
      remaining: { raw: '0', value: 0 },
      reset: { raw: String(Math.ceil((NOW + 42_000) / 1000)), value: Math.ceil((NOW + 42_000) / 1000) },
      retryAfter: { raw: '42', value: 42 },
    });
    expect(o.rateLimit.dialect).toBeUndefined();
  });

  it('reads a request that got no response as rateLimitHeadersOf reads no headers', async () => {
    const reader: RateLimitReader = { dialect: 'ietf-draft-7', policies: {} };
    // A port nothing listens on: the connection is refused before any header.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const o = await oneResponse(`http://127.0.0.1:${port}`, reader);
    expect(o.status).toBeNull();
    expect(o.rateLimit).toEqual(rateLimitHeadersOf({}, recruitingApi.headers, reader));
  });
});
