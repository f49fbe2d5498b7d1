#!/usr/bin/env node
/**
 * Server 4: express 5 + the `limiter` package's TokenBucket, one bucket per organization and quota
 * class, capacity = Limit, refilling Limit tokens per W (continuously). Buckets start full.
 * This does NOT keep the spec: over any window W it admits up to about 2 × Limit (a full bucket
 * plus what drips in meanwhile). tiergate must catch it.
 *
 *   node token-bucket.mjs --keys KEYS.json [--port 0] [--window 3] [--parse-ms 200] [--tiers ...]
 *
 * A bulk upload removes one token per resume (tryRemoveTokens(n), all or nothing); an empty one
 * removes none. Headers, as a user of a token bucket would set them:
 *   X-RateLimit-Limit: bucketSize, X-RateLimit-Remaining: floor(tokens left),
 *   X-RateLimit-Reset: epoch seconds (ceil) at which the bucket is full again;
 * on 429, Retry-After = retry_after_seconds = max(1, ceil(getWaitTime(n) / 1000)).
 */
import { TokenBucket } from 'limiter';
import { ANON_LIMITS, bulkCount, createOrgs, parseCommandLine, rateLimitedBody } from './lib/common.mjs';
import { serveExpress } from './lib/express-app.mjs';

const args = parseCommandLine({ 'strip-rate-headers': { type: 'boolean', default: false } });
const keys = createOrgs(args.tiers, args.perTier, args.keysFile);

/** Buckets by class and org id (one per org and class), and by class and client IP (capped). */
const orgBuckets = new Map();
const anonBuckets = new Map();
const MAX_ANON_BUCKETS = 10_000;
function bucketFor(cls, key, size, anon) {
  const buckets = anon ? anonBuckets : orgBuckets;
  const id = `${cls}:${key}`;
  let b = buckets.get(id);
  if (!b) {
    if (anon && buckets.size >= MAX_ANON_BUCKETS) buckets.clear();
    b = new TokenBucket({ bucketSize: size, tokensPerInterval: size, interval: args.windowMs });
    b.content = size; // a standalone TokenBucket starts empty; an API client should start with a full quota
    buckets.set(id, b);
  }
  return b;
}

const BULK = '/recruiter/jobs/vendor/resume-analysis/bulk';

function limiter(req, res, next) {
  const cls = req.quotaClass;
  const size = req.auth.ok ? req.auth.org.limits[cls] : ANON_LIMITS[cls];
  const bucket = bucketFor(cls, req.auth.ok ? req.auth.org.id : req.ip, size, !req.auth.ok);
  const n = req.path === BULK && req.method === 'POST' ? (bulkCount(req.body) ?? 0) : 1;
  const ok = bucket.tryRemoveTokens(n);
  const rate = size / args.windowMs; // tokens per ms
  const setHeaders = () => {
    res.set('X-RateLimit-Limit', String(size));
    res.set('X-RateLimit-Remaining', String(Math.floor(bucket.content)));
    res.set('X-RateLimit-Reset', String(Math.ceil((Date.now() + (size - bucket.content) / rate) / 1000)));
  };
  setHeaders();
  if (ok) return next();
  const seconds = n > size ? Math.ceil(args.windowMs / 1000) : Math.max(1, Math.ceil(bucket.getWaitTime(n) / 1000));
  res.set('Retry-After', String(seconds));
  res.status(429).json(rateLimitedBody(seconds, `${cls} quota of ${size} per ${args.windowS}s exceeded`));
}

await serveExpress(args, {
  keys,
  limiter,
  name: 'limiter TokenBucket',
  stripRateLimitHeaders: args['strip-rate-headers'],
});
