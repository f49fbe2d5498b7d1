/**
 * The connection pool every measuring driver uses: pipelining 1 (one request per connection at a
 * time, so a response's latency is its own), no retries, and every phase under the same timeout.
 */
import { Pool } from 'undici';

export function measuringPool(url: string, connections: number, timeoutMs: number): Pool {
  return new Pool(url, { connections, pipelining: 1, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
}
