#!/usr/bin/env node
/**
 * Server 2: express 5 + rate-limiter-flexible RateLimiterMemory (points = Limit, duration = W s),
 * one limiter per quota class and tier (points are fixed per limiter), consumed with the org id
 * as key (client IP for requests without a valid key). A bulk upload consumes one point per
 * resume it carries (weighted consume); an empty or malformed one consumes 0 points (and is then
 * refused 400 by the route).
 *
 *   node rate-limiter-flexible.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200]
 *        [--tiers starter,professional] [--retry-after integer|readme] [--edges 1] [--bulk-parse-ms 0]
 *        [--store memory|redis --redis-url redis://127.0.0.1:PORT]
 *
 * --edges N: N listeners (edge i on its own port, `x-edge-node: edge-<i>`) in front of the same
 *   limiters. --store memory (default): RateLimiterMemory, shared by the edges in this process.
 *   --store redis: RateLimiterRedis on an ioredis client (the library's Redis store: a Lua INCRBY with
 *   an expiry set on the first request of a window) against a redis-server on loopback, so every
 *   edge's limiter state goes through a real store; the concurrency cap stays in this process.
 *
 * Headers are set from RateLimiterRes as the library's README does:
 *   X-RateLimit-Limit: opts.points, X-RateLimit-Remaining: res.remainingPoints,
 *   X-RateLimit-Reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000)
 * and Retry-After, on 429 only, as Math.ceil(msBeforeNext / 1000) (= retry_after_seconds), or with
 * --retry-after readme literally as the README writes it: msBeforeNext / 1000 (fractional).
 */
import { randomUUID } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { ANON_LIMITS, bulkCount, createOrgs, parseCommandLine, rateLimitedBody, TIERS } from './lib/common.mjs';
import { serveExpress } from './lib/express-app.mjs';

const args = parseCommandLine({
  'retry-after': { type: 'string', default: 'integer' },
  'strip-rate-headers': { type: 'boolean', default: false },
  store: { type: 'string', default: 'memory' },
  'redis-url': { type: 'string' },
});
const usage = (msg) => {
  process.stderr.write(`${msg}\n`);
  process.exit(2);
};
if (!['integer', 'readme'].includes(args['retry-after']))
  usage(`--retry-after ${args['retry-after']}: integer or readme`);
if (!['memory', 'redis'].includes(args.store)) usage(`--store ${args.store}: memory or redis`);
if (args.store === 'redis' && !/^redis:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/.test(args['redis-url'] ?? '')) {
  usage('--store redis needs --redis-url redis://127.0.0.1:PORT (a redis-server on loopback)');
}
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);

const redis = args.store === 'redis' ? await connectRedis(args['redis-url']) : null;
/** Keys of this server's run only, should the store be shared with anything else. */
const runPrefix = `tiergate-testbed-${randomUUID().slice(0, 8)}`;
const limiters = { read: {}, ingest: {} };
for (const cls of ['read', 'ingest']) {
  for (const [tier, limits] of [...Object.entries(TIERS), ['anon', ANON_LIMITS]]) {
    const opts = { keyPrefix: `${cls}-${tier}`, points: limits[cls], duration: args.windowS };
    limiters[cls][tier] = redis
      ? new RateLimiterRedis({ ...opts, keyPrefix: `${runPrefix}:${opts.keyPrefix}`, storeClient: redis })
      : new RateLimiterMemory(opts);
  }
}

/** An ioredis client, connected (bounded wait), failing requests at once while the store is down. */
async function connectRedis(url) {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5000,
  });
  client.on('error', (err) => process.stderr.write(`redis: ${err.message}\n`));
  await client.connect();
  await client.ping();
  return client;
}

const BULK = '/recruiter/jobs/vendor/resume-analysis/bulk';

async function limiter(req, res, next) {
  const cls = req.quotaClass;
  const rl = limiters[cls][req.auth.ok ? req.auth.org.tier : 'anon'];
  const key = req.auth.ok ? req.auth.org.id : `ip:${req.ip}`;
  const points = req.path === BULK && req.method === 'POST' ? (bulkCount(req.body) ?? 0) : 1;
  const setHeaders = (r) => {
    res.set('X-RateLimit-Limit', String(rl.points));
    res.set('X-RateLimit-Remaining', String(r.remainingPoints));
    res.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
  };
  try {
    const r = await rl.consume(key, points);
    setHeaders(r);
    next();
  } catch (r) {
    if (!(r instanceof RateLimiterRes)) return next(r);
    setHeaders(r);
    const seconds = Math.ceil(r.msBeforeNext / 1000);
    res.set('Retry-After', String(args['retry-after'] === 'readme' ? r.msBeforeNext / 1000 : seconds));
    res.status(429).json(rateLimitedBody(seconds, `${cls} quota of ${rl.points} per ${args.windowS}s exceeded`));
  }
}

await serveExpress(args, {
  keys,
  limiter,
  name: `rate-limiter-flexible ${redis ? 'RateLimiterRedis' : 'RateLimiterMemory'}`,
  stripRateLimitHeaders: args['strip-rate-headers'],
  onClose: async () => {
    await redis?.quit().catch(() => redis.disconnect());
  },
});
