/**
 * The precise prober's connection pool: pipelining 1 (one request per connection at a time, so a
 * response's latency is its own), no retries, and every phase under the same timeout. The load
 * driver keeps the same rules on its own connections (load-pool.ts).
 */
import { Pool } from 'undici';

/** `ca`: PEM of the CA to trust for an https:// edge, in place of the system's. */
export function measuringPool(url: string, connections: number, timeoutMs: number, ca?: string): Pool {
  return new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    ...(ca === undefined ? {} : { connect: { ca } }),
  });
}
