/**
 * The load driver's connections, against real node:http servers on loopback: requests go out as
 * prepared, connections are reused and bounded, and every way a request can end without a response
 * ends it once, with a stable code.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { HeaderPicker } from '../../src/measure/header-picker.ts';
import { LoadPool, prepareRequest, type LoadHandler } from '../../src/measure/load-pool.ts';
import type { ObservationError } from '../../src/measure/observation.ts';

async function server(handle: (req: IncomingMessage, res: ServerResponse) => void, keepAliveTimeoutMs = 5000) {
  const connections = new Set<Socket>();
  let opened = 0;
  const s = createServer(handle);
  s.keepAliveTimeout = keepAliveTimeoutMs;
  s.on('connection', (socket: Socket) => {
    opened += 1;
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, opened: () => opened };
}

function pool(url: string, connections = 4, timeoutMs = 2000) {
  const p = new LoadPool(url, { connections, timeoutMs, picker: new HeaderPicker(['x-seen']) });
  onTestFinished(() => p.close());
  return p;
}

interface Ended {
  status: number | null;
  values: readonly (string | null)[] | null;
  bytes: number;
  error: ObservationError | null;
}

/** Send and wait for the end; fails the test if a request ends twice. */
function send(p: LoadPool, request = prepareRequest('http://127.0.0.1', 'GET', '/x', {}, null)): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const out: Ended = { status: null, values: null, bytes: 0, error: null };
    let ended = false;
    const end = () => {
      if (ended) reject(new Error('ended twice'));
      ended = true;
      resolve(out);
    };
    const handler: LoadHandler = {
      onHeaders: (status, values) => Object.assign(out, { status, values }),
      onData: (chunk) => (out.bytes += chunk.length),
      onComplete: end,
      onError: (error) => {
        out.error = error;
        end();
      },
    };
    p.send(request, handler);
  });
}

describe('prepareRequest', () => {
  it('builds the request bytes once: request line, host, headers, and Content-Length for a body', () => {
    const r = prepareRequest('http://127.0.0.1:8080', 'POST', '/v1/jobs?x=1', { 'x-api-key': 'k' }, Buffer.from('{}'));
    expect(r.bytes.toString()).toBe(
      'POST /v1/jobs?x=1 HTTP/1.1\r\nhost: 127.0.0.1:8080\r\nconnection: keep-alive\r\nx-api-key: k\r\ncontent-length: 2\r\n\r\n{}',
    );
    expect(prepareRequest('http://[::1]:1', 'HEAD', '/', {}, null)).toMatchObject({ head: true });
  });

  it('refuses a header or path that would break the request', () => {
    expect(() => prepareRequest('http://127.0.0.1', 'GET', '/', { 'x-a': 'v\r\nx-b: w' }, null)).toThrow();
    expect(() => prepareRequest('http://127.0.0.1', 'GET', '/', { 'x a': 'v' }, null)).toThrow();
    expect(() => prepareRequest('http://127.0.0.1', 'GET', '/a b', {}, null)).toThrow();
  });
});

describe('LoadPool', () => {
  it('sends the prepared bytes and reuses one connection for requests one after another', async () => {
    const seen: { method?: string; url?: string; key?: string | string[]; body: string }[] = [];
    const target = await server((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, key: req.headers['x-api-key'], body });
        res.writeHead(200, { 'X-Seen': String(seen.length), 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    const p = pool(target.url);
    const request = prepareRequest(target.url, 'POST', '/jobs', { 'x-api-key': 'secret' }, Buffer.from('{"a":1}'));
    for (let i = 1; i <= 5; i++)
      expect(await send(p, request)).toEqual({ status: 200, values: [String(i)], bytes: 2, error: null });
    expect(seen[0]).toEqual({ method: 'POST', url: '/jobs', key: 'secret', body: '{"a":1}' });
    expect(target.opened()).toBe(1);
  });

  it('opens at most its connections and queues the rest, one request per connection at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const target = await server((_req, res) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.end('x');
      }, 20);
    });
    const p = pool(target.url, 2);
    const ended = await Promise.all(Array.from({ length: 6 }, () => send(p)));
    expect(ended.every((e) => e.status === 200)).toBe(true);
    expect(maxInFlight).toBe(2);
    expect(target.opened()).toBe(2);
  });

  it('does not send on a connection the server is about to close: it idles less than the announced Keep-Alive', async () => {
    // Node announces "Keep-Alive: timeout=3"; the pool holds an idle connection 2 s less: after 1.1 s
    // it opens a new one although the server would still take the old.
    const target = await server((_req, res) => res.end('x'), 3000);
    const p = pool(target.url);
    expect((await send(p)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await send(p)).toMatchObject({ status: 200, error: null });
    expect(target.opened()).toBe(2);
  });

  it('keeps no connection when the announced Keep-Alive leaves no margin', async () => {
    const target = await server((_req, res) => res.end('x'), 2000);
    const p = pool(target.url);
    expect((await send(p)).status).toBe(200);
    expect((await send(p)).status).toBe(200);
    expect(target.opened()).toBe(2);
  });

  it('ends a request the server never answers as TIMEOUT', async () => {
    const target = await server(() => {});
    expect((await send(pool(target.url, 1, 100))).error?.code).toBe('TIMEOUT');
  });

  it('ends a request whose connection the server drops mid-response as ECONNRESET', async () => {
    const target = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    expect(await send(pool(target.url))).toMatchObject({ status: 200, bytes: 7, error: { code: 'ECONNRESET' } });
  });

  it('ends a request to a closed port as ECONNREFUSED', async () => {
    const target = await server(() => {});
    const closedPort = target.url.replace(/:\d+$/, ':1');
    expect((await send(pool(closedPort))).error?.code).toBe('ECONNREFUSED');
  });

  it('ends everything in flight or queued as INTERRUPTED on abortAll, and refuses sends once closed', async () => {
    const target = await server(() => {});
    const p = pool(target.url, 1);
    const ends = [send(p), send(p)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    p.abortAll('phase ended');
    expect((await Promise.all(ends)).map((e) => e.error?.code)).toEqual(['INTERRUPTED', 'INTERRUPTED']);
    await p.close();
    expect((await send(p)).error?.code).toBe('INTERRUPTED');
  });
});
