/**
 * A flaky network in front of one edge: a TCP proxy on loopback that passes every byte through
 * unchanged, except that about one request in N is dropped unanswered: the proxy reads the request,
 * then resets the client's connection (ECONNRESET) or closes it (a socket closed with no response).
 *
 *   const proxy = await startFlakyProxy({ target: 'http://127.0.0.1:8080', dropOneIn: 200 });
 *   proxy.url; proxy.dropped; proxy.requests; proxy.drops; await proxy.close();
 *
 * Per request, not per connection: HTTP clients keep connections alive (tiergate's prober holds a few
 * per edge for the whole run), so a network that drops "one connection in 200" shows as one request
 * in about 200 losing its connection mid-flight. The proxy finds request boundaries in the client's
 * byte stream (request line, headers, then Content-Length bytes or a chunked body), numbers the
 * requests in the order their first byte reaches it (1, 2, …, over all connections) and drops the
 * ones `pick` chooses: a pure function of the number, so a given order of requests always loses the
 * same ones.
 *
 * Options:
 *   target     'http://127.0.0.1:PORT' (loopback only: 127.0.0.0/8, localhost, [::1])
 *   dropOneIn  N ≥ 2 drops about one request in N; 0 drops none (a plain proxy)
 *   pick       'seeded' (default): request n is dropped when a hash of (seed, n) falls in the lowest
 *              1/N of its range (drops at irregular places, about one in N over a run);
 *              'every': requests N, 2N, 3N, … (exactly one in N)
 *   seed       for 'seeded' (default 1)
 *   dropAt     'request' (default): the dropped request never reaches the server (nothing counted);
 *              'response': it is forwarded, the server answers (and counts it), the answer is thrown
 *              away and the connection cut: the client cannot know whether it was counted. This
 *              takes the first bytes the server sends after it as its answer, so it assumes one
 *              request in flight per connection (HTTP pipelining 1, as undici and tiergate send)
 *   how        'reset' (default: RST, the client sees ECONNRESET) or 'close' (FIN, "other side closed")
 *   holdMs     how long the connection stays open, silent, after the dropped request before it is
 *              cut (default 0); a client timeout shorter than this sees a timeout instead
 *   port       listening port on 127.0.0.1 (default 0: a free one)
 *
 * Requests that are not dropped, and the answers to them, pass byte for byte: the proxy never
 * rewrites, buffers a whole message or adds a header. After a drop the connection's other bytes are
 * lost with it, as they would be. A request head over 64 KiB, an Upgrade or CONNECT ends the
 * counting on that connection (its bytes still pass).
 */
import { connect, createServer } from 'node:net';
import { RequestSplitter } from './request-splitter.mjs';

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

/** Whether request `n` (1-based) is dropped: a pure function of n and the options. */
export function dropDecider({ dropOneIn, pick = 'seeded', seed = 1 }) {
  if (!dropOneIn) return () => false;
  if (!Number.isInteger(dropOneIn) || dropOneIn < 2)
    throw new RangeError(`dropOneIn ${dropOneIn}: an integer ≥ 2, or 0 for none`);
  if (pick === 'every') return (n) => n % dropOneIn === 0;
  if (pick !== 'seeded') throw new RangeError(`pick ${pick}: 'seeded' or 'every'`);
  const threshold = Math.floor(2 ** 32 / dropOneIn);
  return (n) => hash32(seed, n) < threshold;
}

/** A 32-bit mix of (seed, n) (murmur3's finalizer over both): uniform enough to pick one in N. */
function hash32(seed, n) {
  let h = Math.imul((seed >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n >>> 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function parseTarget(target) {
  let url;
  try {
    url = new URL(target);
  } catch {
    throw new TypeError(`target ${target}: expected http://127.0.0.1:PORT`);
  }
  if (url.protocol !== 'http:' || !LOOPBACK.test(url.hostname) || !url.port)
    throw new TypeError(`target ${target}: expected http://127.0.0.1:PORT (loopback only)`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
}

/** Start the proxy: resolves {url, port, dropped, requests, drops, close()}. */
export async function startFlakyProxy(options) {
  const {
    target,
    dropOneIn = 0,
    pick = 'seeded',
    seed = 1,
    dropAt = 'request',
    how = 'reset',
    holdMs = 0,
    port = 0,
  } = options;
  const upstreamAddress = parseTarget(target);
  const drop = dropDecider({ dropOneIn, pick, seed });
  if (!['request', 'response'].includes(dropAt)) throw new RangeError(`dropAt ${dropAt}: 'request' or 'response'`);
  if (!['reset', 'close'].includes(how)) throw new RangeError(`how ${how}: 'reset' or 'close'`);
  if (!(Number.isFinite(holdMs) && holdMs >= 0 && holdMs <= 600_000))
    throw new RangeError(`holdMs ${holdMs}: 0..600000`);

  let requests = 0;
  let connections = 0;
  const drops = [];
  const sockets = new Set();

  const server = createServer({ allowHalfOpen: true }, (client) => {
    connections += 1;
    const upstream = connect({ ...upstreamAddress, allowHalfOpen: true });
    sockets.add(client);
    sockets.add(upstream);
    let cut = false;
    let awaitingDroppedAnswer = false;

    const kill = () => {
      if (cut) return;
      cut = true;
      const finish = () => {
        if (how === 'reset' && typeof client.resetAndDestroy === 'function' && !client.destroyed)
          client.resetAndDestroy();
        else client.destroy();
        upstream.destroy();
      };
      if (holdMs > 0) setTimeout(finish, holdMs).unref();
      else finish();
    };

    const splitter = new RequestSplitter({
      next: () => {
        requests += 1;
        return { n: requests, drop: drop(requests), method: '', path: '' };
      },
    });
    const ended = (request) => {
      if (!request.drop) return;
      drops.push({ n: request.n, method: request.method, path: request.path, at: Date.now(), dropAt });
      if (dropAt === 'request') kill();
      else awaitingDroppedAnswer = true;
    };

    client.on('data', (chunk) => {
      if (cut) return;
      for (const { buf, request, end } of splitter.push(chunk)) {
        if (cut) return;
        if (end) {
          ended(end);
          continue;
        }
        // Request mode: a dropped request's bytes never reach the server; nothing after it does either.
        if (request?.drop && dropAt === 'request') continue;
        if (!upstream.write(buf)) {
          client.pause();
          upstream.once('drain', () => client.resume());
        }
      }
    });
    upstream.on('data', (chunk) => {
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
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      if (!cut && !client.destroyed) client.end();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    port: server.address().port,
    target,
    /** Requests dropped so far. */
    get dropped() {
      return drops.length;
    },
    /** Requests seen so far (dropped or not). */
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    /** The dropped requests: {n, method, path, at (epoch ms), dropAt}. */
    drops,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
