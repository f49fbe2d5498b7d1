#!/usr/bin/env node
/**
 * Server 3: fastify 5 + @fastify/rate-limit 11 (in-memory LocalStore), keyGenerator by organization
 * (client IP for requests without a valid key), max by the org's tier, timeWindow W.
 *
 *   node fastify-rate-limit.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200]
 *        [--tiers starter,professional] [--mode careful|per-route|global] [--edges 1] [--bulk-parse-ms 0]
 *
 * --mode careful (default): what a careful user builds to keep the spec's one read quota and one
 *   ingest quota per org: the plugin registered twice, in two encapsulated contexts (read routes,
 *   ingest routes), each with `global: true` and no per-route config, so each context's routes share
 *   that registration's store; 404s go through the read registration's `fastify.rateLimit()`
 *   (no options: same store) as the plugin's README shows for setNotFoundHandler.
 * --mode per-route: the plugin registered once with `global: false`, every route carrying
 *   `config.rateLimit: {max, timeWindow, groupId: 'read'|'ingest'}`, as the README's groupId example.
 * --mode global: the plugin's default: registered once, `global: true`, no route config: one counter
 *   per key across every route (read and ingest together), max = the read figure.
 *
 * The library cannot weight a hit: a bulk upload counts one, whatever it carries. Its hook is
 * onRequest, before the body is read. The 429 comes from errorResponseBuilder (an Error carrying the
 * §7 body) rendered by setErrorHandler, as the README suggests; the library's headers stay.
 */
import { createServer } from 'node:http';
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import {
  ANON_LIMITS,
  CAP_RETRY_AFTER_S,
  INGEST_PATHS,
  InFlight,
  ROUTES,
  announce,
  authErrorBody,
  createOrgs,
  notFoundBody,
  onShutdown,
  parseCommandLine,
  quotaClass,
  rateLimitedBody,
  scopeErrorBody,
} from './lib/common.mjs';
import { closeEdges, listenEdges } from './lib/edges.mjs';

const args = parseCommandLine({ mode: { type: 'string', default: 'careful' } });
if (!['careful', 'per-route', 'global'].includes(args.mode)) {
  process.stderr.write(`--mode ${args.mode}: careful, per-route or global\n`);
  process.exit(2);
}
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);
const inflight = new InFlight();

// The edges (lib/edges.mjs) listen; fastify's own server is never started, its handler serves them all.
let fastifyHandler = null;
const serverFactory = (handler) => {
  fastifyHandler = handler;
  return createServer();
};
const app = Fastify({ logger: false, bodyLimit: 20 * 1024 * 1024, serverFactory });
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

// Key resolution first (root onRequest hooks run before the plugin's route-level onRequest hook).
app.decorateRequest('auth', null);
app.addHook('onRequest', async (req) => {
  req.auth = keys.lookup(req.headers['x-api-key']);
});

class RateLimited extends Error {
  constructor(body) {
    super(body.message);
    this.statusCode = 429;
    this.body = body;
  }
}
app.setErrorHandler((err, _req, reply) => {
  if (err instanceof RateLimited) {
    reply.header('retry-after', String(err.body.retry_after_seconds));
    return reply.code(429).send(err.body);
  }
  const status = err.statusCode ?? 500;
  return reply
    .code(status)
    .send({ status: 'error', code: status === 400 ? 'BAD_REQUEST' : 'INTERNAL', message: err.message });
});

const pluginOptions = (cls) => ({
  max: (req) => (req.auth?.ok ? req.auth.org.limits[cls] : ANON_LIMITS[cls]),
  timeWindow: args.windowMs,
  keyGenerator: (req) => (req.auth?.ok ? `org:${req.auth.org.id}` : `anon:${req.ip}`),
  // context.ttl is ms; the library's own Retry-After is Math.ceil(ttl / 1000): the body says the same.
  errorResponseBuilder: (_req, context) =>
    new RateLimited(
      rateLimitedBody(Math.ceil(context.ttl / 1000), `${cls} quota of ${context.max} per ${args.windowS}s exceeded`),
    ),
});

/** 401, the concurrency cap, the scope: after the limiter (preHandler), so their answers carry its headers. */
async function gate(req, reply, scope) {
  if (!req.auth.ok) return reply.code(401).send(authErrorBody(req.auth.reason));
  const { org } = req.auth;
  if (!inflight.enter(org)) {
    reply.header('retry-after', String(CAP_RETRY_AFTER_S));
    return reply
      .code(429)
      .send(rateLimitedBody(CAP_RETRY_AFTER_S, `more than ${org.limits.concurrency} requests in flight`));
  }
  let left = false;
  reply.raw.on('close', () => {
    if (!left) inflight.leave(org);
    left = true;
  });
  if (scope && !req.auth.scopes.has(scope)) return reply.code(403).send(scopeErrorBody(scope));
  return undefined;
}

function addRoutes(instance, routes, routeConfig) {
  for (const route of routes) {
    instance.route({
      method: route.method,
      url: route.path,
      config: routeConfig ? routeConfig(route) : undefined,
      preHandler: async (req, reply) => gate(req, reply, route.scope),
      handler: async (req, reply) => {
        const out = await route.handle({
          org: req.auth.org,
          params: req.params,
          body: req.body,
          parseMs: args.parseMs,
          bulkParseMs: args.bulkParseMs,
        });
        reply.code(out.status);
        return out.body;
      },
    });
  }
}
const notFound = async (req, reply) => {
  const denied = await gate(req, reply, null);
  if (denied) return denied;
  return reply.code(404).send(notFoundBody());
};

const readRoutes = ROUTES.filter((r) => !INGEST_PATHS.has(r.path));
const ingestRoutes = ROUTES.filter((r) => INGEST_PATHS.has(r.path));

if (args.mode === 'careful') {
  let readLimit = null;
  await app.register(async (ctx) => {
    await ctx.register(rateLimit, pluginOptions('read'));
    addRoutes(ctx, readRoutes);
    readLimit = ctx.rateLimit(); // no options: the same store as the read routes
  });
  await app.register(async (ctx) => {
    await ctx.register(rateLimit, pluginOptions('ingest'));
    addRoutes(ctx, ingestRoutes);
  });
  app.setNotFoundHandler({ preHandler: (req, reply) => readLimit(req, reply) }, notFound);
} else if (args.mode === 'per-route') {
  await app.register(rateLimit, { ...pluginOptions('read'), global: false });
  const cfg = (route) => {
    const cls = quotaClass(route.path);
    const { max, timeWindow, errorResponseBuilder } = pluginOptions(cls);
    return { rateLimit: { max, timeWindow, errorResponseBuilder, groupId: cls } };
  };
  addRoutes(app, ROUTES, cfg);
  app.setNotFoundHandler({ preHandler: app.rateLimit({ groupId: 'read' }) }, notFound);
} else {
  await app.register(rateLimit, pluginOptions('read'));
  addRoutes(app, ROUTES);
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, notFound);
}

await app.ready();
const edges = await listenEdges((req, res) => fastifyHandler(req, res), { port: args.port, edges: args.edges });
announce(edges, `fastify-rate-limit mode=${args.mode}`, `window=${args.windowS}s`);
onShutdown(async () => {
  await closeEdges(edges);
  await app.close();
});
