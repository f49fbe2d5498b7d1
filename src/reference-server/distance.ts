/**
 * A server made to stand at a distance: a TCP relay on loopback in front of it that holds every chunk,
 * each way, for half the latency ± half the jitter (uniform; a round trip then varies by up to the
 * jitter either side), and never lets a chunk overtake the one before it on its connection, as TCP
 * delivers. It relays bytes, not HTTP: TLS passes through
 * untouched and its handshakes pay the distance as they would over a real network.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Transform, type TransformCallback } from 'node:stream';
import { listen } from './listen.ts';

/** The distance: the round trip it adds, and the jitter: each way varies by ± half of it (uniform), a round trip by ± all of it. */
export interface Distance {
  readonly latencyMs: number;
  readonly jitterMs: number;
}

/** One chunk's one-way delay: half the round trip, ± half the jitter (uniform). */
export function oneWayDelayMs(distance: Distance, random: () => number): number {
  return distance.latencyMs / 2 + (random() - 0.5) * distance.jitterMs;
}

export type Direction = 'to-server' | 'to-client';

/** What the relay did with one chunk, in monotonic ms (performance.now()). */
export interface DelayedChunk {
  /** The connection, numbered from 1 in the order the relay accepted them. */
  readonly connection: number;
  readonly direction: Direction;
  /** The chunk's place on its connection and direction, from 1. */
  readonly seq: number;
  readonly bytes: number;
  /** The delay drawn for it. */
  readonly drawnMs: number;
  readonly arrivedAt: number;
  /**
   * arrivedAt + drawnMs (a connection's first bytes set out a round trip after it was accepted), held
   * back to the previous chunk's dueAt if that is later (never overtakes).
   */
  readonly dueAt: number;
  /** When it was passed on: never before dueAt. */
  readonly sentAt: number;
}

/** How much a direction holds before it stops reading from its sender (as a TCP window would). */
const HELD_BYTES_LIMIT = 1024 * 1024;

interface Held {
  readonly chunk: Buffer;
  readonly seq: number;
  readonly drawnMs: number;
  readonly arrivedAt: number;
  readonly dueAt: number;
}

export interface DelayLineOptions {
  readonly delayMs: () => number;
  /** No chunk sets out before this (monotonic ms): it then takes its own delay. */
  readonly leavesFrom: number;
  readonly onChunk: (chunk: Omit<DelayedChunk, 'connection' | 'direction'>) => void;
}

/** One direction of a connection: each chunk passed on once its own delay is over, in order; the end after the last. */
export class DelayLine extends Transform {
  readonly #options: DelayLineOptions;
  readonly #queue: Held[] = [];
  #heldBytes = 0;
  #lastDueAt = 0;
  #seq = 0;
  #timer: NodeJS.Timeout | null = null;
  /** The sender's callback, kept while the line is full. */
  #blocked: TransformCallback | null = null;
  /** The end's callback, kept until the last chunk is passed on. */
  #ending: TransformCallback | null = null;

  constructor(options: DelayLineOptions) {
    super();
    this.#options = options;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const arrivedAt = performance.now();
    const drawnMs = this.#options.delayMs();
    const dueAt = Math.max(Math.max(arrivedAt, this.#options.leavesFrom) + drawnMs, this.#lastDueAt);
    this.#lastDueAt = dueAt;
    this.#queue.push({ chunk, seq: ++this.#seq, drawnMs, arrivedAt, dueAt });
    this.#heldBytes += chunk.length;
    this.#schedule();
    if (this.#full()) this.#blocked = done;
    else done();
  }

  override _flush(done: TransformCallback): void {
    if (this.#queue.length === 0) done();
    else this.#ending = done;
  }

  override _read(size: number): void {
    this.#unblock();
    super._read(size);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#queue.length = 0;
    done(error);
  }

  #full(): boolean {
    return this.#heldBytes + this.readableLength >= HELD_BYTES_LIMIT;
  }

  #unblock(): void {
    if (this.#blocked === null || this.#full()) return;
    const blocked = this.#blocked;
    this.#blocked = null;
    blocked();
  }

  #schedule(): void {
    const head = this.#queue[0];
    if (this.#timer !== null || head === undefined) return;
    // A timer may fire a fraction of a millisecond early: #release then waits again.
    this.#timer = setTimeout(() => this.#release(), Math.max(0, Math.ceil(head.dueAt - performance.now())));
  }

  #release(): void {
    this.#timer = null;
    const now = performance.now();
    while (this.#queue[0] !== undefined && this.#queue[0].dueAt <= now) {
      const { chunk, ...held } = this.#queue.shift()!;
      this.#heldBytes -= chunk.length;
      this.push(chunk);
      this.#options.onChunk({ ...held, bytes: chunk.length, sentAt: now });
    }
    this.#unblock();
    if (this.#queue.length === 0 && this.#ending !== null) this.#ending();
    this.#schedule();
  }
}

export interface RelayOptions extends Distance {
  /** The server the relay stands in front of, on loopback. */
  readonly target: { readonly host: string; readonly port: number };
  /** Where the relay listens: a loopback address, and a port (0: a free one). */
  readonly host: string;
  readonly port: number;
  /** Uniform [0, 1): the jitter's draws. Default Math.random. */
  readonly random?: () => number;
  /** Told of every chunk as it is passed on: what the relay delayed and by how much. */
  readonly onChunk?: (chunk: DelayedChunk) => void;
}

export interface Relay {
  readonly address: AddressInfo;
  /** Resets every open connection now, both sides: each client and the server see ECONNRESET. */
  resetConnections(): void;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** A socket ended at once with a reset (RST), as a network that drops a connection ends it. */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  socket.resetAndDestroy();
}

function relayConnection(client: Socket, connection: number, options: RelayOptions, open: Set<Socket>): void {
  const random = options.random ?? Math.random;
  const onChunk = options.onChunk ?? (() => {});
  const line = (direction: Direction, leavesFrom: number) =>
    new DelayLine({
      delayMs: () => oneWayDelayMs(options, random),
      leavesFrom,
      onChunk: (chunk) => onChunk({ ...chunk, connection, direction }),
    });
  const server = connect({ ...options.target, allowHalfOpen: true, noDelay: true });
  // The relay accepts at once, on loopback; a real connection's handshake (SYN, SYN-ACK) takes a
  // round trip before the client's first byte can set out, so none sets out sooner here.
  const toServer = line('to-server', performance.now() + options.latencyMs);
  const toClient = line('to-client', 0);
  open.add(client);
  open.add(server);
  client.pipe(toServer).pipe(server);
  server.pipe(toClient).pipe(client);
  // A reset (or any error) on either side resets the other at once; a clean end travels in order.
  const fail = () => {
    toServer.destroy();
    toClient.destroy();
    reset(client);
    reset(server);
  };
  for (const stream of [client, server, toServer, toClient]) stream.on('error', fail);
  client.on('close', () => open.delete(client));
  server.on('close', () => open.delete(server));
}

/** Starts a relay in front of `options.target`; resolves once it listens. */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const { latencyMs, jitterMs } = options;
  if (!(latencyMs >= 0 && jitterMs >= 0 && jitterMs <= latencyMs))
    throw new RangeError(
      `latency ${latencyMs} ms, jitter ${jitterMs} ms: both at least 0, the jitter at most the latency`,
    );
  const open = new Set<Socket>();
  let connections = 0;
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) =>
    relayConnection(client, ++connections, options, open),
  );
  const address = await listen(server, options.host, options.port);
  const resetConnections = () => {
    for (const socket of open) reset(socket);
  };
  return {
    address,
    resetConnections,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Destroyed, not reset: on Node 20, a thread that resets many sockets as it closes can spin
        // forever at its exit (in CleanupHandles), and the target's thread then never ends.
        for (const socket of open) socket.destroy();
      }),
  };
}
