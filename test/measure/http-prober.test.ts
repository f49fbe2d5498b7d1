/** The precise probe's connections: HEAD probes, sent every few ms by revocation trials, reuse them. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { systemClock } from '../../src/util/io.ts';

test("HEAD probes one after another reuse the pool's connections instead of opening one each", async () => {
  let connections = 0;
  const body = '{"status":"error"}';
  // As the reference target answers: HEAD gets GET's Content-Length and no body.
  const server = createServer((req, res) => {
    res.statusCode = 401;
    res.setHeader('content-type', 'application/json');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const controller = new AbortController();
  const edge = { label: 'edge-0', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  const recorder = new ObservationRecorder(null);
  const prober = new HttpProber({
    edges: [edge],
    contract: recruitingApi,
    clock: systemClock,
    epoch: 0,
    recorder,
    timeoutMs: 5000,
    connectionsPerEdge: 4,
    signal: controller.signal,
  });
  try {
    const tags = { check: 'WINDOW-SYNC', phase: 'window-sync', tier: null, org: null } as const;
    const statuses: (number | null)[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push(
        (await prober.send(prober.edges[0]!, { method: 'HEAD', path: '/recruiter/bootstrap', key: null }, tags)).status,
      );
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 401));
    expect(connections).toBeLessThanOrEqual(prober.connectionsPerEdge);
  } finally {
    controller.abort();
    await prober.close();
    server.closeAllConnections();
    server.close();
  }
});
