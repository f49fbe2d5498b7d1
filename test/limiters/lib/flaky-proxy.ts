/**
 * A flaky network in front of one edge: a TCP proxy on loopback that passes every byte through
 * unchanged, except that about one request in N is dropped unanswered: the proxy reads the request,
 * then resets the client's connection (ECONNRESET) or closes it (a socket closed with no response).
 * It can also stand at a distance (every chunk delayed each way, in order), terminate TLS with a
 * certificate made at start (forwarding plain HTTP upstream), and reset every connection on demand,
 * so that any upstream on loopback, the real limiters included, can be put behind HTTPS far away.
 *
 *   const proxy = await startFlakyProxy({ target: 'http://127.0.0.1:8080', dropOneIn: 200 });
 *   proxy.url; proxy.dropped; proxy.requests; proxy.drops; proxy.dropConnections(); await proxy.close();
 *
 * Per request, not per connection: HTTP clients keep connections alive (tiergate's prober holds a few
 * per edge for the whole run), so a network that drops "one connection in 200" shows as one request
 * in about 200 losing its connection mid-flight. The proxy finds request boundaries in the client's
 * byte stream (request line, headers, then Content-Length bytes or a chunked body), numbers the
 * requests in the order their first byte reaches it (1, 2, …, over all connections) and drops the
 * ones `pick` chooses: a pure function of the number, so a given order of requests always loses the
 * same ones.
 *
 * At a distance, the relay of src/reference-server/distance.ts stands in front of the proxy (on its
 * port): the client's bytes, TLS handshakes included, travel the distance before the proxy reads them,
 * and its answers travel it back. A drop's reset reaches the client at once.
 *
 * Requests that are not dropped, and the answers to them, pass byte for byte: the proxy never
 * rewrites, buffers a whole message or adds a header. After a drop the connection's other bytes are
 * lost with it, as they would be. A request head over 64 KiB, an Upgrade or CONNECT ends the
 * counting on that connection (its bytes still pass).
 *
 * TypeScript, for it shares the reference target's relay and certificates: the tests import it
 * directly, and run.mjs (plain node) loads it through tsx.
 */
import { connect, createServer, type Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { makeCertificates, type CertificateKind } from '../../../src/reference-server/certificates.ts';
import { startRelay, type DelayedChunk, type Relay } from '../../../src/reference-server/distance.ts';
import { RequestSplitter, type SplitRequest } from './request-splitter.mjs';

export interface FlakyProxyOptions {
  /** 'http://127.0.0.1:PORT' (loopback only: 127.0.0.0/8, localhost, [::1]). */
  readonly target: string;
  /** About one request in N dropped (N ≥ 2); 0 drops none (a plain proxy). */
  readonly dropOneIn?: number;
  /**
   * 'seeded' (default): request n is dropped when a hash of (seed, n) falls in the lowest 1/N of its
   * range (drops at irregular places, about one in N over a run); 'every': requests N, 2N, 3N, …
   */
  readonly pick?: 'seeded' | 'every';
  /** For 'seeded' (default 1). */
  readonly seed?: number;
  /**
   * 'request' (default): the dropped request never reaches the server (nothing counted). 'response':
   * it is forwarded, the server answers (and counts it), the answer is thrown away and the connection
   * cut: the client cannot know whether it was counted. This takes the first bytes the server sends
   * after it as its answer, so it assumes one request in flight per connection (HTTP pipelining 1,
   * as undici and tiergate send).
   */
  readonly dropAt?: 'request' | 'response';
  /** 'reset' (default: RST, the client sees ECONNRESET) or 'close' (FIN, "other side closed"). */
  readonly how?: 'reset' | 'close';
  /** How long the connection stays open, silent, after the dropped request before it is cut (default 0). */
  readonly holdMs?: number;
  /** Listening port on 127.0.0.1 (default 0: a free one). */
  readonly port?: number;
  /** The round trip the distance adds (default 0: none): each chunk held half of it each way, in order. */
  readonly latencyMs?: number;
  /** How much that round trip varies: each one-way delay is half the latency ± half this (at most the latency). */
  readonly jitterMs?: number;
  /** Told of every chunk the distance delayed (src/reference-server/distance.ts). */
  readonly onChunk?: (chunk: DelayedChunk) => void;
  /**
   * Terminate TLS at the proxy with a certificate of this kind, made at start from a CA of its own
   * (`proxy.ca`); upstream stays plain HTTP. Default: none, plain HTTP both sides.
   */
  readonly tls?: CertificateKind;
}

export interface DroppedRequest {
  /** The request's number in the order the proxy saw them, from 1. */
  readonly n: number;
  readonly method: string;
  readonly path: string;
  /** Epoch ms. */
  readonly at: number;
  readonly dropAt: 'request' | 'response';
}

export interface FlakyProxy {
  /** http://127.0.0.1:PORT, or https:// with tls. */
  readonly url: string;
  readonly port: number;
  readonly target: string;
  /** The PEM of the CA to trust with tls; null without. */
  readonly ca: string | null;
  /** Requests dropped so far. */
  readonly dropped: number;
  /** Requests seen so far (dropped or not). */
  readonly requests: number;
  readonly connections: number;
  /** The dropped requests, in order. */
  readonly drops: readonly DroppedRequest[];
  /** Resets every open connection now: each client sees ECONNRESET. */
  dropConnections(): void;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

/** Whether request `n` (1-based) is dropped: a pure function of n and the options. */
export function dropDecider({
  dropOneIn,
  pick = 'seeded',
  seed = 1,
}: Pick<FlakyProxyOptions, 'dropOneIn' | 'pick' | 'seed'>): (n: number) => boolean {
  if (!dropOneIn) return () => false;
  if (!Number.isInteger(dropOneIn) || dropOneIn < 2)
    throw new RangeError(`dropOneIn ${dropOneIn}: an integer ≥ 2, or 0 for none`);
  if (pick === 'every') return (n) => n % dropOneIn === 0;
  if (pick !== 'seeded') throw new RangeError(`pick ${pick}: 'seeded' or 'every'`);
  const threshold = Math.floor(2 ** 32 / dropOneIn);
  return (n) => hash32(seed, n) < threshold;
}

/** A 32-bit mix of (seed, n) (murmur3's finalizer over both): uniform enough to pick one in N. */
function hash32(seed: number, n: number): number {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n >>> 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function parseTarget(target: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new TypeError(`target ${target}: expected http://127.0.0.1:PORT`);
  }
  if (url.protocol !== 'http:' || !LOOPBACK.test(url.hostname) || !url.port)
    throw new TypeError(`target ${target}: expected http://127.0.0.1:PORT (loopback only)`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
}

type ProxyRequest = SplitRequest & { readonly n: number; readonly drop: boolean };

/** What every connection of one proxy shares: its rule, its counts, and the client sockets open now. */
interface Proxying {
  readonly upstream: { host: string; port: number };
  readonly drop: (n: number) => boolean;
  readonly dropAt: 'request' | 'response';
  readonly how: 'reset' | 'close';
  readonly holdMs: number;
  readonly drops: DroppedRequest[];
  /** Each open connection's TCP socket facing the client: what a reset is sent on. */
  readonly clients: Set<Socket>;
  requests: number;
  connections: number;
}

function reset(socket: Socket): void {
  if (!socket.destroyed) socket.resetAndDestroy();
}

/**
 * One client connection: `client` is what the proxy reads and writes (the TLS socket with tls),
 * `raw` its TCP socket (the same without tls), which a reset goes out on.
 */
function proxyConnection(p: Proxying, client: Socket, raw: Socket): void {
  p.connections += 1;
  const upstream = connect({ ...p.upstream, allowHalfOpen: true });
  let cut = false;
  let awaitingDroppedAnswer = false;

  const kill = () => {
    if (cut) return;
    cut = true;
    const finish = () => {
      if (p.how === 'reset') reset(raw);
      else client.destroy();
      upstream.destroy();
    };
    if (p.holdMs > 0) setTimeout(finish, p.holdMs).unref();
    else finish();
  };

  const splitter = new RequestSplitter<ProxyRequest>({
    next: () => {
      p.requests += 1;
      return { n: p.requests, drop: p.drop(p.requests), method: '', path: '' };
    },
  });
  const ended = (request: ProxyRequest) => {
    if (!request.drop) return;
    const { n, method, path } = request;
    p.drops.push({ n, method, path, at: Date.now(), dropAt: p.dropAt });
    if (p.dropAt === 'request') kill();
    else awaitingDroppedAnswer = true;
  };

  client.on('data', (chunk: Buffer) => {
    if (cut) return;
    for (const { buf, request, end } of splitter.push(chunk)) {
      if (cut) return;
      if (end) {
        ended(end);
        continue;
      }
      // Request mode: a dropped request's bytes never reach the server; nothing after it does either.
      if (request?.drop && p.dropAt === 'request') continue;
      if (!upstream.write(buf)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
    }
  });
  upstream.on('data', (chunk: Buffer) => {
    if (cut) return;
    if (awaitingDroppedAnswer) return kill(); // the dropped request's answer: thrown away
    if (!client.write(chunk)) {
      upstream.pause();
      client.once('drain', () => upstream.resume());
    }
  });
  // Half-closes pass through; a socket gone takes the other with it.
  client.on('end', () => !cut && upstream.end());
  upstream.on('end', () => !cut && client.end());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => {
    if (!cut && !client.destroyed) client.end();
  });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
}

function checkOptions(o: FlakyProxyOptions): void {
  if (!['request', 'response'].includes(o.dropAt ?? 'request'))
    throw new RangeError(`dropAt ${o.dropAt}: 'request' or 'response'`);
  if (!['reset', 'close'].includes(o.how ?? 'reset')) throw new RangeError(`how ${o.how}: 'reset' or 'close'`);
  const holdMs = o.holdMs ?? 0;
  if (!(Number.isFinite(holdMs) && holdMs >= 0 && holdMs <= 600_000))
    throw new RangeError(`holdMs ${holdMs}: 0..600000`);
}

function listenOn(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** Start the proxy: resolves once it (and its distance, if any) listens. */
export async function startFlakyProxy(options: FlakyProxyOptions): Promise<FlakyProxy> {
  const { target, dropOneIn = 0, pick = 'seeded', seed = 1, port = 0, latencyMs = 0, jitterMs = 0 } = options;
  const upstream = parseTarget(target);
  const drop = dropDecider({ dropOneIn, pick, seed });
  checkOptions(options);
  const p: Proxying = {
    upstream,
    drop,
    dropAt: options.dropAt ?? 'request',
    how: options.how ?? 'reset',
    holdMs: options.holdMs ?? 0,
    drops: [],
    clients: new Set(),
    requests: 0,
    connections: 0,
  };
  const certificates = options.tls ? await makeCertificates(options.tls) : null;
  const context = certificates ? createSecureContext({ cert: certificates.certPem, key: certificates.keyPem }) : null;
  const server = createServer({ allowHalfOpen: true }, (raw) => {
    p.clients.add(raw);
    raw.on('close', () => p.clients.delete(raw));
    if (!context) return proxyConnection(p, raw, raw);
    const client = new TLSSocket(raw, { isServer: true, secureContext: context });
    // A client that refuses the certificate ends the handshake: nothing to proxy.
    client.on('error', () => raw.destroy());
    client.once('secure', () => proxyConnection(p, client, raw));
  });
  // At a distance the relay takes the port, and the proxy a free one behind it.
  const ownPort = await listenOn(server, latencyMs > 0 ? 0 : port);
  let relay: Relay | null = null;
  if (latencyMs > 0) {
    relay = await startRelay({
      target: { host: '127.0.0.1', port: ownPort },
      host: '127.0.0.1',
      port,
      latencyMs,
      jitterMs,
      ...(options.onChunk ? { onChunk: options.onChunk } : {}),
    }).catch((error: unknown) => {
      server.close();
      throw error;
    });
  }
  const publicPort = relay?.address.port ?? ownPort;
  const dropConnections = () => {
    relay?.resetConnections();
    for (const socket of p.clients) reset(socket);
  };
  return {
    url: `${certificates ? 'https' : 'http'}://127.0.0.1:${publicPort}`,
    port: publicPort,
    target,
    ca: certificates?.caPem ?? null,
    get dropped() {
      return p.drops.length;
    },
    get requests() {
      return p.requests;
    },
    get connections() {
      return p.connections;
    },
    drops: p.drops,
    dropConnections,
    close: async () => {
      dropConnections();
      await Promise.all([relay?.close(), new Promise<void>((resolve) => server.close(() => resolve()))]);
    },
  };
}
