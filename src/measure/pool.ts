/**
 * The precise prober's connection pool: pipelining 1 (one request per connection at a time, so a
 * response's latency is its own), no retries, and every phase under the same timeout. The load
 * driver keeps the same rules on its own connections (load-pool.ts).
 */
import { Pool } from 'undici';
import { trustingConnect } from './tls-trust.ts';

/**
 * How long an idle connection stays open without a server's Keep-Alive hint: past the longest wait
 * between two series (a window, a Retry-After), so a series never pays a TCP and TLS handshake
 * inside its measurement (undici's own default, 4 s, closes them during any such wait). A server
 * that sends `Keep-Alive: timeout=N` is believed where N is shorter: undici closes the connection a
 * second before the server would, never racing a request against the server's close.
 */
export const KEEP_ALIVE_MS = 10 * 60_000;

export interface MeasuringPoolOptions {
  /** PEM of the CA(s) to trust besides Node's bundled roots (config `target.ca`); absent: Node's defaults. */
  readonly ca?: string;
}

export function measuringPool(
  url: string,
  connections: number,
  timeoutMs: number,
  { ca }: MeasuringPoolOptions = {},
): Pool {
  return new Pool(url, {
    connections,
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
    ...(ca === undefined ? {} : { connect: trustingConnect(ca) }),
  });
}
