/**
 * The recruiting API on express 5, with a rate-limiting middleware supplied by the caller.
 *
 * Pipeline, in order (every response after step 3 carries whatever headers the limiter set):
 *   1. body parsing (JSON for application/json, raw bytes for anything else); a body that does not
 *      parse is answered by the route (step 6), so its 400 also goes through the limiter
 *   2. key resolution: req.auth = {ok, org, scopes} | {ok:false, reason}; req.quotaClass
 *   3. the limiter (library): keyed by org, or by client IP for requests without a valid key
 *   4. 401 for a missing, malformed or unknown key
 *   5. the per-org concurrency cap (in-flight counter): 429 + §7 body, Retry-After 1
 *   6. the route: 403 without its scope, else the handler; 404 for anything else
 */
import express from 'express';
import { closeEdges, listenEdges } from './edges.mjs';
import {
  CAP_RETRY_AFTER_S,
  InFlight,
  ROUTES,
  announce,
  authErrorBody,
  notFoundBody,
  onShutdown,
  quotaClass,
  rateLimitedBody,
  scopeErrorBody,
} from './common.mjs';

export function buildExpressApp({ keys, limiter, parseMs, bulkParseMs = 0, stripRateLimitHeaders = false }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const inflight = new InFlight();

  if (stripRateLimitHeaders) app.use(stripHeaders);
  app.use(deferErrors(express.json({ limit: '20mb' })));
  app.use(deferErrors(express.raw({ type: () => true, limit: '20mb' })));
  app.use((req, _res, next) => {
    req.auth = keys.lookup(req.get('x-api-key'));
    req.quotaClass = quotaClass(req.path);
    next();
  });
  app.use(limiter);
  app.use((req, res, next) => {
    if (!req.auth.ok) return res.status(401).json(authErrorBody(req.auth.reason));
    next();
  });
  app.use((req, res, next) => {
    const { org } = req.auth;
    if (!inflight.enter(org)) {
      res.set('Retry-After', String(CAP_RETRY_AFTER_S));
      return res
        .status(429)
        .json(rateLimitedBody(CAP_RETRY_AFTER_S, `more than ${org.limits.concurrency} requests in flight`));
    }
    let left = false;
    res.on('close', () => {
      if (!left) inflight.leave(org);
      left = true;
    });
    next();
  });
  for (const route of ROUTES) {
    app[route.method.toLowerCase()](route.path, async (req, res, next) => {
      try {
        if (route.scope && !req.auth.scopes.has(route.scope)) return res.status(403).json(scopeErrorBody(route.scope));
        if (req.bodyError) return next(req.bodyError);
        const out = await route.handle({ org: req.auth.org, params: req.params, body: req.body, parseMs, bulkParseMs });
        res.status(out.status);
        if (out.body === undefined) res.end();
        else res.json(out.body);
      } catch (err) {
        next(err);
      }
    });
  }
  app.use((_req, res) => res.status(404).json(notFoundBody()));
  // Four parameters: Express knows an error handler by its arity.
  app.use((err, _req, res, _next) => {
    const status = err.status ?? err.statusCode ?? 500;
    if (!res.headersSent)
      res.status(status).json({
        status: 'error',
        code: status === 400 ? 'BAD_REQUEST' : 'INTERNAL',
        message: String(err.message ?? err),
      });
  });
  return app;
}

/** A body parser whose error waits for the route (req.bodyError), after the limiter has answered for it. */
function deferErrors(parser) {
  return (req, res, next) =>
    parser(req, res, (err) => {
      if (err) req.bodyError = err;
      next();
    });
}

/** "Gateway without headers": the limiter runs as configured, but no X-RateLimit-* leaves the server. */
function stripHeaders(_req, res, next) {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name, value) => (/^x-ratelimit-/i.test(name) ? res : setHeader(name, value));
  next();
}

/**
 * Listen on loopback only: `edges` listeners (default 1), edge i on its own port, all serving the one
 * app (one limiter store, one concurrency cap), each answer naming its edge (lib/edges.mjs).
 * Resolves the servers, edge 0 first, and a close function.
 */
export async function listen(app, port, edges = 1) {
  const servers = await listenEdges(app, { port, edges });
  return { servers, close: () => closeEdges(servers) };
}

/**
 * Build the app, listen on its edges, say so, and close on a signal: what every express server of
 * the test bed does once its limiter is made. `onClose` closes what it opened beside (a store).
 */
export async function serveExpress(
  args,
  { keys, limiter, name, stripRateLimitHeaders = false, onClose = async () => {} },
) {
  const app = buildExpressApp({
    keys,
    parseMs: args.parseMs,
    bulkParseMs: args.bulkParseMs,
    limiter,
    stripRateLimitHeaders,
  });
  const { servers, close } = await listen(app, args.port, args.edges);
  announce(servers, name, `window=${args.windowS}s`);
  onShutdown(async () => {
    await close();
    await onClose();
  });
}
