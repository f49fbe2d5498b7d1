/**
 * The precise probe's connections: HEAD probes, sent every few ms by revocation trials, reuse them;
 * `warm` opens the connections a series is about to use; idle connections outlive a wait between
 * series. Each test counts the server's 'connection' events. Under a declared header dialect, an
 * answer is read by the policy its request's quota class goes by.
 */
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, onTestFinished, test } from 'vitest';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { edgeOf, loopbackProber } from '../helpers/loopback-prober.ts';

const TAGS = { check: 'WINDOW-SYNC', phase: 'window-sync', tier: null, org: null } as const;
const HEAD = { method: 'HEAD', path: '/recruiter/bootstrap', key: null } as const;

/** A server answering 401 as the reference target does, counting its connections; a prober of `connections` per edge on it. */
async function proberOnCountingServer(connections: number, configure: (server: Server) => void = () => {}) {
  const body = '{"status":"error"}';
  // As the reference target answers: HEAD gets GET's Content-Length and no body.
  const server = createServer((req, res) => {
    res.statusCode = 401;
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  configure(server);
  const counted = { connections: 0 };
  server.on('connection', () => (counted.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const recorder = new ObservationRecorder(null);
  const prober = loopbackProber([edgeOf(server)], { recorder, connectionsPerEdge: connections });
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { prober, edge: prober.edges[0]!, counted, recorder };
}

test("HEAD probes one after another reuse the pool's connections instead of opening one each", async () => {
  const { prober, edge, counted } = await proberOnCountingServer(4);
  const statuses: (number | null)[] = [];
  for (let i = 0; i < 20; i++) statuses.push((await prober.send(edge, HEAD, TAGS)).status);
  expect(statuses).toEqual(Array.from({ length: 20 }, () => 401));
  expect(counted.connections).toBeLessThanOrEqual(prober.connectionsPerEdge);
});

test('after warm(edge, n) the next n requests at once use the n connections it opened', async () => {
  const { prober, edge, counted } = await proberOnCountingServer(8);
  const warmed = await prober.warm(edge, 3);
  expect(warmed.map((o) => [o.check, o.phase, o.status, o.key, o.org])).toEqual(
    Array.from({ length: 3 }, () => ['CONNECT', 'warm-up', 401, null, null]),
  );
  expect(counted.connections).toBe(3);
  const series = await Promise.all(Array.from({ length: 3 }, () => prober.send(edge, HEAD, TAGS)));
  expect(series.map((o) => o.status)).toEqual([401, 401, 401]);
  expect(counted.connections).toBe(3);
});

test('warm opens no more connections than the prober holds per edge, each request recorded', async () => {
  const { prober, edge, counted, recorder } = await proberOnCountingServer(4);
  const warmed = await prober.warm(edge, 10);
  expect(warmed).toHaveLength(4);
  expect(recorder.count).toBe(4);
  expect(counted.connections).toBe(4);
});

test("an idle connection outlives undici's default keep-alive (4 s) where the server gives no hint", async () => {
  // keepAliveTimeout 0: the server neither times idle connections out nor sends a Keep-Alive hint.
  const { prober, edge, counted } = await proberOnCountingServer(1, (server) => (server.keepAliveTimeout = 0));
  await prober.warm(edge, 1);
  // Past undici's default and its timer's half-second tick: a wait between two series.
  await sleep(5500);
  expect((await prober.send(edge, HEAD, TAGS)).status).toBe(401);
  expect(counted.connections).toBe(1);
});

test("under a declared dialect, each answer is read by the policy of its request's quota class", async () => {
  // One answer reporting both quotas, as a deployment may: which one is a request's is declared by name.
  const server = createServer((_req, res) => {
    res.setHeader('ratelimit-policy', '"r";q=60;w=60, "i";q=20;w=60');
    res.setHeader('ratelimit', '"r";r=59;t=42, "i";r=19;t=41');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proberReading = (policies: Readonly<Record<string, string>>) =>
    loopbackProber([edgeOf(server)], { rateLimitReader: { dialect: 'ietf', policies } });
  const declared = proberReading({ read: 'r', ingest: 'i' });
  const undeclared = proberReading({});
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  const read = { method: 'GET', path: '/recruiter/jobs', key: null } as const;
  const upload = { method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', key: null, body: 'x' } as const;
  const figures = async (prober: HttpProber, request: typeof read | typeof upload) => {
    const { rateLimit } = await prober.send(prober.edges[0]!, request, TAGS);
    return [rateLimit.limit.value, rateLimit.remaining.value, rateLimit.reset.value, rateLimit.dialect?.policy?.name];
  };
  expect(await figures(declared, read)).toEqual([60, 59, 42, 'r']);
  expect(await figures(declared, upload)).toEqual([20, 19, 41, 'i']);
  // No name declared: the first quota the answer reports, whatever the request.
  expect(await figures(undeclared, upload)).toEqual([60, 59, 42, 'r']);
});
