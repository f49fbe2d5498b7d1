/** A prober for a test's own loopback server: one edge, the recruiting API, a recorder of its own, closed when the test ends. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { HttpProber, type ProberOptions } from '../../src/measure/http-prober.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import { systemClock } from '../../src/util/io.ts';

/** The edge a listening `server` is, as a prober names it. */
export const edgeOf = (server: Server) => ({
  label: 'edge-0',
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
});

/** A prober of `edges`, options as given over the defaults; aborted and closed when the test ends. */
export function loopbackProber(
  edges: ProberOptions['edges'],
  options: Partial<Omit<ProberOptions, 'edges' | 'signal'>> = {},
): HttpProber {
  const controller = new AbortController();
  const prober = new HttpProber({
    edges,
    contract: recruitingApi,
    clock: systemClock,
    epoch: 0,
    recorder: new ObservationRecorder(null),
    timeoutMs: 5000,
    connectionsPerEdge: 1,
    signal: controller.signal,
    ...options,
  });
  onTestFinished(async () => {
    controller.abort();
    await prober.close();
  });
  return prober;
}
