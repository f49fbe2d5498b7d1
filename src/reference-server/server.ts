/**
 * The reference target as a library: N edge listeners and one admin listener on loopback, sharing
 * one runtime. `tiergate serve`, the suite and the tests all start it through `startTarget`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Contract } from '../contract/types.ts';
import { messageOf, TiergateError } from '../util/errors.ts';
import { adminListener } from './admin.ts';
import type { CertificateSet } from './certificates.ts';
import { realClock, type TargetClock } from './clock.ts';
import { edgeClientError, edgeListener } from './edge.ts';
import { resolveTargetOptions, type ResolvedTargetOptions, type TargetOptions } from './options.ts';
import { createRuntime, type TargetRuntime } from './runtime.ts';
import { startRelay } from './distance.ts';
import { listen } from './listen.ts';

export interface InProcessTargetOptions extends TargetOptions {
  /**
   * The target's clock (see clock.ts). Default the real one. Not an option of `startTargetThread`:
   * a clock cannot cross to another thread, and it is not part of the resolved options.
   */
  clock?: TargetClock;
}

export interface RunningTarget {
  /**
   * Base URLs like http://127.0.0.1:PORT (https:// with tls on); edge i listens on port + i (or a
   * free port with port 0). At a distance, these are the relays in front of the edges.
   */
  readonly edges: readonly string[];
  readonly adminUrl: string;
  /** The PEM of the CA the edges' certificate comes from, to trust (tls on); null for plain HTTP. */
  readonly ca: string | null;
  readonly options: ResolvedTargetOptions;
  /** Stops listening, ends keep-alive and in-flight connections and aborts simulated work. */
  close(): Promise<void>;
}

function urlOf(address: AddressInfo, scheme: 'http' | 'https' = 'http'): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}`;
}

function shut(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    // Keep-alive and in-flight sockets would hold close() open: end them now.
    server.closeAllConnections();
  });
}

/**
 * Load balancers keep an idle client connection about a minute (an AWS ALB's default idle timeout is
 * 60 s) and the servers behind them a little longer, so a client's warm connections survive a wait
 * between series; Node's own default (5 s) would close them under it.
 */
const EDGE_KEEP_ALIVE_MS = 65_000;

/** What a started target holds open, each closed with the target. */
type Closer = () => Promise<void>;

/** An HTTP server, or HTTPS presenting `certificates`. */
function newServer(
  listener: RequestListener,
  onClientError?: (error: Error, socket: Duplex) => void,
  certificates: CertificateSet | null = null,
): Server {
  const server = certificates
    ? createHttpsServer({ cert: certificates.certPem, key: certificates.keyPem }, listener)
    : createServer(listener);
  // A malformed request line or header block: answer 400 as JSON instead of a bare reset.
  server.on(
    'clientError',
    onClientError ??
      ((_error: Error, socket: Duplex) => {
        if (!socket.writable) return socket.destroy();
        const body = JSON.stringify({ status: 'error', code: 'BAD_REQUEST', message: 'malformed HTTP request' });
        socket.end(
          `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
        );
      }),
  );
  return server;
}

function startFailure(host: string, port: number, role: string, error: unknown): TiergateError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'EADDRINUSE'
      ? 'the port is already in use (pick another, or 0 for a free one)'
      : code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges)'
        : messageOf(error);
  return new TiergateError('TG_TARGET_START', `cannot start the target's ${role} on ${host}:${port}: ${reason}`);
}

/**
 * Edge `index`: its server (HTTPS with `certificates`) and, at a distance, the relay in front of it
 * on the edge's port (the server then on a free one). Resolves the URL clients dial.
 */
async function startEdge(
  rt: TargetRuntime,
  index: number,
  certificates: CertificateSet | null,
  opened: Closer[],
): Promise<string> {
  const o = rt.options;
  const port = o.port === 0 ? 0 : o.port + index;
  const scheme = certificates ? 'https' : 'http';
  const server = newServer(edgeListener(rt, index), edgeClientError(rt, index), certificates);
  server.keepAliveTimeout = EDGE_KEEP_ALIVE_MS;
  opened.push(() => shut(server));
  // The jitter is at most the latency: no latency, no distance.
  const atDistance = o.latencyMs > 0;
  try {
    const address = await listen(server, o.host, atDistance ? 0 : port);
    if (!atDistance) return urlOf(address, scheme);
    const relay = await startRelay({
      target: { host: address.address, port: address.port },
      host: o.host,
      port,
      latencyMs: o.latencyMs,
      jitterMs: o.jitterMs,
      random: rt.random,
    });
    opened.push(() => relay.close());
    return urlOf(relay.address, scheme);
  } catch (error) {
    throw startFailure(o.host, port, `edge-${index}`, error);
  }
}

/** The admin API: plain HTTP on loopback, never at a distance (the harness's own back door). */
async function startAdmin(rt: TargetRuntime, opened: Closer[]): Promise<string> {
  const { host, adminPort } = rt.options;
  const admin = newServer(adminListener(rt));
  opened.push(() => shut(admin));
  try {
    return urlOf(await listen(admin, host, adminPort));
  } catch (error) {
    throw startFailure(host, adminPort, 'admin API', error);
  }
}

export async function startTarget(
  options: InProcessTargetOptions = {},
  contract: Contract = recruitingApi,
): Promise<RunningTarget> {
  const { clock = realClock, ...targetOptions } = options;
  const resolved = resolveTargetOptions(targetOptions);
  // The X.509 library loads only when TLS is on.
  const certificates = resolved.tls
    ? await (await import('./certificates.ts')).makeCertificates(resolved.tlsCertificate)
    : null;
  const closing = new AbortController();
  const rt = createRuntime(contract, resolved, clock, closing.signal);
  const opened: Closer[] = [];
  const closeAll = () => Promise.all(opened.map((close) => close())).then(() => undefined);
  const edges: string[] = [];
  let adminUrl: string;
  try {
    for (let i = 0; i < resolved.edges; i++) edges.push(await startEdge(rt, i, certificates, opened));
    adminUrl = await startAdmin(rt, opened);
  } catch (error) {
    closing.abort();
    await closeAll();
    throw error;
  }
  let closed: Promise<void> | null = null;
  return Object.freeze({
    edges: Object.freeze(edges),
    adminUrl,
    ca: certificates?.caPem ?? null,
    options: resolved,
    close: () => {
      if (!closed) {
        closing.abort();
        closed = closeAll();
      }
      return closed;
    },
  });
}
