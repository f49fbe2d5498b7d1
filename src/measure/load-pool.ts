/**
 * The sustained-load driver's connections to one edge: HTTP/1.1 over plain sockets (TLS for an
 * https edge), one request per connection at a time so a response's latency is its own, no retries.
 * A request is bytes built once per stream (prepareRequest) and written as they are; a response is
 * read by Http1ResponseParser, which decodes only the headers the driver keeps. Timeouts are one
 * sweep over the connections, not a timer per request.
 *
 * Why not undici here: its general machinery (a Request object, a header object, timers and events
 * between Pool and Client for every request) cost more client CPU per request, with a no-op handler,
 * than plain autocannon spends in all, and the harness must measure at least as hard as autocannon
 * while recording every response (bench/load.ts). The precise prober keeps undici (pool.ts).
 */
import net from 'node:net';
import tls from 'node:tls';
import { trustingConnect } from './tls-trust.ts';
import type { HttpMethod } from '../contract/types.ts';
import type { HeaderPicker } from './header-picker.ts';
import { Http1ResponseParser, ResponseParseError, type ResponseSink } from './http1-response.ts';
import type { ObservationError } from './observation.ts';

/** What a request's sender hears; exactly one of onComplete and onError ends it. */
export interface LoadHandler {
  onHeaders(status: number, values: readonly (string | null)[]): void;
  onData(chunk: Buffer): void;
  onComplete(): void;
  onError(error: ObservationError): void;
}

/** A request as the bytes that go on the wire. */
export interface PreparedRequest {
  readonly bytes: Buffer;
  /** A HEAD request: its response has no body. */
  readonly head: boolean;
}

export interface LoadPoolOptions {
  readonly connections: number;
  /** A response (its head, then each gap between body bytes) must come within this, else TIMEOUT. */
  readonly timeoutMs: number;
  /** The response headers handlers receive, in slot order. */
  readonly picker: HeaderPicker;
  /** PEM of a private CA trusted beside the public roots for an https edge (config `target.ca`, or the embedded target's). */
  readonly ca?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[^\r\n\0]*$/;
const PATH = /^\/[\u0021-\u00ff]*$/;
/** Methods whose requests carry Content-Length even without a body, as undici sends them. */
const BODY_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['POST', 'PUT', 'PATCH']);
/**
 * An idle connection is closed this long before the server's announced Keep-Alive timeout (none
 * is kept when that leaves nothing), and after this long when the server announced none: undici's
 * defaults, kept.
 */
const KEEP_ALIVE_MARGIN_MS = 2000;
const DEFAULT_IDLE_MS = 4000;

/** The request's bytes, checked once: a bad header name or value throws here, before any send. */
export function prepareRequest(
  url: string,
  method: HttpMethod,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: Buffer | null,
): PreparedRequest {
  if (!PATH.test(path)) throw new Error(`invalid request path ${JSON.stringify(path)}`);
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${new URL(url).host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value))
      throw new Error(`invalid request header ${JSON.stringify(name)}`);
    lines.push(`${name}: ${value}`);
  }
  if (body !== null || BODY_METHODS.has(method)) lines.push(`content-length: ${body?.length ?? 0}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return { bytes: body === null ? head : Buffer.concat([head, body]), head: method === 'HEAD' };
}

/** What a connection asks of its pool. */
interface ConnectionEvents {
  /** When a request sent (or a body byte received) now times out, monotonic ms. */
  deadline(): number;
  /** Its response ended; `reusable`: it may carry the next request. */
  ended(connection: Connection, reusable: boolean): void;
}

/** One socket and the request on it. */
class Connection implements ResponseSink {
  handler: LoadHandler | null = null;
  /** Monotonic ms: when the request in flight times out, or when this idle connection expires. */
  deadline = 0;
  /** Out of the pool (failed, expired or closed); its socket is being destroyed. */
  gone = false;
  readonly parser: Http1ResponseParser;

  constructor(
    readonly socket: net.Socket,
    picker: HeaderPicker,
    private readonly events: ConnectionEvents,
  ) {
    this.parser = new Http1ResponseParser(picker);
  }

  start(request: PreparedRequest, handler: LoadHandler, deadline: number): void {
    this.handler = handler;
    this.deadline = deadline;
    this.parser.expect(request.head, this);
    // Before 'connect', the socket queues the bytes itself.
    this.socket.write(request.bytes);
  }

  onHead(status: number, values: (string | null)[]): void {
    this.handler!.onHeaders(status, values);
  }

  onBody(chunk: Buffer): void {
    this.deadline = this.events.deadline();
    this.handler!.onData(chunk);
  }

  onEnd(reusable: boolean): void {
    this.events.ended(this, reusable);
  }
}

export class LoadPool {
  readonly #origin: URL;
  readonly #options: LoadPoolOptions;
  readonly #all: Connection[] = [];
  /** Idle connections, the most recently used last (reused first: the least likely to be stale). */
  readonly #idle: Connection[] = [];
  readonly #queue: { request: PreparedRequest; handler: LoadHandler }[] = [];
  #sweeper: NodeJS.Timeout | null = null;
  #closed = false;
  /** Every plain socket's reads land here, one read at a time (they are handled synchronously). */
  readonly #readBuffer = Buffer.allocUnsafe(64 * 1024);
  readonly #events: ConnectionEvents = {
    deadline: () => this.#deadline(),
    ended: (connection, reusable) => this.#ended(connection, reusable),
  };

  constructor(url: string, options: LoadPoolOptions) {
    this.#origin = new URL(url);
    this.#options = options;
  }

  send(request: PreparedRequest, handler: LoadHandler): void {
    if (this.#closed) return handler.onError({ code: 'INTERRUPTED', message: 'the load pool is closed' });
    const connection = this.#acquire();
    if (connection) connection.start(request, handler, this.#deadline());
    else this.#queue.push({ request, handler });
  }

  /** End everything queued or in flight as INTERRUPTED (the phase ended, or the run was interrupted). */
  abortAll(reason: string): void {
    for (const { handler } of this.#queue.splice(0)) handler.onError({ code: 'INTERRUPTED', message: reason });
    for (const connection of [...this.#all])
      if (connection.handler) this.#fail(connection, { code: 'INTERRUPTED', message: reason });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.abortAll('the load pool is closed');
    if (this.#sweeper) clearInterval(this.#sweeper);
    await Promise.all([...this.#all].map((connection) => this.#drop(connection)));
  }

  #deadline(): number {
    return performance.now() + this.#options.timeoutMs;
  }

  /** A response ended: the connection goes back to the idle list (or away), then its sender hears. */
  #ended(connection: Connection, reusable: boolean): void {
    const handler = connection.handler!;
    connection.handler = null;
    const idleMs = this.#idleMs(connection);
    if (reusable && idleMs > 0 && !this.#closed) {
      connection.deadline = performance.now() + idleMs;
      this.#idle.push(connection);
    } else {
      void this.#drop(connection);
    }
    handler.onComplete();
    this.#serveQueue();
  }

  #acquire(): Connection | null {
    const now = performance.now();
    while (this.#idle.length > 0) {
      const connection = this.#idle.pop()!;
      if (connection.deadline > now) return connection;
      void this.#drop(connection);
    }
    return this.#all.length < this.#options.connections ? this.#connect() : null;
  }

  #connect(): Connection {
    const host = this.#origin.hostname.replace(/^\[(.*)\]$/, '$1');
    const secure = this.#origin.protocol === 'https:';
    const port = Number(this.#origin.port) || (secure ? 443 : 80);
    const read = (chunk: Buffer) => {
      try {
        connection.parser.execute(chunk);
      } catch (error) {
        if (!(error instanceof ResponseParseError)) throw error;
        this.#fail(connection, { code: error.code, message: error.message });
      }
    };
    // Plain sockets read into the pool's one buffer, past the stream machinery (no Buffer, push or
    // 'data' event per read); the parser copies the little it keeps. TLS sockets read as streams.
    const buffer = this.#readBuffer;
    const socket = secure
      ? tls
          .connect({
            host,
            port,
            servername: net.isIP(host) === 0 ? host : undefined,
            ...(this.#options.ca === undefined ? {} : trustingConnect(this.#options.ca)),
          })
          .on('data', read)
      : net.connect({ host, port, onread: { buffer, callback: (bytes) => (read(buffer.subarray(0, bytes)), true) } });
    socket.setNoDelay(true);
    const connection = new Connection(socket, this.#options.picker, this.#events);
    socket.on('error', (error: NodeJS.ErrnoException) =>
      this.#fail(connection, { code: error.code ?? 'REQUEST_FAILED', message: error.message }),
    );
    socket.on('close', () => {
      if (connection.gone) return;
      // A body that runs until close ends here; any other response was cut short.
      if (connection.handler && connection.parser.closed()) return;
      this.#fail(connection, { code: 'ECONNRESET', message: 'the server closed the connection' });
    });
    this.#all.push(connection);
    // Sockets in use keep the process alive; the sweep alone must not.
    this.#sweeper ??= setInterval(
      () => this.#sweep(),
      Math.min(250, Math.max(10, this.#options.timeoutMs / 10)),
    ).unref();
    return connection;
  }

  /** The connection is done: its request (if any) fails with `error`; a queued one may take its place. */
  #fail(connection: Connection, error: ObservationError): void {
    if (connection.gone) return;
    const handler = connection.handler;
    connection.handler = null;
    void this.#drop(connection);
    handler?.onError(error);
    this.#serveQueue();
  }

  #drop(connection: Connection): Promise<void> {
    connection.gone = true;
    const at = this.#all.indexOf(connection);
    if (at >= 0) this.#all.splice(at, 1);
    const idleAt = this.#idle.indexOf(connection);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    const { socket } = connection;
    if (socket.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.destroy();
    });
  }

  #serveQueue(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      const connection = this.#acquire();
      if (!connection) return;
      const { request, handler } = this.#queue.shift()!;
      connection.start(request, handler, this.#deadline());
    }
  }

  /** Time out requests past their deadline; close idle connections past theirs. */
  #sweep(): void {
    const now = performance.now();
    for (const connection of this.#all.filter((c) => c.deadline <= now)) {
      if (connection.handler)
        this.#fail(connection, { code: 'TIMEOUT', message: `no response within ${this.#options.timeoutMs} ms` });
      else void this.#drop(connection);
    }
  }

  /** How long a connection may idle: under the server's Keep-Alive timeout, so it never closes one we send on. */
  #idleMs(connection: Connection): number {
    const announced = connection.parser.keepAliveMs;
    return announced === null ? DEFAULT_IDLE_MS : announced - KEEP_ALIVE_MARGIN_MS;
  }
}
