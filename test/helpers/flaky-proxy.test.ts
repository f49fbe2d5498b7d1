/**
 * The flaky network of the test bed (test/limiters/lib/flaky-proxy.ts): it drops the requests its
 * rule picks, the same ones for the same order of requests, unanswered (ECONNRESET, or a socket
 * closed with no response), and passes every other byte through unchanged, both ways; at a distance
 * every chunk is delayed each way, in order; behind TLS it terminates it with a certificate made at
 * start and forwards plain HTTP; and it resets every connection on demand. The upstream records the
 * raw bytes it receives; the client reads raw bytes, so "unchanged" is byte for byte. No timing
 * thresholds: every wait is for an event, bounded by the test timeout; the distance is judged by the
 * proxy's record of what it delayed, and by order.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { CertificateKind } from '../../src/reference-server/certificates.ts';
import type { DelayedChunk } from '../../src/reference-server/distance.ts';
import { dropDecider, startTestFlakyProxy } from './flaky-proxy.ts';
import { handshake } from './tls-handshake.ts';

/** Upstream: answers deterministically (no Date), and records every raw byte each connection sent. */
interface Upstream {
  readonly url: string;
  /** Raw request bytes received, all connections in order of arrival. */
  received(): Buffer;
  readonly paths: string[];
  reset(): void;
}

let server: Server;
let upstream: Upstream;

beforeAll(async () => {
  const chunks: Buffer[] = [];
  const paths: string[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const body: Buffer[] = [];
    req.on('data', (d: Buffer) => body.push(d));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url}`);
      res.sendDate = false;
      const digest = createHash('sha256').update(Buffer.concat(body)).digest('hex');
      // Every byte value, odd header casing, a trailer-free fixed-length body.
      const payload = Buffer.concat([
        Buffer.from(`${req.method} ${req.url} ${digest}\n`),
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      ]);
      res.setHeader('X-Odd-CASE', 'a\tb');
      res.setHeader('content-length', String(req.method === 'HEAD' ? 0 : payload.length));
      res.end(req.method === 'HEAD' ? undefined : payload);
    });
  });
  server.on('connection', (socket: Socket) => socket.on('data', (d: Buffer) => chunks.push(Buffer.from(d))));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  upstream = {
    url: `http://127.0.0.1:${address.port}`,
    received: () => Buffer.concat(chunks),
    paths,
    reset: () => {
      chunks.length = 0;
      paths.length = 0;
    },
  };
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A raw request: the head's lines so far, then Content-Length and the body. */
function withBody(head: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${head}Content-Length: ${body.length}\r\n\r\n`), body]);
}

/** Raw HTTP/1.1 requests of every shape the splitter must find the end of. */
const REQUESTS: readonly Buffer[] = [
  Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\n'),
  Buffer.from('HEAD /recruiter/bootstrap HTTP/1.1\r\nHost: x\r\nX-Api-Key: xh_test_not-a-real-key\r\n\r\n'),
  // A body holding a blank line, a request line, and every byte value.
  withBody(
    'POST /b HTTP/1.1\r\nHost: x\r\n',
    Buffer.concat([
      Buffer.from('\r\n\r\nGET /no HTTP/1.1\r\n\r\n'),
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
    ]),
  ),
  // Chunked, with an extension and a trailer.
  Buffer.from(
    'POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5;ext=1\r\nhello\r\n1\r\n\n\r\n0\r\nX-T: 1\r\n\r\n',
  ),
  Buffer.from(
    'PUT /recruiter/jobs/job-1 HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}',
  ),
];

/** Sends raw requests on one connection, one after another (or all at once), reading raw answers. */
class RawClient {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiter: (() => void) | null = null;
  closed: string | null = null;

  constructor(url: string) {
    const { port } = new URL(url);
    this.#socket = connect({ host: '127.0.0.1', port: Number(port) });
    this.#socket.on('data', (d: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, d]);
      this.#waiter?.();
    });
    this.#socket.on('error', (err: NodeJS.ErrnoException) => {
      this.closed = err.code ?? err.message;
    });
    this.#socket.on('close', () => {
      this.closed ??= 'closed';
      this.#waiter?.();
    });
  }

  write(bytes: Buffer, pieces = 1): void {
    const size = Math.ceil(bytes.length / pieces);
    for (let i = 0; i < bytes.length; i += size) this.#socket.write(bytes.subarray(i, i + size));
  }

  /** The next whole answer's raw bytes (head and Content-Length body; none for HEAD), or null once closed. */
  async answer(head: boolean): Promise<Buffer | null> {
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end !== -1) {
        const length = head
          ? 0
          : Number(/content-length: (\d+)/i.exec(this.#buffer.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (this.#buffer.length >= end + 4 + length) {
          const out = this.#buffer.subarray(0, end + 4 + length);
          this.#buffer = this.#buffer.subarray(end + 4 + length);
          return Buffer.from(out);
        }
      }
      if (this.closed !== null) return null;
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
      this.#waiter = null;
    }
  }

  end(): void {
    this.#socket.destroy();
  }
}

const isHead = (request: Buffer) => request.subarray(0, 5).toString() === 'HEAD ';

/** Each request on one keep-alive connection, each split into `pieces` writes: the answers' raw bytes. */
async function exchange(url: string, pieces: number): Promise<Buffer[]> {
  const client = new RawClient(url);
  const answers: Buffer[] = [];
  for (const request of REQUESTS) {
    client.write(request, pieces);
    const answer = await client.answer(isHead(request));
    expect(answer, `no answer to ${request.subarray(0, 20).toString()}`).not.toBeNull();
    answers.push(answer!);
  }
  client.end();
  return answers;
}

describe('flaky proxy: passes everything it does not drop byte for byte', () => {
  it('requests of every shape, whole or a byte at a time, and their answers, unchanged', async () => {
    const direct = await exchange(upstream.url, 1);
    const proxy = await startTestFlakyProxy({ target: upstream.url, dropOneIn: 0 });
    for (const pieces of [1, 7, 10_000]) {
      upstream.reset();
      const through = await exchange(proxy.url, pieces);
      expect(through).toEqual(direct);
      expect(upstream.received().equals(Buffer.concat(REQUESTS))).toBe(true);
    }
    expect(proxy.requests).toBe(3 * REQUESTS.length);
    expect(proxy.dropped).toBe(0);
  });

  it('pipelined requests in one write: every answer, in order', async () => {
    const direct = await exchange(upstream.url, 1);
    const proxy = await startTestFlakyProxy({ target: upstream.url, dropOneIn: 0 });
    upstream.reset();
    const client = new RawClient(proxy.url);
    client.write(Buffer.concat(REQUESTS));
    const answers: (Buffer | null)[] = [];
    for (const request of REQUESTS) answers.push(await client.answer(isHead(request)));
    client.end();
    expect(answers).toEqual(direct);
    expect(upstream.received().equals(Buffer.concat(REQUESTS))).toBe(true);
    expect(proxy.requests).toBe(REQUESTS.length);
  });
});

describe('flaky proxy: drops what its rule picks, unanswered', () => {
  it("'every' N: requests N, 2N, … reset before reaching the server; the others answered", async () => {
    const proxy = await startTestFlakyProxy({ target: upstream.url, dropOneIn: 4, pick: 'every' });
    upstream.reset();
    const seen: string[] = [];
    let client = new RawClient(proxy.url);
    for (let n = 1; n <= 20; n++) {
      client.write(Buffer.from(`GET /r/${n} HTTP/1.1\r\nHost: x\r\n\r\n`));
      const answer = await client.answer(false);
      if (answer === null) {
        seen.push(`${n} ${client.closed}`);
        client = new RawClient(proxy.url);
      }
    }
    client.end();
    expect(seen).toEqual(['4 ECONNRESET', '8 ECONNRESET', '12 ECONNRESET', '16 ECONNRESET', '20 ECONNRESET']);
    expect(proxy.drops.map((d) => `${d.n} ${d.method} ${d.path}`)).toEqual(
      [4, 8, 12, 16, 20].map((n) => `${n} GET /r/${n}`),
    );
    // Dropped at the request: the server never saw them.
    expect(upstream.paths).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1)
        .filter((n) => n % 4 !== 0)
        .map((n) => `GET /r/${n}`),
    );
  });

  it("'seeded': the same requests lost for the same seed, about one in N, on a keep-alive pool as tiergate's prober uses", async () => {
    const N = 20;
    const COUNT = 400;
    const expected = Array.from({ length: COUNT }, (_, i) => i + 1).filter(dropDecider({ dropOneIn: N, seed: 7 }));
    // About one in N: a wide bound on a fixed draw (binomial mean 20, sd 4.4), not a timing threshold.
    expect(expected.length).toBeGreaterThanOrEqual(COUNT / N / 2);
    expect(expected.length).toBeLessThanOrEqual((COUNT / N) * 2);
    for (let round = 0; round < 2; round++) {
      const proxy = await startTestFlakyProxy({ target: upstream.url, dropOneIn: N, seed: 7 });
      const pool = new Pool(proxy.url, { connections: 1, pipelining: 1 });
      const failed: number[] = [];
      const codes = new Set<string>();
      for (let n = 1; n <= COUNT; n++) {
        try {
          const res = await pool.request({ method: 'GET', path: `/p/${n}` });
          expect(await res.body.text()).toContain(`GET /p/${n} `);
        } catch (err) {
          failed.push(n);
          codes.add((err as NodeJS.ErrnoException).code ?? String(err));
        }
      }
      await pool.close();
      expect(failed).toEqual(expected);
      expect(proxy.drops.map((d) => d.n)).toEqual(expected);
      expect([...codes]).toEqual(['ECONNRESET']);
      // Few connections for many requests: drops are per request, not per connection.
      expect(proxy.connections).toBeLessThanOrEqual(expected.length + 1);
    }
  });

  it("dropAt 'response', how 'close': the server answers (and counts) it, the client gets a closed socket and no answer", async () => {
    const proxy = await startTestFlakyProxy({
      target: upstream.url,
      dropOneIn: 3,
      pick: 'every',
      dropAt: 'response',
      how: 'close',
    });
    upstream.reset();
    const client = new RawClient(proxy.url);
    const answers: (string | null)[] = [];
    for (let n = 1; n <= 3; n++) {
      client.write(Buffer.from(`GET /s/${n} HTTP/1.1\r\nHost: x\r\n\r\n`));
      const answer = await client.answer(false);
      answers.push(answer === null ? `none (${client.closed})` : answer.toString('latin1').split('\r\n')[0]!);
    }
    client.end();
    expect(answers).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'none (closed)']);
    expect(upstream.paths).toEqual(['GET /s/1', 'GET /s/2', 'GET /s/3']);
    expect(proxy.drops.map((d) => [d.n, d.dropAt])).toEqual([[3, 'response']]);
  });

  it('refuses a target off loopback and a rate it cannot honour', async () => {
    await expect(startTestFlakyProxy({ target: 'http://10.0.0.1:80', dropOneIn: 2 })).rejects.toThrow(/loopback/);
    await expect(startTestFlakyProxy({ target: upstream.url, dropOneIn: 1 })).rejects.toThrow(/dropOneIn/);
  });
});

/** Every record of one connection and direction: its own delay kept, in order, never early. */
function expectInOrder(chunks: readonly DelayedChunk[]): void {
  for (const [i, c] of chunks.entries()) {
    expect(c.seq).toBe(i + 1);
    expect(c.dueAt).toBeGreaterThanOrEqual(c.arrivedAt + c.drawnMs);
    expect(c.sentAt).toBeGreaterThanOrEqual(c.dueAt);
    if (i > 0) expect(c.dueAt).toBeGreaterThanOrEqual(chunks[i - 1]!.dueAt);
  }
}

/** A pool trusting `ca`, one connection, closed after the test. */
function poolTrusting(url: string, ca: string): Pool {
  const pool = new Pool(url, { connections: 1, pipelining: 1, connect: { ca } });
  onTestFinished(() => pool.close());
  return pool;
}

describe('flaky proxy: at a distance', () => {
  it('delays every chunk each way within latency ± jitter, in order, and passes every byte unchanged', async () => {
    const direct = await exchange(upstream.url, 1);
    const chunks: DelayedChunk[] = [];
    const proxy = await startTestFlakyProxy({
      target: upstream.url,
      latencyMs: 20,
      jitterMs: 20,
      onChunk: (c) => chunks.push(c),
    });
    upstream.reset();
    expect(await exchange(proxy.url, 7)).toEqual(direct);
    expect(upstream.received().equals(Buffer.concat(REQUESTS))).toBe(true);
    const toServer = chunks.filter((c) => c.direction === 'to-server');
    const toClient = chunks.filter((c) => c.direction === 'to-client');
    expect(toServer.reduce((sum, c) => sum + c.bytes, 0)).toBe(Buffer.concat(REQUESTS).length);
    expect(toClient.reduce((sum, c) => sum + c.bytes, 0)).toBe(Buffer.concat(direct).length);
    for (const c of chunks) {
      expect(c.drawnMs).toBeGreaterThanOrEqual(0);
      expect(c.drawnMs).toBeLessThanOrEqual(20);
    }
    expectInOrder(toServer);
    expectInOrder(toClient);
  });

  it('drops still pick the same requests behind the distance', async () => {
    const proxy = await startTestFlakyProxy({ target: upstream.url, dropOneIn: 3, pick: 'every', latencyMs: 10 });
    const pool = new Pool(proxy.url, { connections: 1, pipelining: 1 });
    onTestFinished(() => pool.close());
    const outcome = async (n: number): Promise<string> => {
      try {
        const res = await pool.request({ method: 'GET', path: `/d/${n}` });
        await res.body.text();
        return String(res.statusCode);
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? String(error);
      }
    };
    const outcomes: string[] = [];
    for (let n = 1; n <= 6; n++) outcomes.push(await outcome(n));
    expect(outcomes).toEqual(['200', '200', 'ECONNRESET', '200', '200', 'ECONNRESET']);
    expect(proxy.drops.map((d) => d.path)).toEqual(['/d/3', '/d/6']);
  });
});

describe('flaky proxy: dropConnections', () => {
  it.each([
    ['next door', 0],
    ['at a distance', 20],
  ])('%s: resets every open connection now, and the proxy serves new ones after', async (_where, latencyMs) => {
    const proxy = await startTestFlakyProxy({ target: upstream.url, latencyMs });
    const clients = [new RawClient(proxy.url), new RawClient(proxy.url), new RawClient(proxy.url)];
    for (const client of clients) {
      client.write(Buffer.from('GET /warm HTTP/1.1\r\nHost: x\r\n\r\n'));
      expect(await client.answer(false)).not.toBeNull();
    }
    proxy.dropConnections();
    for (const client of clients) {
      expect(await client.answer(false)).toBeNull();
      expect(client.closed).toBe('ECONNRESET');
    }
    const again = new RawClient(proxy.url);
    again.write(Buffer.from('GET /again HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(await again.answer(false)).not.toBeNull();
    again.end();
    expect(proxy.connections).toBe(4);
  });
});

describe('flaky proxy: TLS terminated at the proxy', () => {
  it('serves HTTPS trusted through its CA, forwards plain HTTP upstream, and still drops what its rule picks', async () => {
    const proxy = await startTestFlakyProxy({ target: upstream.url, tls: 'valid', dropOneIn: 2, pick: 'every' });
    expect(proxy.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    upstream.reset();
    const pool = poolTrusting(proxy.url, proxy.ca!);
    const first = await pool.request({ method: 'GET', path: '/t/1' });
    expect(await first.body.text()).toContain('GET /t/1 ');
    const second = await pool.request({ method: 'GET', path: '/t/2' }).catch((e: NodeJS.ErrnoException) => e.code);
    expect(second).toBe('ECONNRESET');
    // Upstream saw plain HTTP: the request line as the client wrote it, no TLS record.
    expect(upstream.received().toString('latin1')).toMatch(/^GET \/t\/1 HTTP\/1\.1\r\n/);
    expect(upstream.paths).toEqual(['GET /t/1']);
  });

  const refusedWith: Record<Exclude<CertificateKind, 'valid'>, string> = {
    'wrong-name': 'ERR_TLS_CERT_ALTNAME_INVALID',
    expired: 'CERT_HAS_EXPIRED',
    'unknown-ca': 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  };
  it.each(Object.entries(refusedWith))(
    'tls %s: the handshake fails with %s, nothing reaches upstream',
    async (kind, code) => {
      const proxy = await startTestFlakyProxy({ target: upstream.url, tls: kind as CertificateKind });
      upstream.reset();
      expect(await handshake(proxy.url, proxy.ca!)).toBe(code);
      expect(proxy.connections).toBe(0);
      expect(upstream.received().length).toBe(0);
    },
  );

  it('at a distance: the TLS handshake travels it, each way, before any request', async () => {
    const chunks: DelayedChunk[] = [];
    const proxy = await startTestFlakyProxy({
      target: upstream.url,
      tls: 'valid',
      latencyMs: 20,
      onChunk: (c) => chunks.push(c),
    });
    expect(await handshake(proxy.url, proxy.ca!)).toBe('ok');
    // The ClientHello and the server's answer both went through the distance, each held half of it.
    expect(chunks.some((c) => c.direction === 'to-server' && c.drawnMs === 10)).toBe(true);
    expect(chunks.some((c) => c.direction === 'to-client' && c.drawnMs === 10)).toBe(true);
    const pool = poolTrusting(proxy.url, proxy.ca!);
    const answer = await pool.request({ method: 'GET', path: '/far' });
    expect(await answer.body.text()).toContain('GET /far ');
  });

  it('refuses a jitter over the latency', async () => {
    await expect(startTestFlakyProxy({ target: upstream.url, latencyMs: 10, jitterMs: 20 })).rejects.toThrow(
      RangeError,
    );
  });
});
