/**
 * Shared by every test-bed server: the recruiting API's endpoints (spec §4), keys, orgs and tiers
 * (spec §5, §8 with a short window), the §7 rate-limit body, the per-org concurrency cap and the
 * command line. The rate limiting itself is left to each server's library.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** §5.6 */
export const SCOPES = [
  { scope: 'resume.parse', description: 'Upload single resume files for AI parsing and scoring' },
  { scope: 'resume.parse.bulk', description: 'Asynchronous batch resume parsing' },
  { scope: 'jobs.read', description: 'View jobs, stages and criteria' },
  { scope: 'jobs.create', description: 'Create job openings and criteria' },
  { scope: 'jobs.manage', description: 'Update or archive job configurations' },
  { scope: 'candidate.read', description: 'Access candidate interview transcripts and scorecards' },
  { scope: 'webhook.manage', description: 'Subscribe, update or inspect event webhooks' },
];
const ALL_SCOPES = SCOPES.map((s) => s.scope);

/**
 * §8, per window W instead of per minute. Enterprise / Custom publishes minimums only (2,500 / 500 /
 * 100): the test bed's enterprise orgs are served a contract above them, and the runner declares
 * those figures in the config (`orgs[].limits`).
 */
export const TIERS = {
  starter: { read: 60, ingest: 10, concurrency: 5 },
  professional: { read: 300, ingest: 60, concurrency: 25 },
  enterprise: { read: 3000, ingest: 600, concurrency: 120 },
};
/** Tiers whose figures are a contract of the org's (declared in the config), not the published ones. */
export const DECLARED_TIERS = new Set(['enterprise']);
/** Short org label prefix per tier (the runner's config uses the same names). */
export const TIER_PREFIX = { starter: 'starter', professional: 'pro', enterprise: 'ent' };

export const INGEST_PATHS = new Set([
  '/recruiter/jobs/vendor/resume-analysis',
  '/recruiter/jobs/vendor/resume-analysis/bulk',
]);
/** Quota class of a request path: the two resume-analysis endpoints are ingest, everything else read. */
export const quotaClass = (path) => (INGEST_PATHS.has(stripQuery(path)) ? 'ingest' : 'read');
export const stripQuery = (url) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** Limits of an unauthenticated client (its anonymous, per-IP bucket): the lowest tier's. */
export const ANON_LIMITS = TIERS.starter;

// ---------------------------------------------------------------- command line

export function parseCommandLine(extra = {}) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT ?? '0' },
      keys: { type: 'string' },
      window: { type: 'string', default: process.env.WINDOW_S ?? '3' },
      'parse-ms': { type: 'string', default: process.env.PARSE_MS ?? '200' },
      tiers: { type: 'string', default: 'starter,professional' },
      'orgs-per-tier': { type: 'string', default: '2' },
      'no-cap': { type: 'boolean', default: false },
      ...SHAPE_OPTIONS,
      ...extra,
    },
    strict: true,
  });
  const fail = (msg) => {
    process.stderr.write(`${msg}\n`);
    process.exit(2);
  };
  if (!values.keys) fail('--keys FILE is required (the server writes the generated keys there)');
  const port = Number(values.port);
  const windowS = Number(values.window);
  const parseMs = Number(values['parse-ms']);
  const perTier = Number(values['orgs-per-tier']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port ${values.port}: expected 0..65535`);
  if (!Number.isInteger(windowS) || windowS < 1 || windowS > 3600)
    fail(`--window ${values.window}: whole seconds 1..3600`);
  if (!Number.isFinite(parseMs) || parseMs < 0 || parseMs > 60_000) fail(`--parse-ms ${values['parse-ms']}: 0..60000`);
  if (!Number.isInteger(perTier) || perTier < 1 || perTier > 10) fail(`--orgs-per-tier: 1..10`);
  const tiers = values.tiers
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of tiers) if (!TIERS[t]) fail(`--tiers: unknown tier ${t} (${Object.keys(TIERS).join(', ')})`);
  capEnforced = !values['no-cap'];
  const shape = parseShape(values, fail);
  return {
    ...values,
    port,
    windowS,
    windowMs: windowS * 1000,
    parseMs,
    perTier,
    tiers,
    keysFile: values.keys,
    ...shape,
  };
}

/** The deployment's shape: how many edges answer, how long a bulk upload is held before its 202. */
const SHAPE_OPTIONS = {
  edges: { type: 'string', default: '1' },
  'bulk-parse-ms': { type: 'string', default: '0' },
};
function parseShape(values, fail) {
  const edges = Number(values.edges);
  const bulkParseMs = Number(values['bulk-parse-ms']);
  if (!Number.isInteger(edges) || edges < 1 || edges > 16) fail(`--edges ${values.edges}: 1..16`);
  if (!Number.isFinite(bulkParseMs) || bulkParseMs < 0 || bulkParseMs > 60_000)
    fail(`--bulk-parse-ms ${values['bulk-parse-ms']}: 0..60000`);
  return { edges, bulkParseMs };
}

// ---------------------------------------------------------------- keys and orgs

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function newKey() {
  let s = 'xh_test_';
  for (let i = 0; i < 32; i++) s += ALPHANUM[randomInt(ALPHANUM.length)];
  return s;
}
const KEY_FORMAT = /^xh_(live|test)_[A-Za-z0-9]{32}$/;
const hash = (key) => createHash('sha256').update(key).digest('hex');

/**
 * One org per tier × perTier, each with a primary and a secondary key (all scopes) and an
 * unscoped key (no scope). Keys are held hashed; the plain keys go only to the keys file.
 */
export function createOrgs(tiers, perTier, keysFile) {
  const byHash = new Map();
  const orgs = [];
  const out = { orgs: [] };
  for (const tier of tiers) {
    for (let i = 0; i < perTier; i++) {
      const name = `${TIER_PREFIX[tier]}-${String.fromCharCode(97 + i)}`;
      const org = { id: `org_${randomUUID().slice(0, 8)}`, name, tier, limits: TIERS[tier] };
      orgs.push(org);
      const keys = { primary: newKey(), secondary: newKey(), unscoped: newKey() };
      for (const [role, key] of Object.entries(keys)) {
        byHash.set(hash(key), { org, role, scopes: new Set(role === 'unscoped' ? [] : ALL_SCOPES) });
      }
      out.orgs.push({ name, tier, id: org.id, limits: org.limits, keys });
    }
  }
  writeFileSync(keysFile, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  return {
    orgs,
    /** {ok:true, org, scopes, role} or {ok:false, reason}. */
    lookup(header) {
      if (header === undefined || header === null || header === '') return { ok: false, reason: 'missing' };
      const value = Array.isArray(header) ? header[0] : String(header);
      if (!KEY_FORMAT.test(value)) return { ok: false, reason: 'malformed' };
      const rec = byHash.get(hash(value));
      if (!rec) return { ok: false, reason: 'unknown' };
      return { ok: true, ...rec };
    },
  };
}

export const redact = (key) => `${key.slice(0, 8)}…${key.slice(-4)}`;

// ---------------------------------------------------------------- bodies

export function rateLimitedBody(retryAfterSeconds, message = 'Rate limit exceeded') {
  return { status: 'error', code: 'RATE_LIMIT_EXCEEDED', message, retry_after_seconds: retryAfterSeconds };
}
export const authErrorBody = (reason) => ({
  status: 'error',
  code: 'UNAUTHORIZED',
  message:
    reason === 'missing'
      ? 'X-API-Key header required'
      : reason === 'malformed'
        ? 'malformed API key'
        : 'unknown API key',
});
export const scopeErrorBody = (scope) => ({ status: 'error', code: 'FORBIDDEN', message: `key lacks scope ${scope}` });
export const notFoundBody = () => ({ status: 'error', code: 'NOT_FOUND', message: 'no such endpoint' });

// ---------------------------------------------------------------- endpoints (§4)

/**
 * Route table: method, express/fastify-style path, required scope (null: any valid key), and the
 * handler: ({params, body, parseMs, bulkParseMs}) → Promise<{status, body}> (body undefined: no body).
 * A single upload is answered after parseMs; a bulk upload with resumes after bulkParseMs (the time
 * to receive its files, or a synchronous batch endpoint; 0 answers 202 at once, as §4's asynchronous
 * batch may); an empty or malformed bulk is refused at once.
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const ROUTES = [
  {
    method: 'GET',
    path: '/recruiter/settings/services-api-scopes',
    scope: null,
    handle: async () => ({ status: 200, body: { status: 'success', data: SCOPES } }),
  },
  {
    method: 'GET', // HEAD is served by the framework from GET, with no body
    path: '/recruiter/bootstrap',
    scope: null,
    handle: async ({ org }) => ({ status: 200, body: { status: 'success', data: { org: org.id, tier: org.tier } } }),
  },
  {
    method: 'POST',
    path: '/recruiter/jobs/vendor/resume-analysis',
    scope: 'resume.parse',
    handle: async ({ parseMs }) => {
      await sleep(parseMs);
      return { status: 200, body: { status: 'success', data: { id: `ra_${randomUUID().slice(0, 8)}`, score: 0.73 } } };
    },
  },
  {
    method: 'POST',
    path: '/recruiter/jobs/vendor/resume-analysis/bulk',
    scope: 'resume.parse.bulk',
    handle: async ({ body, bulkParseMs = 0 }) => {
      const n = bulkCount(body);
      if (n === null)
        return {
          status: 400,
          body: {
            status: 'error',
            code: 'VALIDATION_FAILED',
            message: 'expected {"resumes":[…]} with at least one resume',
          },
        };
      if (bulkParseMs > 0) await sleep(bulkParseMs);
      return {
        status: 202,
        body: { status: 'success', data: { batch_id: `b_${randomUUID().slice(0, 8)}`, queued: n } },
      };
    },
  },
  {
    method: 'GET',
    path: '/recruiter/jobs',
    scope: 'jobs.read',
    handle: async () => ({
      status: 200,
      body: { status: 'success', data: [{ id: 'job-1', title: 'Backend Engineer', state: 'active' }] },
    }),
  },
  {
    method: 'POST',
    path: '/recruiter/jobs/create',
    scope: 'jobs.create',
    handle: async () => ({ status: 201, body: { status: 'success', data: { id: `job_${randomUUID().slice(0, 8)}` } } }),
  },
  {
    method: 'PUT',
    path: '/recruiter/jobs/:id',
    scope: 'jobs.manage',
    handle: async ({ params }) => ({ status: 200, body: { status: 'success', data: { id: params.id } } }),
  },
  {
    method: 'GET',
    path: '/recruiter/candidates/:id',
    scope: 'candidate.read',
    handle: async ({ params }) => ({
      status: 200,
      body: { status: 'success', data: { id: params.id, transcripts: [], scorecards: [] } },
    }),
  },
  {
    method: 'POST',
    path: '/recruiter/webhooks',
    scope: 'webhook.manage',
    handle: async () => ({ status: 201, body: { status: 'success', data: { id: `wh_${randomUUID().slice(0, 8)}` } } }),
  },
];

/** Resumes in a bulk body, or null when it is not a non-empty {"resumes": [...]} (→ 400). */
export function bulkCount(body) {
  if (!body || typeof body !== 'object' || !Array.isArray(body.resumes) || body.resumes.length === 0) return null;
  return body.resumes.length;
}

// ---------------------------------------------------------------- concurrency cap

/**
 * Whether the per-org cap is enforced: `--no-cap` turns it off, for the server as its library ships
 * (none of them caps concurrency). Set once, by parseCommandLine.
 */
let capEnforced = true;

/** In-flight requests per org; `enter` refuses beyond the org's cap (unless `--no-cap`). */
export class InFlight {
  #n = new Map();
  enter(org) {
    const cur = this.#n.get(org.id) ?? 0;
    if (capEnforced && cur >= org.limits.concurrency) return false;
    this.#n.set(org.id, cur + 1);
    return true;
  }
  leave(org) {
    const cur = this.#n.get(org.id) ?? 0;
    if (cur <= 1) this.#n.delete(org.id);
    else this.#n.set(org.id, cur - 1);
  }
}
/** The cap's answer: 429, the §7 body, Retry-After 1 (held uploads finish within the parse time). */
export const CAP_RETRY_AFTER_S = 1;

// ---------------------------------------------------------------- lifecycle

/**
 * Print the URL (one line, for the runner) and shut down cleanly on SIGTERM/SIGINT. `servers` is one
 * server or the edges (edge 0 first): with several, the line ends with `edges=URL0,URL1,…`.
 */
export function announce(servers, name, extra = '') {
  const urls = (Array.isArray(servers) ? servers : [servers]).map((s) => `http://127.0.0.1:${s.address().port}`);
  const edges = urls.length > 1 ? ` edges=${urls.join(',')}` : '';
  process.stdout.write(`listening ${urls[0]} ${name}${extra ? ` ${extra}` : ''}${edges}\n`);
}
export function onShutdown(close) {
  let closing = false;
  const stop = () => {
    if (closing) process.exit(1);
    closing = true;
    Promise.resolve(close()).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
