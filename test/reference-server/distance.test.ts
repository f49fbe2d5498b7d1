/**
 * The distance in front of an edge (src/reference-server/distance.ts): a delay line keeps each
 * chunk's own delay and the order of chunks, and a relay over real sockets adds the round trip each
 * way, keeps order under jitter, passes a clean end after the data, and resets and closes cleanly.
 * Judged by the relay's own record of what it delayed and by order, never by wall-clock thresholds:
 * the one timing inequality (a round trip is at least the latency) holds however loaded the machine.
 */
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DelayLine,
  oneWayDelayMs,
  startRelay,
  type DelayedChunk,
  type Relay,
  type RelayOptions,
} from '../../src/reference-server/distance.ts';
import { call, startTestTarget } from '../helpers/target.ts';
import { handshake } from '../helpers/tls-handshake.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A server on loopback: echoes every byte back, or runs `onSocket`. */
async function upstream(
  onSocket: (socket: Socket) => void = (s) => s.pipe(s),
): Promise<{ port: number; server: Server }> {
  const server = createServer({ allowHalfOpen: true }, onSocket);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    // A reset from the relay is what some tests make happen.
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, server };
}

async function relayTo(
  port: number,
  options: Partial<RelayOptions> = {},
): Promise<{ relay: Relay; chunks: DelayedChunk[] }> {
  const chunks: DelayedChunk[] = [];
  const relay = await startRelay({
    target: { host: '127.0.0.1', port },
    host: '127.0.0.1',
    port: 0,
    latencyMs: 40,
    jitterMs: 0,
    onChunk: (c) => chunks.push(c),
    ...options,
  });
  closers.push(() => relay.close());
  return { relay, chunks };
}

/** A client connected through the relay, reading every byte; `closed` says how it ended. */
async function client(relay: Relay) {
  const socket = connect({ host: '127.0.0.1', port: relay.address.port, noDelay: true });
  const received: Buffer[] = [];
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.on('close', () => resolve('closed'));
  });
  socket.on('data', (d: Buffer) => received.push(d));
  await once(socket, 'connect');
  closers.push(async () => void socket.destroy());
  /** Resolves once `bytes` bytes have come back in all. */
  const until = async (bytes: number) => {
    while (Buffer.concat(received).length < bytes) await once(socket, 'data');
    return Buffer.concat(received);
  };
  return { socket, received, ended, until };
}

/** Draws 1, 0, 1, 0, …: every second chunk draws the shortest delay and would overtake the one before it. */
function alternating(): () => number {
  let n = 0;
  return () => (n++ % 2 === 0 ? 1 : 0);
}

/** Every record of one connection and direction keeps its own delay, in order, never early. */
function expectKept(chunks: readonly DelayedChunk[]): void {
  for (const [i, c] of chunks.entries()) {
    expect(c.seq).toBe(i + 1);
    expect(c.dueAt).toBeGreaterThanOrEqual(c.arrivedAt + c.drawnMs);
    expect(c.sentAt).toBeGreaterThanOrEqual(c.dueAt);
    if (i > 0) {
      expect(c.dueAt).toBeGreaterThanOrEqual(chunks[i - 1]!.dueAt);
      expect(c.sentAt).toBeGreaterThanOrEqual(chunks[i - 1]!.sentAt);
    }
  }
}

describe('oneWayDelayMs', () => {
  it('is half the round trip, ± half the jitter', () => {
    const distance = { latencyMs: 80, jitterMs: 10 };
    expect(oneWayDelayMs(distance, () => 0)).toBe(35);
    expect(oneWayDelayMs(distance, () => 0.5)).toBe(40);
    expect(oneWayDelayMs(distance, () => 1)).toBe(45);
  });
});

describe('DelayLine', () => {
  it('passes each chunk on after its own delay, never before the one before it, and ends after the last', async () => {
    const random = alternating();
    const records: Omit<DelayedChunk, 'connection' | 'direction'>[] = [];
    const line = new DelayLine({
      delayMs: () => oneWayDelayMs({ latencyMs: 60, jitterMs: 60 }, random),
      leavesFrom: 0,
      onChunk: (c) => records.push(c),
    });
    const out: string[] = [];
    line.on('data', (d: Buffer) => out.push(d.toString()));
    const sent = Array.from({ length: 20 }, (_, i) => `chunk ${i};`);
    for (const piece of sent) line.write(piece);
    line.end();
    await once(line, 'end');
    expect(out.join('')).toBe(sent.join(''));
    expect(records.map((r) => r.drawnMs)).toEqual(sent.map((_, i) => (i % 2 === 0 ? 60 : 0)));
    expectKept(records as DelayedChunk[]);
    // The short draws were held back behind the long one before them.
    expect(records[1]!.dueAt).toBe(records[0]!.dueAt);
  });

  it('sets nothing out before leavesFrom: a chunk there sooner takes its delay from then', async () => {
    const leavesFrom = performance.now() + 50;
    const records: Omit<DelayedChunk, 'connection' | 'direction'>[] = [];
    const line = new DelayLine({ delayMs: () => 10, leavesFrom, onChunk: (c) => records.push(c) });
    line.resume();
    line.end('x');
    await once(line, 'end');
    expect(records[0]!.dueAt).toBe(leavesFrom + 10);
    expect(records[0]!.sentAt).toBeGreaterThanOrEqual(leavesFrom + 10);
  });
});

describe('startRelay', () => {
  it('adds the round trip: each chunk held half of it each way, the first bytes a connection round trip more', async () => {
    const { port } = await upstream();
    const { relay, chunks } = await relayTo(port, { latencyMs: 40 });
    const c = await client(relay);
    const sentAt = performance.now();
    c.socket.write('ping');
    await c.until(4);
    const roundTrip = performance.now() - sentAt;
    expect(chunks.map((x) => [x.connection, x.direction, x.seq, x.bytes, x.drawnMs])).toEqual([
      [1, 'to-server', 1, 4, 20],
      [1, 'to-client', 1, 4, 20],
    ]);
    expectKept(chunks.filter((x) => x.direction === 'to-server'));
    expectKept(chunks.filter((x) => x.direction === 'to-client'));
    // A lower bound, whatever the load: the relay only ever adds time.
    expect(roundTrip).toBeGreaterThanOrEqual(40);
    // A warm connection pays just the round trip's draws.
    c.socket.write('pong');
    await c.until(8);
    expect(chunks.slice(2).map((x) => [x.direction, x.seq, x.drawnMs])).toEqual([
      ['to-server', 2, 20],
      ['to-client', 2, 20],
    ]);
  });

  it('keeps the order of many small chunks each way under jitter', async () => {
    const { port } = await upstream();
    const { relay, chunks } = await relayTo(port, { latencyMs: 20, jitterMs: 20, random: alternating() });
    const c = await client(relay);
    const pieces = Array.from({ length: 300 }, (_, i) => `${i},`);
    for (const piece of pieces) {
      c.socket.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const expected = pieces.join('');
    expect((await c.until(expected.length)).toString()).toBe(expected);
    for (const direction of ['to-server', 'to-client'] as const) {
      const line = chunks.filter((x) => x.direction === direction);
      expect(line.reduce((sum, x) => sum + x.bytes, 0)).toBe(expected.length);
      for (const x of line) expect([0, 20]).toContain(x.drawnMs);
      expectKept(line);
    }
  });

  it('passes a clean end after the data before it, and a reset as a reset', async () => {
    const { port } = await upstream((socket) => socket.end('goodbye'));
    const { relay } = await relayTo(port);
    const ending = await client(relay);
    expect(await ending.ended).toBe('closed');
    expect(Buffer.concat(ending.received).toString()).toBe('goodbye');

    const { port: resetting } = await upstream((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const { relay: second } = await relayTo(resetting);
    const reset = await client(second);
    reset.socket.write('hello');
    expect(await reset.ended).toBe('ECONNRESET');
  });

  it('resetConnections resets every open connection; close ends them and stops listening', async () => {
    const serverSides: Socket[] = [];
    const { port } = await upstream((socket) => serverSides.push(socket));
    const { relay } = await relayTo(port, { latencyMs: 0 });
    const first = await client(relay);
    const second = await client(relay);
    first.socket.write('a');
    second.socket.write('b');
    while (serverSides.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const serverClosed = serverSides.map((s) => new Promise((resolve) => s.on('close', resolve)));
    relay.resetConnections();
    expect(await first.ended).toBe('ECONNRESET');
    expect(await second.ended).toBe('ECONNRESET');
    await Promise.all(serverClosed);

    const third = await client(relay);
    await relay.close();
    expect(['ECONNRESET', 'closed']).toContain(await third.ended);
    const refused = connect({ host: '127.0.0.1', port: relay.address.port });
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('refuses a jitter larger than the latency (a delay below zero)', async () => {
    await expect(relayTo(1, { latencyMs: 10, jitterMs: 20 })).rejects.toThrow(RangeError);
  });
});

describe('the reference target at a distance', () => {
  it('reports the relays as its edges, answers through them and closes them with itself', async () => {
    const t = await startTestTarget({ edges: 2, latencyMs: 30, jitterMs: 10 });
    const agent = new Agent({ connections: 1 });
    closers.push(() => agent.close());
    const sentAt = performance.now();
    const answer = await call(t.edge(1), '/recruiter/bootstrap', { dispatcher: agent });
    // A lower bound, whatever the load: one round trip is at least latency − jitter.
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(20);
    expect(answer.status).toBe(401);
    expect(answer.headers['x-edge-node']).toBe('edge-1');
    // The admin API is not at a distance; it is the harness's own.
    expect(t.target.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The warm connection is ended with the target, and nothing listens where the relay was.
    const disconnected = once(agent, 'disconnect');
    await t.target.close();
    await disconnected;
    const after = await call(t.edge(1), '/recruiter/bootstrap', { dispatcher: agent }).catch(
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(after).toBe('ECONNREFUSED');
  });

  it("TLS passes through the relay: the handshake pays the distance and the certificate is the edge's", async () => {
    const t = await startTestTarget({ tls: true, latencyMs: 40 });
    expect(new URL(t.edge()).protocol).toBe('https:');
    const startedAt = performance.now();
    expect(await handshake(t.edge(), t.target.ca!)).toBe('ok');
    // The handshake's own round trip at least, whatever the load.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(40);
    const agent = new Agent({ connect: { ca: t.target.ca! } });
    closers.push(() => agent.close());
    expect((await call(t.edge(), '/recruiter/bootstrap', { dispatcher: agent })).status).toBe(401);
  });

  it('puts the relay of edge i on port + i when a port is given', async () => {
    const probe = await startTestTarget({ edges: 1 });
    const free = Number(new URL(probe.edge()).port);
    await probe.target.close();
    // The freed port and the next one are very likely free; if not, the start fails with its code.
    const t = await startTestTarget({ port: free, edges: 2, latencyMs: 10 }).catch((error: unknown) => error);
    if (!('target' in (t as object))) {
      expect((t as { code?: string }).code).toBe('TG_TARGET_START');
      return;
    }
    expect((t as Awaited<ReturnType<typeof startTestTarget>>).target.edges).toEqual([
      `http://127.0.0.1:${free}`,
      `http://127.0.0.1:${free + 1}`,
    ]);
  });
});
