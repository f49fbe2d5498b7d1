/**
 * A flaky network for tests: the test bed's proxy (test/limiters/lib/flaky-proxy.ts: about one
 * request in N dropped unanswered, everything else passed byte for byte, at a distance and behind
 * TLS if asked) in front of any loopback target, the embedded reference target's edges included,
 * closed when the test finishes.
 *
 *   const proxy = await startTestFlakyProxy({ target: t.edge(0), dropOneIn: 200 });
 *   // point the run at proxy.url; proxy.drops lists what was lost
 *   const far = await startTestFlakyProxy({ target: t.edge(0), latencyMs: 80, jitterMs: 10, tls: 'valid' });
 *   // far.url is https://…, trusted through far.ca; far.dropConnections() resets every connection
 */
import { onTestFinished } from 'vitest';
import { startFlakyProxy, type FlakyProxy, type FlakyProxyOptions } from '../limiters/lib/flaky-proxy.ts';

export { dropDecider, startFlakyProxy } from '../limiters/lib/flaky-proxy.ts';
export type { DroppedRequest, FlakyProxy, FlakyProxyOptions } from '../limiters/lib/flaky-proxy.ts';

/** A proxy for the current test only, closed when it finishes. */
export async function startTestFlakyProxy(options: FlakyProxyOptions): Promise<FlakyProxy> {
  const proxy = await startFlakyProxy(options);
  onTestFinished(() => proxy.close());
  return proxy;
}

/** One proxy per edge (seeds seed, seed + 1, …, so the edges do not drop in step). */
export async function startTestFlakyProxies(
  edges: readonly string[],
  options: Omit<FlakyProxyOptions, 'target'>,
): Promise<FlakyProxy[]> {
  return Promise.all(
    edges.map((target, i) => startTestFlakyProxy({ ...options, target, seed: (options.seed ?? 1) + i })),
  );
}
