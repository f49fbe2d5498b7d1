/**
 * Several edges in front of one limiter: N HTTP listeners on loopback, each on its own port, all
 * handing their requests to the same request handler (so to the same limiter store and the same
 * per-org concurrency cap), each answer carrying the edge's name in `x-edge-node: edge-<i>` (the
 * default of tiergate's `target.edgeHeader`, and what its reference target sends).
 *
 * The header is set before the handler runs, so every answer carries it: errors, 404s, HEADs, 429s.
 */
import { createServer } from 'node:http';

export const EDGE_HEADER = 'x-edge-node';
export const edgeName = (i) => `edge-${i}`;

/** Listen with `handler` (req, res) on `edges` ports: port 0 gives each a free port; P gives P + i. */
export async function listenEdges(handler, { port, edges, keepAliveTimeout = 10_000 }) {
  const servers = [];
  try {
    for (let i = 0; i < edges; i++) {
      const name = edgeName(i);
      const server = createServer((req, res) => {
        res.setHeader(EDGE_HEADER, name);
        handler(req, res);
      });
      server.keepAliveTimeout = keepAliveTimeout;
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port === 0 ? 0 : port + i, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    }
  } catch (err) {
    await closeEdges(servers);
    throw err;
  }
  return servers;
}

/** The edges' base URLs, edge 0 first. */
export const edgeUrls = (servers) => servers.map((s) => `http://127.0.0.1:${s.address().port}`);

/** Stop listening and end idle keep-alive connections (bounded by the caller's shutdown timer). */
export function closeEdges(servers) {
  return Promise.all(
    servers.map(
      (s) =>
        new Promise((resolve) => {
          if (!s.listening) return resolve();
          s.close(() => resolve());
          s.closeIdleConnections?.();
        }),
    ),
  );
}
