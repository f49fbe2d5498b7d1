#!/usr/bin/env node
/**
 * Run tiergate against one test-bed server:
 *
 *   node test/limiters/run.mjs <server> [--tiers starter[,professional]] [--checks ID,...]
 *        [--window 3] [--out DIR] [--timeout-s 600] [--verbose]
 *
 * Starts the server as a child process (127.0.0.1, a free port), lets it write its keys into a
 * private temp dir, writes a tiergate config (one edge, window, orgs <tier>-a and <tier>-b with
 * primary/secondary/unscoped keys by environment variable name, no revocation section), runs
 * `node bin/tiergate.js run --config <file> --out <dir>` with the keys exported in its environment
 * only, prints every check's verdict and `actual` (and the limiter profiles) from
 * <dir>/latest/results.json, and stops the server. Everything is bounded in time.
 *
 * --declare head-bootstrap-free=false,bulk-counts-per-resume=false writes the config's "assumptions"
 * (what the deployment intends where the spec is silent). `node test/limiters/run.mjs --list` lists the servers.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TIER_PREFIX } from './lib/common.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const TIERGATE = join(REPO, 'bin/tiergate.js');

export const SERVERS = {
  'express-rate-limit': { file: 'express-rate-limit.mjs', args: [], what: 'express + express-rate-limit (legacyHeaders + draft-6), MemoryStore' },
  'rate-limiter-flexible': { file: 'rate-limiter-flexible.mjs', args: [], what: 'express + rate-limiter-flexible RateLimiterMemory, README headers' },
  'fastify-rate-limit': { file: 'fastify-rate-limit.mjs', args: ['--mode', 'careful'], what: 'fastify + @fastify/rate-limit, one registration per class (careful)' },
  'token-bucket': { file: 'token-bucket.mjs', args: [], what: 'express + limiter TokenBucket (refills during the window: breaks the spec)' },
  'no-headers': { file: 'express-rate-limit.mjs', args: ['--headers', 'none'], what: 'express-rate-limit with no rate-limit headers (gateway without headers)' },
  // Extra variants (not among the five asked for):
  'fastify-per-route': { file: 'fastify-rate-limit.mjs', args: ['--mode', 'per-route'], what: '@fastify/rate-limit, per-route config with groupId' },
  'fastify-global': { file: 'fastify-rate-limit.mjs', args: ['--mode', 'global'], what: "@fastify/rate-limit's default: one global registration" },
  'rlf-readme-retry-after': { file: 'rate-limiter-flexible.mjs', args: ['--retry-after', 'readme'], what: "rate-limiter-flexible with the README's fractional Retry-After" },
};

/** The environment variable that carries an org's key of one role (primary, secondary, unscoped). */
export const envName = (org, role) => `XH_${org.toUpperCase().replace(/-/g, '_')}_KEY${role === 'primary' ? '' : role === 'secondary' ? '_2' : '_NOSCOPE'}`;

function usage(msg) {
  if (msg) process.stderr.write(`${msg}\n`);
  process.stderr.write(`usage: node test/limiters/run.mjs <server> [--tiers starter,professional] [--checks ID,...] [--window 3] [--out DIR] [--timeout-s 600] [--declare name=false,...] [--verbose]\nservers:\n`);
  for (const [name, s] of Object.entries(SERVERS)) process.stderr.write(`  ${name.padEnd(24)} ${s.what}\n`);
  process.exit(2);
}

/** Start a server child; resolves {url, child, stop} once it printed its URL (bounded wait). */
export function startServer(name, { tiers, windowS, keysFile, log, extra = [] }) {
  const spec = SERVERS[name];
  const child = spawn(process.execPath, [join(HERE, spec.file), ...spec.args, '--port', '0', '--keys', keysFile, '--window', String(windowS), '--tiers', tiers.join(','), ...extra], {
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
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        res({ url: m[1], child, stop });
      }
    });
  });
}

/**
 * Start a server and read the keys it generated: resolves {url, orgs, child, stop}. The keys file
 * lives in a private temp dir only until it is read (removed before this resolves, also on failure).
 */
export async function startWithKeys(name, { tiers, windowS, log, extra = [] }) {
  const secrets = mkdtempSync(join(tmpdir(), 'tiergate-limiters-'));
  try {
    const keysFile = join(secrets, 'keys.json');
    const server = await startServer(name, { tiers, windowS, keysFile, log, extra });
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
 */
export function buildConfig(url, orgsFromKeys, windowS, assumptions = null) {
  const config = {
    target: { edges: [url] },
    window: `${windowS}s`,
    timeout: '5s',
    orgs: orgsFromKeys.map((o) => ({
      name: o.name,
      tier: o.tier,
      keys: { primary: { env: envName(o.name, 'primary') }, secondary: { env: envName(o.name, 'secondary') }, unscoped: { env: envName(o.name, 'unscoped') } },
    })),
    ...(assumptions ? { assumptions } : {}),
  };
  const env = {};
  for (const o of orgsFromKeys) for (const role of ['primary', 'secondary', 'unscoped']) env[envName(o.name, role)] = o.keys[role];
  return { config, env };
}

/** Writes buildConfig's config to `file` (no keys in it) and returns the environment with the keys. */
export function writeConfig(file, url, orgsFromKeys, windowS, assumptions = null) {
  const { config, env } = buildConfig(url, orgsFromKeys, windowS, assumptions);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return env;
}

function runTiergate(argv, env, { timeoutMs, log, verbose }) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [TIERGATE, ...argv], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  lines.push(`run ${results.runId}: verdict ${results.verdict}  pass ${results.counts.pass} fail ${results.counts.fail} inconclusive ${results.counts.inconclusive} skipped ${results.counts.skipped}; windows needed ${results.windows.needed}, used ${results.windows.used}`);
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
    lines.push(`${verdict.padEnd(12)} ${id.padEnd(26)} ${where.padEnd(24)} ${basis.padEnd(14)} ${clip(`${c.actual}${notes}`, width)}`);
  }
  return lines.join('\n');
}

async function main() {
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
    },
  });
  if (values.list) {
    for (const [name, s] of Object.entries(SERVERS)) process.stdout.write(`${name.padEnd(24)} ${s.what}\n`);
    return 0;
  }
  if (positionals.length !== 1 || !SERVERS[positionals[0]]) usage(positionals.length ? `unknown server ${positionals[0]}` : 'name a server');
  const name = positionals[0];
  const tiers = values.tiers.split(',').map((t) => t.trim()).filter(Boolean);
  for (const t of tiers) if (!TIER_PREFIX[t]) usage(`--tiers: ${t}? (starter, professional)`);
  const windowS = Number(values.window);
  if (!Number.isInteger(windowS) || windowS < 1 || windowS > 600) usage('--window: whole seconds');
  let assumptions = null;
  if (values.declare) {
    assumptions = {};
    for (const item of values.declare.split(',').map((x) => x.trim()).filter(Boolean)) {
      const m = /^([a-z-]+)=(true|false)$/.exec(item);
      if (!m) usage(`--declare ${item}: expected name=true|false, e.g. head-bootstrap-free=false`);
      assumptions[m[1]] = m[2] === 'true';
    }
  }
  const timeoutMs = Number(values['timeout-s']) * 1000;
  if (!(timeoutMs > 0 && timeoutMs <= 3_600_000)) usage('--timeout-s: 1..3600');

  const secrets = mkdtempSync(join(tmpdir(), 'tiergate-limiters-')); // the config: private, removed at the end
  const out = values.out ? resolve(values.out) : mkdtempSync(join(tmpdir(), `tiergate-${name}-`));
  mkdirSync(out, { recursive: true });
  const log = createWriteStream(join(out, 'run.log'));
  let server = null;
  try {
    server = await startWithKeys(name, { tiers, windowS, log });
    const { orgs } = server;
    const configFile = join(secrets, 'tiergate.config.json');
    const env = writeConfig(configFile, server.url, orgs, windowS, assumptions);
    process.stdout.write(`${name}: ${SERVERS[name].what}\n  server ${server.url}, orgs ${orgs.map((o) => o.name).join(', ')}, window ${windowS}s; reports in ${out}\n`);
    const argv = ['run', '--config', configFile, '--out', out, '--tiers', tiers.join(',')];
    if (values.checks) argv.push('--checks', values.checks);
    const started = Date.now();
    const { code, signal } = await runTiergate(argv, env, { timeoutMs, log, verbose: values.verbose });
    process.stdout.write(`  tiergate exit ${code ?? signal} after ${((Date.now() - started) / 1000).toFixed(1)} s (log: ${join(out, 'run.log')})\n`);
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
    process.stdout.write(`${printResults(results, { width: Number(values.width) })}\n`);
    return code ?? 1;
  } finally {
    if (server) await server.stop();
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
