#!/usr/bin/env node
/**
 * Learn each library's behaviour from its own answers (the evidence behind the behaviour table):
 *
 *   node test/limiters/probe.mjs [server ...]      (default: every server of run.mjs)
 *
 * Per server, on fresh starter orgs (one per question, so no question disturbs another): Reset
 * format and window start, HEAD / 401 / 403 / 404 / 429 counting, read routes sharing one counter,
 * Remaining and Retry-After on 429, and how many reads a window admits when sent steadily.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVERS, startServer } from './run.mjs';

const W = 3;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function req(base, method, path, key, body) {
  const headers = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const h = (n) => res.headers.get(n);
  return {
    status: res.status,
    limit: h('x-ratelimit-limit'),
    remaining: h('x-ratelimit-remaining') === null ? null : Number(h('x-ratelimit-remaining')),
    reset: h('x-ratelimit-reset'),
    retryAfter: h('retry-after'),
    date: Date.parse(h('date')),
    now: Date.now(),
    body: text,
  };
}

function resetFormat(r) {
  if (r.reset === null) return 'absent';
  const v = Number(r.reset);
  if (!Number.isFinite(v)) return `unreadable (${r.reset})`;
  if (v > 1e12) return `epoch ms (${v})`;
  if (v > 1e9) return `epoch s (Reset − now = ${(v - r.now / 1000).toFixed(2)} s)`;
  return `seconds-until (${v})`;
}

/** Does `probe` consume a read? GET jobs, probe, GET jobs: the drop in Remaining between the GETs. */
async function counts(base, key, probe) {
  const a = await req(base, 'GET', '/recruiter/jobs', key);
  const p = await probe();
  const b = await req(base, 'GET', '/recruiter/jobs', key);
  if (a.remaining === null || b.remaining === null) return `? (no Remaining; probe → ${p.status})`;
  const drop = a.remaining - b.remaining - 1;
  return `${drop >= 1 ? 'yes' : 'no'} (probe ${p.status}; Remaining ${a.remaining}→${b.remaining})`;
}

async function probeServer(name) {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-probe-'));
  const keysFile = join(dir, 'keys.json');
  const server = await startServer(name, {
    tiers: ['starter'],
    windowS: W,
    keysFile,
    log: null,
    extra: ['--orgs-per-tier', '8'],
  });
  const out = { server: name };
  try {
    const orgs = JSON.parse(readFileSync(keysFile, 'utf8')).orgs;
    const k = (i, role = 'primary') => orgs[i].keys[role];
    const base = server.url;

    // Window start: first request at 0.4 W past an aligned multiple (by our clock), Reset vs now.
    const msToOffset = (W * 1000 - (Date.now() % (W * 1000)) + 0.4 * W * 1000) % (W * 1000);
    await sleep(msToOffset);
    const first = await req(base, 'GET', '/recruiter/jobs', k(0));
    out.resetFormat = resetFormat(first);
    const v = Number(first.reset);
    const resetAt = v > 1e12 ? v : v > 1e9 ? v * 1000 : first.now + v * 1000;
    const untilReset = (resetAt - first.now) / 1000;
    out.windowStart = `first request at ${((first.now % (W * 1000)) / 1000).toFixed(2)} s into an aligned ${W}s slot; Reset in ${untilReset.toFixed(2)} s → ${untilReset > 0.8 * W ? 'starts at the first request (or refills)' : 'clock-aligned'}`;
    const second = await req(base, 'GET', '/recruiter/jobs', k(0));
    out.resetConstant = `${first.reset} then ${second.reset}`;
    out.headOnGet = first.limit;

    out.countsHead = await counts(base, k(1), () => req(base, 'HEAD', '/recruiter/bootstrap', k(1)));
    out.counts403 = await counts(base, k(2), () => req(base, 'GET', '/recruiter/jobs', k(2, 'unscoped')));
    out.counts404 = await counts(base, k(3), () => req(base, 'GET', '/recruiter/no-such-thing', k(3)));
    out.counts401 = 'n/a: a request without a valid key has no org (limiter keys it by client IP)';
    out.sharedAcrossRoutes = await counts(base, k(4), () => req(base, 'GET', '/recruiter/candidates/cand-1', k(4)));
    const hdrOn401 = await req(base, 'GET', '/recruiter/jobs', null);
    out.headersOn401 = `${hdrOn401.status} Limit ${hdrOn401.limit} Remaining ${hdrOn401.remaining}`;
    const ingest = await req(base, 'POST', '/recruiter/jobs/vendor/resume-analysis/bulk', k(4), {
      resumes: [{}, {}, {}],
    });
    const ingest2 = await req(base, 'POST', '/recruiter/jobs/vendor/resume-analysis/bulk', k(4), { resumes: [] });
    out.bulk = `bulk of 3 → ${ingest.status} Limit ${ingest.limit} Remaining ${ingest.remaining}; empty bulk → ${ingest2.status} Remaining ${ingest2.remaining}`;

    // Exhaust org 5's reads fast, then one more: Remaining and Retry-After on the 429, and whether
    // a 429 is counted (the count after the window, for buckets: whether it delays the refill).
    const limit = Number(first.limit) || 60;
    let last = null;
    for (let i = 0; i < limit + 1 && i < 400; i++) last = await req(base, 'GET', '/recruiter/jobs', k(5));
    out.on429 =
      last.status === 429
        ? `Remaining ${last.remaining}, Retry-After "${last.retryAfter}", body ${last.body}`
        : `no 429 after ${limit + 1} (status ${last.status})`;

    // Steady reads over exactly one window from the first (org 6): how many are admitted in W?
    const t0 = Date.now();
    let admitted = 0;
    let sent = 0;
    while (Date.now() - t0 < W * 1000 - 50 && sent < 2000) {
      const r = await req(base, 'GET', '/recruiter/jobs', k(6));
      sent += 1;
      if (r.status < 400) admitted += 1;
      await sleep(5);
    }
    out.admittedInOneWindow = `${admitted} of ${sent} reads sent steadily within ${W}s of the first (Limit ${limit})`;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SERVERS);
for (const name of names) {
  if (!SERVERS[name]) {
    process.stderr.write(`unknown server ${name}\n`);
    process.exit(2);
  }
  const r = await probeServer(name);
  process.stdout.write(`\n== ${name}\n`);
  for (const [key, value] of Object.entries(r))
    if (key !== 'server') process.stdout.write(`  ${key.padEnd(20)} ${value}\n`);
}
