#!/usr/bin/env node
/**
 * Server 2: express 5 + rate-limiter-flexible RateLimiterMemory (points = Limit, duration = W s),
 * one limiter per quota class and tier (points are fixed per limiter), consumed with the org id
 * as key (client IP for requests without a valid key). A bulk upload consumes one point per
 * resume it carries (weighted consume); an empty or malformed one consumes 0 points (and is then
 * refused 400 by the route).
 *
 *   node rate-limiter-flexible.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200]
 *        [--tiers starter,professional] [--retry-after integer|readme]
 *
 * Headers are set from RateLimiterRes as the library's README does:
 *   X-RateLimit-Limit: opts.points, X-RateLimit-Remaining: res.remainingPoints,
 *   X-RateLimit-Reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000)
 * and Retry-After, on 429 only, as Math.ceil(msBeforeNext / 1000) (= retry_after_seconds), or with
 * --retry-after readme literally as the README writes it: msBeforeNext / 1000 (fractional).
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ANON_LIMITS, announce, bulkCount, createOrgs, onShutdown, parseCommandLine, rateLimitedBody, TIERS } from './lib/common.mjs';
import { buildExpressApp, listen } from './lib/express-app.mjs';

const args = parseCommandLine({ 'retry-after': { type: 'string', default: 'integer' }, 'strip-rate-headers': { type: 'boolean', default: false } });
if (!['integer', 'readme'].includes(args['retry-after'])) {
  process.stderr.write(`--retry-after ${args['retry-after']}: integer or readme\n`);
  process.exit(2);
}
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);

const limiters = { read: {}, ingest: {} };
for (const cls of ['read', 'ingest']) {
  for (const [tier, limits] of [...Object.entries(TIERS), ['anon', ANON_LIMITS]]) {
    limiters[cls][tier] = new RateLimiterMemory({ keyPrefix: `${cls}-${tier}`, points: limits[cls], duration: args.windowS });
  }
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

const app = buildExpressApp({ keys, parseMs: args.parseMs, limiter, stripRateLimitHeaders: args['strip-rate-headers'] });
const server = await listen(app, args.port);
announce(server, 'rate-limiter-flexible RateLimiterMemory', `window=${args.windowS}s`);
onShutdown(() => new Promise((r) => server.close(r)));
