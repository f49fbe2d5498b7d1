#!/usr/bin/env node
/**
 * Server 1 (and 5): express 5 + express-rate-limit 8, MemoryStore, keyed by organization.
 *
 *   node express-rate-limit.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200]
 *        [--tiers starter,professional] [--headers legacy|none]
 *
 * --headers legacy (default): legacyHeaders: true (X-RateLimit-Limit/-Remaining/-Reset) and
 *   standardHeaders: 'draft-6' (RateLimit-Limit/-Remaining/-Reset/-Policy), i.e. what
 *   `standardHeaders: true, legacyHeaders: true` gives.
 * --headers none: legacyHeaders: false, standardHeaders: false, the "gateway without headers":
 *   the library sets no rate-limit headers and no Retry-After; the 429 handler sets Retry-After.
 *
 * Two limiters: one for the read class, one for the ingest class (the two resume-analysis paths),
 * each with `limit` and `keyGenerator` by organization (client IP for requests without a valid key).
 * The library cannot weight a hit: a bulk upload counts one ingest unit whatever it carries.
 */
import { rateLimit, ipKeyGenerator } from 'express-rate-limit';
import { ANON_LIMITS, createOrgs, parseCommandLine, rateLimitedBody } from './lib/common.mjs';
import { serveExpress } from './lib/express-app.mjs';

const args = parseCommandLine({ headers: { type: 'string', default: 'legacy' } });
if (!['legacy', 'none'].includes(args.headers)) {
  process.stderr.write(`--headers ${args.headers}: legacy or none\n`);
  process.exit(2);
}
const withHeaders = args.headers === 'legacy';
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);

function classLimiter(cls) {
  return rateLimit({
    windowMs: args.windowMs,
    limit: (req) => (req.auth.ok ? req.auth.org.limits[cls] : ANON_LIMITS[cls]),
    keyGenerator: (req) => (req.auth.ok ? `org:${req.auth.org.id}` : `anon:${ipKeyGenerator(req.ip)}`),
    legacyHeaders: withHeaders,
    standardHeaders: withHeaders ? 'draft-6' : false,
    handler: (req, res, _next, options) => {
      // The library already set Retry-After (ceil of seconds until its reset) when it sets headers.
      let retryAfter = Number(res.getHeader('Retry-After'));
      if (!Number.isInteger(retryAfter)) {
        retryAfter = Math.max(0, Math.ceil((req.rateLimit.resetTime.getTime() - Date.now()) / 1000));
        res.setHeader('Retry-After', String(retryAfter));
      }
      res
        .status(options.statusCode)
        .json(rateLimitedBody(retryAfter, `${cls} quota of ${req.rateLimit.limit} per ${args.windowS}s exceeded`));
    },
  });
}
const limiters = { read: classLimiter('read'), ingest: classLimiter('ingest') };

await serveExpress(args, {
  keys,
  limiter: (req, res, next) => limiters[req.quotaClass](req, res, next),
  name: `express-rate-limit headers=${args.headers}`,
});
