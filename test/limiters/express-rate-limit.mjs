#!/usr/bin/env node
/**
 * Server 1 (and 5): express 5 + express-rate-limit 8, MemoryStore, keyed by organization.
 *
 *   node express-rate-limit.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200]
 *        [--tiers starter,professional] [--headers legacy|draft-6|draft-7|draft-8|none]
 *
 * --headers legacy (default): legacyHeaders: true (X-RateLimit-Limit/-Remaining/-Reset) and
 *   standardHeaders: 'draft-6' (RateLimit-Limit/-Remaining/-Reset/-Policy), i.e. what
 *   `standardHeaders: true, legacyHeaders: true` gives.
 * --headers draft-6 | draft-7 | draft-8: legacyHeaders: false and standardHeaders: that draft alone,
 *   as the library writes it (8.x, source/headers.ts):
 *     draft-6  RateLimit-Policy: 60;w=3, RateLimit-Limit: 60, RateLimit-Remaining: 59, RateLimit-Reset: 3
 *     draft-7  RateLimit-Policy: 60;w=3, RateLimit: limit=60, remaining=59, reset=3
 *     draft-8  RateLimit-Policy: "60-in-3sec"; q=60; w=3; pk=:<base64>:, RateLimit: "60-in-3sec"; r=59; t=3
 *   (draft 8's policy name is the library's default identifier, `<limit>-in-<window>`; pk is the
 *   first 12 hex digits of the SHA-256 of the limiter's key, base64-encoded; reset and t are seconds
 *   until the window ends, rounded up).
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

/** Each --headers mode: the library's legacyHeaders and standardHeaders options. */
const HEADER_MODES = {
  legacy: { legacyHeaders: true, standardHeaders: 'draft-6' },
  'draft-6': { legacyHeaders: false, standardHeaders: 'draft-6' },
  'draft-7': { legacyHeaders: false, standardHeaders: 'draft-7' },
  'draft-8': { legacyHeaders: false, standardHeaders: 'draft-8' },
  none: { legacyHeaders: false, standardHeaders: false },
};

const args = parseCommandLine({ headers: { type: 'string', default: 'legacy' } });
const headerMode = HEADER_MODES[args.headers];
if (!Object.hasOwn(HEADER_MODES, args.headers)) {
  process.stderr.write(`--headers ${args.headers}: ${Object.keys(HEADER_MODES).join(', ')}\n`);
  process.exit(2);
}
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);

function classLimiter(cls) {
  return rateLimit({
    windowMs: args.windowMs,
    limit: (req) => (req.auth.ok ? req.auth.org.limits[cls] : ANON_LIMITS[cls]),
    keyGenerator: (req) => (req.auth.ok ? `org:${req.auth.org.id}` : `anon:${ipKeyGenerator(req.ip)}`),
    ...headerMode,
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
