/**
 * The reference target as a library: N edge listeners and one admin listener on loopback, sharing
 * one runtime. `tiergate serve`, the suite and the tests all start it through `startTarget`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Contract } from '../contract/types.ts';
import { messageOf, TiergateError } from '../util/errors.ts';
import { adminListener } from './admin.ts';
import { realClock, type TargetClock } from './clock.ts';
import { edgeClientError, edgeListener } from './edge.ts';
import { resolveTargetOptions, type ResolvedTargetOptions, type TargetOptions } from './options.ts';
import { createRuntime } from './runtime.ts';

export interface InProcessTargetOptions extends TargetOptions {
  /**
   * The target's clock (see clock.ts). Default the real one. Not an option of `startTargetThread`:
   * a clock cannot cross to another thread, and it is not part of the resolved options.
   */
  clock?: TargetClock;
}

export interface RunningTarget {
  /** Base URLs like http://127.0.0.1:PORT; edge i listens on port + i (or a free port with port 0). */
  readonly edges: readonly string[];
  readonly adminUrl: string;
  readonly options: ResolvedTargetOptions;
  /** Stops listening, ends keep-alive and in-flight connections and aborts simulated work. */
  close(): Promise<void>;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
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

function newServer(listener: RequestListener, onClientError?: (error: Error, socket: Duplex) => void): Server {
  const server = createServer(listener);
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

export async function startTarget(
  options: InProcessTargetOptions = {},
  contract: Contract = recruitingApi,
): Promise<RunningTarget> {
  const { clock = realClock, ...targetOptions } = options;
  const resolved = resolveTargetOptions(targetOptions);
  const closing = new AbortController();
  const rt = createRuntime(contract, resolved, clock, closing.signal);
  const servers: Server[] = [];
  const edges: string[] = [];
  const stopAll = () => Promise.all(servers.map(shut)).then(() => undefined);
  let adminUrl: string;
  try {
    for (let i = 0; i < resolved.edges; i++) {
      const port = resolved.port === 0 ? 0 : resolved.port + i;
      const server = newServer(edgeListener(rt, i), edgeClientError(rt, i));
      servers.push(server);
      try {
        edges.push(urlOf(await listen(server, resolved.host, port)));
      } catch (error) {
        throw startFailure(resolved.host, port, `edge-${i}`, error);
      }
    }
    const admin = newServer(adminListener(rt));
    servers.push(admin);
    try {
      adminUrl = urlOf(await listen(admin, resolved.host, resolved.adminPort));
    } catch (error) {
      throw startFailure(resolved.host, resolved.adminPort, 'admin API', error);
    }
  } catch (error) {
    closing.abort();
    await stopAll();
    throw error;
  }
  let closed: Promise<void> | null = null;
  return Object.freeze({
    edges: Object.freeze(edges),
    adminUrl,
    options: resolved,
    close: () => {
      if (!closed) {
        closing.abort();
        closed = stopAll();
      }
      return closed;
    },
  });
}
