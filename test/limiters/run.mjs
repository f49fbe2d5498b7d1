#!/usr/bin/env node
/**
 * Run tiergate against one test-bed server:
 *
 *   node test/limiters/run.mjs <server> [--tiers starter[,professional,enterprise]] [--checks ID,...]
 *        [--window 3] [--out DIR] [--timeout-s 600] [--verbose]
 *        [--edges N] [--parse-ms MS] [--bulk-parse-ms MS] [--store memory|redis]
 *        [--drop-one-in N [--drop-seed S] [--drop-at request|response] [--drop-how reset|close]]
 *        [--latency MS [--jitter MS]] [--headers legacy|draft-6|draft-7|draft-8|none]
 *
 * Starts the server as a child process (127.0.0.1, free ports: one per edge), lets it write its keys
 * into a private temp dir, writes a tiergate config (every edge, or with --drop-one-in or --latency a flaky proxy
 * in front of each; window; orgs <tier>-a and <tier>-b with primary/secondary/unscoped keys by
 * environment variable name, enterprise ones with their contract's "limits"; no revocation section), runs
 * `node bin/tiergate.js run --config <file> --out <dir>` with the keys exported in its environment
 * only, prints every check's verdict and `actual` (and the limiter profiles) from
 * <dir>/latest/results.json, and stops the server. Everything is bounded in time.
 *
 * --declare head-bootstrap-free=false,bulk-counts-per-resume=false writes the config's "assumptions"
 * (what the deployment intends where the spec is silent). --headers MODE starts an express-rate-limit
 * server with that header mode (express-rate-limit.mjs --headers: draft-7 and draft-8 are the IETF
 * fields alone, legacy headers off). `node test/limiters/run.mjs --list` lists the servers.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DECLARED_TIERS, TIER_PREFIX } from './lib/common.mjs';
import { startRedis } from './lib/redis-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const TIERGATE = join(REPO, 'bin/tiergate.js');

export const SERVERS = {
  'express-rate-limit': {
    file: 'express-rate-limit.mjs',
    args: [],
    what: 'express + express-rate-limit (legacyHeaders + draft-6), MemoryStore',
  },
  'rate-limiter-flexible': {
    file: 'rate-limiter-flexible.mjs',
    args: [],
    what: 'express + rate-limiter-flexible RateLimiterMemory, README headers',
  },
  'fastify-rate-limit': {
    file: 'fastify-rate-limit.mjs',
    args: ['--mode', 'careful'],
    what: 'fastify + @fastify/rate-limit, one registration per class (careful)',
  },
  'token-bucket': {
    file: 'token-bucket.mjs',
    args: [],
    what: 'express + limiter TokenBucket (refills during the window: breaks the spec)',
  },
  'no-headers': {
    file: 'express-rate-limit.mjs',
    args: ['--headers', 'none'],
    what: 'express-rate-limit with no rate-limit headers (gateway without headers)',
  },
  // Extra variants (not among the five asked for):
  'fastify-per-route': {
    file: 'fastify-rate-limit.mjs',
    args: ['--mode', 'per-route'],
    what: '@fastify/rate-limit, per-route config with groupId',
  },
  'fastify-global': {
    file: 'fastify-rate-limit.mjs',
    args: ['--mode', 'global'],
    what: "@fastify/rate-limit's default: one global registration",
  },
  'rlf-readme-retry-after': {
    file: 'rate-limiter-flexible.mjs',
    args: ['--retry-after', 'readme'],
    what: "rate-limiter-flexible with the README's fractional Retry-After",
  },
  // Each library as it ships: no concurrency cap at all (CONCURRENCY-CAP must fail, decided).
  'express-rate-limit-no-cap': {
    file: 'express-rate-limit.mjs',
    args: ['--no-cap'],
    what: 'express-rate-limit with no concurrency cap',
  },
  'rate-limiter-flexible-no-cap': {
    file: 'rate-limiter-flexible.mjs',
    args: ['--no-cap'],
    what: 'rate-limiter-flexible with no concurrency cap',
  },
  'fastify-rate-limit-no-cap': {
    file: 'fastify-rate-limit.mjs',
    args: ['--mode', 'careful', '--no-cap'],
    what: '@fastify/rate-limit (careful) with no concurrency cap',
  },
  'token-bucket-no-cap': {
    file: 'token-bucket.mjs',
    args: ['--no-cap'],
    what: 'limiter TokenBucket with no concurrency cap',
  },
  // The deployment the product owner measured (issue 17): conformant, three edges, one store.
  'conformant-cluster': {
    file: 'rate-limiter-flexible.mjs',
    args: [],
    shape: { edges: 3, parseMs: 300, bulkParseMs: 'parse' },
    what: 'rate-limiter-flexible (windows from the first request), 3 edges sharing one store, the per-org cap, §8 headers on every answer, bulk per resume, single and bulk uploads taking --parse-ms (300)',
  },
};

/**
 * A deployment's shape unless the runner entry or a flag says otherwise: edges, the time a single
 * upload takes (null: the server's own default, 200 ms), the time a bulk upload is held before its
 * 202 ('parse': as long as a single upload), the limiter store (redis: rate-limiter-flexible only),
 * the rate-limit headers it sends (null: the entry's; a mode: express-rate-limit's --headers only).
 */
const DEFAULT_SHAPE = { edges: 1, parseMs: null, bulkParseMs: 0, store: 'memory', headers: null };
/** express-rate-limit.mjs's --headers modes. */
export const HEADER_MODES = ['legacy', 'draft-6', 'draft-7', 'draft-8', 'none'];
const SERVER_DEFAULT_PARSE_MS = 200;

/** The shape a server runs with: DEFAULT_SHAPE, then the entry's, then the defined `overrides`. */
export function resolveShape(name, overrides = {}) {
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined && v !== null));
  const shape = { ...DEFAULT_SHAPE, ...SERVERS[name].shape, ...given };
  if (shape.bulkParseMs === 'parse') shape.bulkParseMs = shape.parseMs ?? SERVER_DEFAULT_PARSE_MS;
  return shape;
}

/** The server's flags for a shape (the Redis URL from the runner's private redis-server). */
function shapeArgs(name, shape, redisUrl) {
  const args = ['--edges', String(shape.edges), '--bulk-parse-ms', String(shape.bulkParseMs)];
  if (shape.parseMs !== null) args.push('--parse-ms', String(shape.parseMs));
  if (shape.store === 'redis') {
    if (SERVERS[name].file !== 'rate-limiter-flexible.mjs')
      throw new Error(`${name}: --store redis is rate-limiter-flexible's (RateLimiterRedis) only`);
    args.push('--store', 'redis', '--redis-url', redisUrl);
  }
  if (shape.headers !== null) {
    if (SERVERS[name].file !== 'express-rate-limit.mjs')
      throw new Error(`${name}: --headers is express-rate-limit's (its standardHeaders) only`);
    if (!HEADER_MODES.includes(shape.headers))
      throw new Error(`--headers ${shape.headers}: ${HEADER_MODES.join(', ')}`);
    // After the entry's own args: the last --headers given wins.
    args.push('--headers', shape.headers);
  }
  return args;
}

/** The environment variable that carries an org's key of one role (primary, secondary, unscoped). */
export const envName = (org, role) =>
  `XH_${org.toUpperCase().replace(/-/g, '_')}_KEY${role === 'primary' ? '' : role === 'secondary' ? '_2' : '_NOSCOPE'}`;

function usage(msg) {
  if (msg) process.stderr.write(`${msg}\n`);
  process.stderr.write(
    'usage: node test/limiters/run.mjs <server> [--tiers starter,professional,enterprise] [--checks ID,...] [--window 3] [--out DIR] [--timeout-s 600] [--declare name=false,...] [--verbose]\n' +
      '         [--edges N] [--parse-ms MS] [--bulk-parse-ms MS] [--store memory|redis] [--drop-one-in N] [--drop-seed S] [--drop-at request|response] [--drop-how reset|close] [--latency MS] [--jitter MS]\n' +
      `         [--headers ${HEADER_MODES.join('|')}] (express-rate-limit servers)\nservers:\n`,
  );
  for (const [name, s] of Object.entries(SERVERS)) process.stderr.write(`  ${name.padEnd(24)} ${s.what}\n`);
  process.exit(2);
}

/**
 * Start a server child; resolves {url, urls, shape, child, stop} once it printed its URL (bounded
 * wait): `urls` are its edges, edge 0 (= `url`) first. `shape` overrides the entry's (resolveShape);
 * `redisUrl` is needed for shape.store 'redis'.
 */
export function startServer(
  name,
  { tiers, windowS, keysFile, log, extra = [], shape: overrides = {}, redisUrl = null },
) {
  const spec = SERVERS[name];
  const shape = resolveShape(name, overrides);
  const argv = [
    join(HERE, spec.file),
    ...spec.args,
    '--port',
    '0',
    '--keys',
    keysFile,
    '--window',
    String(windowS),
    '--tiers',
    tiers.join(','),
    ...shapeArgs(name, shape, redisUrl),
    ...extra,
  ];
  const child = spawn(process.execPath, argv, {
    cwd: HERE,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.on('data', (d) => log?.write(d));
  const stop = () =>
    new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(t);
        res();
      });
      child.kill('SIGTERM');
    });
  return new Promise((res, rej) => {
    let buf = '';
    const timer = setTimeout(() => {
      void stop();
      rej(new Error(`${name}: no URL within 10 s`));
    }, 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${name}: exited with ${code} before listening`));
    });
    child.stdout.on('data', (d) => {
      log?.write(d);
      buf += d;
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)[^\n]*\n/.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        const edges = /edges=(\S+)/.exec(m[0]);
        res({ url: m[1], urls: edges ? edges[1].split(',') : [m[1]], shape, child, stop });
      }
    });
  });
}

/**
 * Start a server and read the keys it generated: resolves {url, orgs, child, stop}. The keys file
 * lives in a private temp dir only until it is read (removed before this resolves, also on failure).
 */
export async function startWithKeys(name, { tiers, windowS, log, extra = [], shape = {}, redisUrl = null }) {
  const secrets = mkdtempSync(join(tmpdir(), 'tiergate-limiters-'));
  try {
    const keysFile = join(secrets, 'keys.json');
    const server = await startServer(name, { tiers, windowS, keysFile, log, extra, shape, redisUrl });
    try {
      const { orgs } = JSON.parse(readFileSync(keysFile, 'utf8'));
      return { ...server, orgs };
    } catch (err) {
      await server.stop();
      throw err;
    }
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

/**
 * The tiergate config for a server (plain object, before tiergate's own validation) and the
 * environment that carries its keys: {config, env}. The config names the keys' variables only.
 * `edges`: one base URL or every edge's (edge 0 first). An org of a tier sold on contract
 * (enterprise) carries its figures as `limits`.
 */
export function buildConfig(edges, orgsFromKeys, windowS, assumptions = null) {
  const config = {
    target: { edges: Array.isArray(edges) ? [...edges] : [edges] },
    window: `${windowS}s`,
    timeout: '5s',
    orgs: orgsFromKeys.map((o) => ({
      name: o.name,
      tier: o.tier,
      ...(DECLARED_TIERS.has(o.tier) && o.limits
        ? { limits: { read: o.limits.read, ingest: o.limits.ingest, concurrency: o.limits.concurrency } }
        : {}),
      keys: {
        primary: { env: envName(o.name, 'primary') },
        secondary: { env: envName(o.name, 'secondary') },
        unscoped: { env: envName(o.name, 'unscoped') },
      },
    })),
    ...(assumptions ? { assumptions } : {}),
  };
  const env = {};
  for (const o of orgsFromKeys)
    for (const role of ['primary', 'secondary', 'unscoped']) env[envName(o.name, role)] = o.keys[role];
  return { config, env };
}

/** Writes buildConfig's config to `file` (no keys in it) and returns the environment with the keys. */
export function writeConfig(file, edges, orgsFromKeys, windowS, assumptions = null) {
  const { config, env } = buildConfig(edges, orgsFromKeys, windowS, assumptions);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return env;
}

function runTiergate(argv, env, { timeoutMs, log, verbose }) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [TIERGATE, ...argv], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => {
      log.write(d);
      if (verbose) process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      log.write(d);
      if (verbose) process.stderr.write(d);
    });
    const timer = setTimeout(() => {
      log.write(`\n[run.mjs] tiergate exceeded ${timeoutMs} ms: SIGINT, then SIGKILL\n`);
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal });
    });
  });
}

const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function printResults(results, { width = 400 } = {}) {
  const lines = [];
  lines.push(
    `run ${results.runId}: verdict ${results.verdict}  pass ${results.counts.pass} fail ${results.counts.fail} inconclusive ${results.counts.inconclusive} skipped ${results.counts.skipped}; windows needed ${results.windows.needed}, used ${results.windows.used}`,
  );
  for (const p of results.profiles ?? []) {
    const v = (l) => (l.value === null ? `? (${l.how})` : String(l.value));
    lines.push(
      `profile ${p.tier}/${p.org}: headers ${v(p.headers)}; read limit ${p.read.limit} reset ${v(p.read.resetFormat)} algo ${v(p.read.algorithm)}; ingest limit ${p.ingest.limit} reset ${v(p.ingest.resetFormat)} algo ${v(p.ingest.algorithm)}; counts head ${v(p.counts.head)} 404 ${v(p.counts['not-found'])} 403 ${v(p.counts.forbidden)} 401 ${v(p.counts.unauthenticated)} 429 ${v(p.counts.rejected)}; read shared across routes ${v(p.readSharedAcrossRoutes)}; classes independent ${v(p.classesIndependent)}`,
    );
  }
  for (const c of results.checks) {
    const id = `${c.id}${c.variant ? `/${c.variant}` : ''}`;
    const where = c.tier ? `${c.tier}${c.org ? `/${c.org}` : ''}` : '-';
    const verdict = c.verdict.toUpperCase();
    const notes = c.notes?.length ? ` [notes: ${c.notes.join(' | ')}]` : '';
    const basis = c.basis === 'assumption' ? `A:${c.assumptions.join('+')}` : 'spec';
    lines.push(
      `${verdict.padEnd(12)} ${id.padEnd(26)} ${where.padEnd(24)} ${basis.padEnd(14)} ${clip(`${c.actual}${notes}`, width)}`,
    );
  }
  return lines.join('\n');
}

/**
 * The flaky proxy is TypeScript, for it shares the reference target's relay and certificates
 * (src/reference-server/): tsx, the main package's, loads it under plain node as it does the
 * sources on the target's thread (src/reference-server/thread.ts).
 */
async function flakyProxyModule() {
  const { tsImport } = await import('tsx/esm/api');
  return tsImport('./lib/flaky-proxy.ts', import.meta.url);
}

/**
 * A flaky network in front of every edge (lib/flaky-proxy.ts): about one request in `dropOneIn`
 * dropped unanswered (0: none), edge i's proxy seeded `seed + i`, every chunk `latencyMs` ±
 * `jitterMs` away (a round trip). Resolves the proxies, edge 0's first.
 */
export async function startProxies(
  edges,
  { dropOneIn, seed = 1, dropAt = 'request', how = 'reset', latencyMs = 0, jitterMs = 0 },
) {
  const { startFlakyProxy } = await flakyProxyModule();
  return Promise.all(
    edges.map((target, i) => startFlakyProxy({ target, dropOneIn, seed: seed + i, dropAt, how, latencyMs, jitterMs })),
  );
}

/** What the proxies do to the traffic: drops, and the distance. */
function describeNetwork({ dropOneIn, dropAt, how, seed, latencyMs, jitterMs }, proxies) {
  const drops = dropOneIn
    ? `one request in ${dropOneIn} dropped at the ${dropAt} (${how}), seeds ${seed}..${seed + proxies - 1}`
    : 'no drops';
  const distance = latencyMs ? `, round trip ${latencyMs} ms ± ${jitterMs} ms` : '';
  return `flaky network: ${drops}${distance}`;
}

/** One line per proxy: what it dropped (method and path only: a path carries no key). */
export function describeDrops(proxies) {
  return proxies.map((p, i) => {
    const list = p.drops.map((d) => `#${d.n} ${d.method} ${d.path}`).join(', ');
    return `edge-${i} via ${p.url}: dropped ${p.dropped} of ${p.requests} requests on ${p.connections} connections${list ? ` (${clip(list, 600)})` : ''}`;
  });
}

const int = (value, flag, min, max) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) usage(`${flag} ${value}: a whole number ${min}..${max}`);
  return n;
};

function parseCommandLine() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      tiers: { type: 'string', default: 'starter,professional' },
      checks: { type: 'string' },
      window: { type: 'string', default: '3' },
      out: { type: 'string' },
      'timeout-s': { type: 'string', default: '600' },
      verbose: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      width: { type: 'string', default: '400' },
      declare: { type: 'string' },
      edges: { type: 'string' },
      'parse-ms': { type: 'string' },
      'bulk-parse-ms': { type: 'string' },
      store: { type: 'string' },
      'drop-one-in': { type: 'string' },
      'drop-seed': { type: 'string', default: '1' },
      'drop-at': { type: 'string', default: 'request' },
      'drop-how': { type: 'string', default: 'reset' },
      latency: { type: 'string' },
      jitter: { type: 'string' },
      headers: { type: 'string' },
    },
  });
  if (values.list) return { list: true };
  if (positionals.length !== 1 || !SERVERS[positionals[0]])
    usage(positionals.length ? `unknown server ${positionals[0]}` : 'name a server');
  const name = positionals[0];
  const tiers = values.tiers
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of tiers) if (!TIER_PREFIX[t]) usage(`--tiers: ${t}? (${Object.keys(TIER_PREFIX).join(', ')})`);
  const windowS = Number(values.window);
  if (!Number.isInteger(windowS) || windowS < 1 || windowS > 600) usage('--window: whole seconds');
  let assumptions = null;
  if (values.declare) {
    assumptions = {};
    for (const item of values.declare
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)) {
      const m = /^([a-z-]+)=(true|false)$/.exec(item);
      if (!m) usage(`--declare ${item}: expected name=true|false, e.g. head-bootstrap-free=false`);
      assumptions[m[1]] = m[2] === 'true';
    }
  }
  const timeoutMs = Number(values['timeout-s']) * 1000;
  if (!(timeoutMs > 0 && timeoutMs <= 3_600_000)) usage('--timeout-s: 1..3600');
  if (values.store !== undefined && !['memory', 'redis'].includes(values.store))
    usage(`--store ${values.store}: memory or redis`);
  if (values.store === 'redis' && SERVERS[name].file !== 'rate-limiter-flexible.mjs')
    usage(`--store redis: ${name} is not a rate-limiter-flexible server`);
  if (values.headers !== undefined && !HEADER_MODES.includes(values.headers))
    usage(`--headers ${values.headers}: ${HEADER_MODES.join(', ')}`);
  if (values.headers !== undefined && SERVERS[name].file !== 'express-rate-limit.mjs')
    usage(`--headers: ${name} is not an express-rate-limit server`);
  const shape = {
    edges: int(values.edges, '--edges', 1, 16),
    parseMs: int(values['parse-ms'], '--parse-ms', 0, 60_000),
    bulkParseMs: int(values['bulk-parse-ms'], '--bulk-parse-ms', 0, 60_000),
    store: values.store,
    headers: values.headers,
  };
  const dropOneIn = int(values['drop-one-in'], '--drop-one-in', 2, 1_000_000);
  if (!['request', 'response'].includes(values['drop-at']))
    usage(`--drop-at ${values['drop-at']}: request or response`);
  if (!['reset', 'close'].includes(values['drop-how'])) usage(`--drop-how ${values['drop-how']}: reset or close`);
  const latencyMs = int(values.latency, '--latency', 0, 10_000) ?? 0;
  const jitterMs = int(values.jitter, '--jitter', 0, latencyMs) ?? 0;
  const flaky =
    dropOneIn || latencyMs
      ? {
          dropOneIn: dropOneIn ?? 0,
          seed: int(values['drop-seed'], '--drop-seed', 0, 2 ** 31),
          dropAt: values['drop-at'],
          how: values['drop-how'],
          latencyMs,
          jitterMs,
        }
      : null;
  return {
    name,
    tiers,
    windowS,
    assumptions,
    timeoutMs,
    shape,
    flaky,
    checks: values.checks,
    out: values.out,
    verbose: values.verbose,
    width: Number(values.width),
  };
}

async function main() {
  const args = parseCommandLine();
  if (args.list) {
    for (const [name, s] of Object.entries(SERVERS)) process.stdout.write(`${name.padEnd(24)} ${s.what}\n`);
    return 0;
  }
  const { name, tiers, windowS, assumptions, timeoutMs, flaky } = args;
  const shape = resolveShape(name, args.shape);

  const secrets = mkdtempSync(join(tmpdir(), 'tiergate-limiters-')); // the config: private, removed at the end
  const out = args.out ? resolve(args.out) : mkdtempSync(join(tmpdir(), `tiergate-${name}-`));
  mkdirSync(out, { recursive: true });
  const log = createWriteStream(join(out, 'run.log'));
  let server = null;
  let redis = null;
  let proxies = [];
  try {
    if (shape.store === 'redis') {
      redis = await startRedis({ log });
      if (!redis.url) {
        process.stdout.write(`${name}: skipped: ${redis.reason}\n`);
        return 0;
      }
    }
    server = await startWithKeys(name, { tiers, windowS, log, shape, redisUrl: redis?.url ?? null });
    const { orgs } = server;
    if (flaky) proxies = await startProxies(server.urls, flaky);
    const edges = proxies.length ? proxies.map((p) => p.url) : server.urls;
    const configFile = join(secrets, 'tiergate.config.json');
    const env = writeConfig(configFile, edges, orgs, windowS, assumptions);
    const s = server.shape;
    process.stdout.write(`${name}: ${SERVERS[name].what}\n`);
    process.stdout.write(
      `  server ${server.urls.join(', ')}; orgs ${orgs.map((o) => o.name).join(', ')}; window ${windowS}s; ` +
        `parse ${s.parseMs ?? SERVER_DEFAULT_PARSE_MS} ms, bulk ${s.bulkParseMs} ms; store ${s.store}${redis ? ` (${redis.url})` : ''}${s.headers ? `; headers ${s.headers}` : ''}; reports in ${out}\n`,
    );
    if (flaky) process.stdout.write(`  ${describeNetwork(flaky, proxies.length)}; tiergate sees ${edges.join(', ')}\n`);
    const argv = ['run', '--config', configFile, '--out', out, '--tiers', tiers.join(',')];
    if (args.checks) argv.push('--checks', args.checks);
    const started = Date.now();
    const { code, signal } = await runTiergate(argv, env, { timeoutMs, log, verbose: args.verbose });
    process.stdout.write(
      `  tiergate exit ${code ?? signal} after ${((Date.now() - started) / 1000).toFixed(1)} s (log: ${join(out, 'run.log')})\n`,
    );
    for (const line of describeDrops(proxies)) process.stdout.write(`  ${line}\n`);
    const resultsFile = join(out, 'latest', 'results.json');
    if (!existsSync(resultsFile)) {
      process.stdout.write(`  no ${resultsFile}; last lines of the log:\n`);
      log.end();
      await new Promise((r) => log.once('close', r));
      const text = readFileSync(join(out, 'run.log'), 'utf8').split('\n').slice(-25).join('\n');
      process.stdout.write(`${text}\n`);
      return 1;
    }
    const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
    process.stdout.write(`${printResults(results, { width: args.width })}\n`);
    return code ?? 1;
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    if (server) await server.stop();
    if (redis?.stop) await redis.stop();
    rmSync(secrets, { recursive: true, force: true });
    if (!log.closed) log.end();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`run.mjs: ${err.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
