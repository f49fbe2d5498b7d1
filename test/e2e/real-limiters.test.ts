/**
 * tiergate's verdicts on real rate limiters: each server of the test bed (test/limiters/: express-
 * rate-limit, rate-limiter-flexible, @fastify/rate-limit, limiter's TokenBucket) is started as
 * run.mjs starts it, and the starter tier is run through the library API (runSuite) with a 3 s
 * window, as `node test/limiters/run.mjs <server> --tiers starter` does through the CLI. The keys
 * stay in memory: the config names environment variables and the env object carries them.
 *
 * The table holds the verdicts a correct harness must give per the spec. Where a verdict depends on
 * the server's timing (a token bucket refills while the checks run), only what must hold is asserted;
 * no timing threshold is. Each library also runs as it ships, with no concurrency cap
 * (`<server>-no-cap`, CONCURRENCY-CAP only), where CONCURRENCY-CAP must fail, decided. Skipped, with
 * the reason, only when test/limiters/node_modules is missing (`npm ci --prefix test/limiters`).
 *
 * `conformant-cluster` stands in for the deployment of issue 17 (three edges on one store, windows
 * from the first request, the cap, uploads of both kinds taking 300 ms): a conformant deployment
 * must end PASS with every check decided, also behind a flaky network. An expectation today's
 * tiergate cannot meet yet is `pending`: skipped with its reason, run with TIERGATE_RUN_PENDING=1.
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFailed } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { EXIT } from '../../src/util/errors.ts';
import type { CheckId, CheckResult, Verdict } from '../../src/catalogue/types.ts';
import type { LimiterProfile } from '../../src/profile/types.ts';
import type { RateLimitDialectName } from '../../src/contract/rate-limit-names.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { externalTarget, type RunOptions } from '../../src/run/options.ts';
import { runSuite } from '../../src/run/run.ts';
import {
  buildConfig,
  describeDrops,
  SERVERS,
  startProxies,
  startWithKeys,
  type FlakyOptions,
  type StartOptions,
} from '../limiters/run.mjs';
import { startRedis } from '../limiters/lib/redis-server.mjs';
import { learnedConcurrency } from '../../src/verdicts/concurrency-cap.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { unexplained } from '../helpers/explained.ts';
import { tempReportsDir } from '../helpers/run-options.ts';
import { TIER_RESULTS } from '../helpers/check-lists.ts';

const LIMITERS = resolve(dirname(fileURLToPath(import.meta.url)), '../limiters');
const INSTALLED = existsSync(join(LIMITERS, 'node_modules'));
const NOT_INSTALLED =
  'test/limiters/node_modules is missing: run `npm ci --prefix test/limiters` to test tiergate on the real limiters';
const WINDOW_S = 3;

const PASS: readonly Verdict[] = ['pass'];
const FAIL: readonly Verdict[] = ['fail'];
const NOT_FAIL: readonly Verdict[] = ['pass', 'inconclusive', 'skipped'];
const ANY: readonly Verdict[] = ['pass', 'fail', 'inconclusive', 'skipped'];

/**
 * Allowed verdicts per check: `ID/variant` first, then `ID` (every variant), then '*' (every other
 * check). Every rule other than '*' must match at least one result.
 */
type Rules = Readonly<Record<string, readonly Verdict[]>>;

interface Expectation {
  readonly server: string;
  readonly why: string;
  /** The checks to run; absent: every check of a starter run. */
  readonly checks?: readonly CheckId[];
  /** The deployment's shape where it is not the runner entry's (run.mjs resolveShape). */
  readonly shape?: StartOptions['shape'];
  /** The rate-limit header dialect the config declares (`headers`); absent: §8's X-RateLimit-*. */
  readonly declare?: RateLimitDialectName;
  /** A flaky network in front of every edge (run.mjs startProxies): about one request in N dropped unanswered. */
  readonly flaky?: FlakyOptions;
  /** Why the expectation is held back for now: the test skips with this reason (it still runs with TIERGATE_RUN_PENDING=1). */
  readonly pending?: string;
  readonly verdicts: Rules;
  readonly profile: (p: LimiterProfile) => void;
  readonly more?: (checks: readonly CheckResult[]) => void;
}

/** express-rate-limit as the test bed runs it: exact fixed windows, a bulk upload counted as one request. */
const EXPRESS_VERDICTS: Rules = { '*': PASS, 'QUOTA-INGEST/bulk': FAIL };

/** What express-rate-limit shows besides, whatever headers it sends. */
function expressMore(checks: readonly CheckResult[]): void {
  // HEAD counts as a read here: no fault (§4 is silent), and its reason says it is an assumption.
  const head = only(checks, 'HEAD-BOOTSTRAP');
  expect(
    head.reasons.some((r) => r.code === 'head-counts-as-read'),
    show(head),
  ).toBe(true);
  // The test bed's hand-written cap refuses one more at once.
  expect(learnedConcurrency(only(checks, 'CONCURRENCY-CAP')).value).toEqual({ kind: 'refuses', status: 429 });
}

const EXPECTED: readonly Expectation[] = [
  {
    server: 'express-rate-limit',
    why: 'exact fixed windows; a bulk upload counts as one request, not one per resume',
    verdicts: EXPRESS_VERDICTS,
    profile: (p) => {
      keptBrief(p);
      expect(p.read.resetFormat.value).toBe('epoch-seconds');
      expect(p.counts.head.value).toBe(true);
    },
    more: expressMore,
  },
  // The same limiter with the IETF fields alone (legacy headers off), the dialect declared: the same
  // verdicts as its legacy-header run, check by check, all decided.
  ...(['draft-7', 'draft-8'] as const).map(
    (mode): Expectation => ({
      server: 'express-rate-limit',
      why: `${mode} headers alone, declared as ${mode === 'draft-7' ? 'ietf-draft-7' : 'ietf'}: the legacy run's verdicts`,
      shape: { headers: mode },
      declare: mode === 'draft-7' ? 'ietf-draft-7' : 'ietf',
      verdicts: EXPRESS_VERDICTS,
      profile: (p) => {
        expect(p.read.resetFormat.value).toBe('seconds-until');
        expect(p.counts.head.value).toBe(true);
      },
      more: expressMore,
    }),
  ),
  {
    server: 'rate-limiter-flexible',
    why: 'exact fixed windows, bulk weighed per resume',
    verdicts: { '*': PASS },
    profile: (p) => {
      keptBrief(p);
      expect(p.counts.head.value).toBe(true);
    },
  },
  {
    server: 'fastify-rate-limit',
    why: 'X-RateLimit-Reset in seconds until the reset; a bulk upload counts as one request',
    verdicts: { '*': PASS, 'HDR-RESET': FAIL, 'QUOTA-INGEST/bulk': FAIL },
    profile: (p) => {
      expect(p.read.resetFormat.value).toBe('seconds-until');
    },
  },
  {
    server: 'fastify-per-route',
    why: 'one read counter per route, not per organization; seconds-until Reset; bulk as one request',
    verdicts: { '*': PASS, 'QUOTA-READ/sequential': FAIL, 'HDR-RESET': FAIL, 'QUOTA-INGEST/bulk': FAIL },
    profile: (p) => {
      expect(p.readSharedAcrossRoutes.value).toBe(false);
    },
  },
  {
    server: 'token-bucket',
    why: 'the bucket refills during the window: more than Limit per window',
    verdicts: {
      '*': NOT_FAIL,
      // A burst may finish before a token comes back: only the sequential variant surely fails.
      'QUOTA-READ/sequential': FAIL,
      'QUOTA-READ/burst': ANY,
      'QUOTA-INGEST/single': FAIL,
      'QUOTA-INGEST/bulk': ANY,
      'HDR-REMAINING': ANY,
      'HDR-RESET': ANY,
      'RETRY-AFTER': ANY,
      'ORG-SHARED': ANY,
    },
    profile: (p) => {
      expect(p.read.algorithm.value).toBe('refilling');
    },
  },
  {
    server: 'no-headers',
    why: 'an exact limiter that sends no rate-limit headers (Retry-After and the §7 body kept)',
    verdicts: {
      '*': ANY,
      'HDR-PRESENT': FAIL,
      'HDR-LIMIT': FAIL,
      'HDR-REMAINING': FAIL,
      'HDR-RESET': FAIL,
      'HEAD-BOOTSTRAP': FAIL,
      'QUOTA-INGEST/bulk': FAIL,
      'QUOTA-READ': PASS,
      'QUOTA-INGEST/single': PASS,
      'ORG-SHARED': PASS,
      'ORG-ISOLATED': PASS,
      'CONCURRENCY-CAP': PASS,
      'ERR-429-BODY': PASS,
      'RETRY-AFTER': PASS,
    },
    profile: (p) => {
      expect(p.headers.value).toBe(false);
    },
  },
  {
    // Issue 17: the deployment the product owner measured, at 3 s windows.
    server: 'conformant-cluster',
    why: 'conformant: 3 edges sharing one store, windows from the first request, the cap, uploads of both kinds taking 300 ms',
    shape: { parseMs: 300 },
    verdicts: { '*': PASS },
    profile: (p) => {
      keptBrief(p);
      expect(p.read.resetFormat.value).toBe('epoch-seconds');
    },
    more: (checks) => {
      // Every check decided: nothing inconclusive or skipped (PASS above says it; this names them).
      expect(checks.filter((c) => c.verdict !== 'pass').map(show)).toEqual([]);
    },
  },
  {
    // Issue 17: the same behind a network that drops one request in 200 unanswered. Seed 31 loses a
    // discovery read (#7), a read of ORG-SHARED's bracket, sequential and burst reads, and openers.
    server: 'conformant-cluster',
    why: 'conformant, behind a flaky network (one request in 200 dropped unanswered)',
    shape: { parseMs: 300 },
    flaky: { dropOneIn: 200, seed: 31 },
    verdicts: { '*': PASS },
    profile: (p) => {
      keptBrief(p);
    },
    more: (checks) => {
      expect(checks.filter((c) => c.verdict !== 'pass').map(show)).toEqual([]);
    },
  },
];

/** Each library as it ships, with no concurrency cap: CONCURRENCY-CAP fails, decided from the run's own timings. */
const NO_CAP: readonly Expectation[] = [
  'express-rate-limit',
  'rate-limiter-flexible',
  'fastify-rate-limit',
  'token-bucket',
].map((library) => ({
  server: `${library}-no-cap`,
  why: 'no concurrency cap at all, as the library ships: one more than the cap is served beside them',
  checks: ['CONCURRENCY-CAP'],
  verdicts: { 'CONCURRENCY-CAP': FAIL },
  profile: () => {},
  more: (checks) => {
    const cap = only(checks, 'CONCURRENCY-CAP');
    expect(learnedConcurrency(cap), show(cap)).toMatchObject({ value: { kind: 'no-cap' } });
  },
}));

/**
 * Two organizations of a tier leave the discovery none of its own: the checks wait for it, so it is
 * kept brief, and with rate-limit headers how windows start stays open, saying why.
 */
function keptBrief(p: LimiterProfile): void {
  expect(p.read.algorithm).toMatchObject({
    value: null,
    how: expect.stringMatching(/^not asked: the checks waited for this discovery/),
  });
}

const keyOf = (c: CheckResult) => (c.variant ? `${c.id}/${c.variant}` : c.id);
const show = (c: CheckResult) =>
  `${keyOf(c)} ${c.verdict}: ${c.actual}${c.notes.length ? ` [notes: ${c.notes.join(' | ')}]` : ''}`;

function only(checks: readonly CheckResult[], key: string): CheckResult {
  const found = checks.filter((c) => keyOf(c) === key);
  expect(found.map(keyOf)).toEqual([key]);
  return found[0]!;
}

function allowed(rules: Rules, c: CheckResult): readonly Verdict[] {
  return rules[keyOf(c)] ?? rules[c.id] ?? rules['*'] ?? ANY;
}

/** Starts the server, runs the starter tier against it (reports into outDir), stops the server. */
async function runAgainst(expected: Expectation, outDir: string, serverLog: string[]) {
  const { server } = expected;
  const log = { write: (d: string | Uint8Array) => serverLog.push(String(d)) };
  const running = await startWithKeys(server, {
    tiers: ['starter'],
    windowS: WINDOW_S,
    log,
    shape: expected.shape ?? {},
  });
  const proxies = expected.flaky ? await startProxies(running.urls, expected.flaky) : [];
  try {
    // Every edge the server listens on (edge 0 first), or the flaky proxies in front of them.
    const edges = proxies.length ? proxies.map((p) => p.url) : running.urls;
    const { config: built, env } = buildConfig(edges, running.orgs, WINDOW_S);
    const raw = expected.declare ? { ...built, headers: expected.declare } : built;
    const config = parseConfig(raw, `${server} config`);
    const options: RunOptions = {
      target: externalTarget(config, env, null),
      windowMs: config.window,
      tiers: ['starter'],
      checks: expected.checks ?? null,
      scenarios: [defineScenario({ tier: 'starter' })],
      outDir,
      timeoutMs: config.timeout,
      revocation: {},
      listeners: [],
      dryRun: false,
      engine: 'harness',
    };
    const { io } = captureIo();
    return await runSuite(options, io);
  } finally {
    // What the flaky network dropped (method and path only), for the failure message.
    serverLog.push(...describeDrops(proxies).map((line) => `[flaky] ${line}\n`));
    await Promise.all(proxies.map((p) => p.close()));
    await running.stop();
  }
}

describe.concurrent('tiergate on real rate limiters (test/limiters, starter tier, 3 s window)', () => {
  for (const expected of [...EXPECTED, ...NO_CAP]) {
    it(`${expected.server}: ${expected.why}`, async (ctx) => {
      if (!INSTALLED) ctx.skip(NOT_INSTALLED);
      if (expected.pending && process.env.TIERGATE_RUN_PENDING !== '1') ctx.skip(expected.pending);
      expect(SERVERS[expected.server], `run.mjs has no server ${expected.server}`).toBeDefined();
      const outDir = tempReportsDir();
      const serverLog: string[] = [];
      onTestFailed(() => {
        process.stderr.write(
          `[real-limiters] ${expected.server}: reports kept in ${outDir}; server log:\n${serverLog.join('').slice(-4000)}\n`,
        );
      });
      const outcome = await runAgainst(expected, outDir, serverLog);
      expect(outcome.results, 'runSuite returned no results').not.toBeNull();
      const results = outcome.results!;
      const checks = results.checks;
      // Every result that is not a pass says why by codes that tiergate explain knows.
      expect(unexplained(checks)).toEqual([]);

      // Every check a starter run holds is there, and every rule names a check that ran.
      const keys = checks.map(keyOf);
      expect(keys).toEqual(expect.arrayContaining([...(expected.checks ?? TIER_RESULTS)]));
      for (const rule of Object.keys(expected.verdicts).filter((r) => r !== '*')) {
        expect({ rule, matched: checks.some((c) => keyOf(c) === rule || c.id === rule) }).toEqual({
          rule,
          matched: true,
        });
      }

      // Verdicts: every result against its rule, shown with its actual text and notes when off.
      const off = checks
        .filter((c) => !allowed(expected.verdicts, c).includes(c.verdict))
        .map((c) => ({
          check: keyOf(c),
          verdict: c.verdict,
          allowed: allowed(expected.verdicts, c).join('|'),
          actual: c.actual,
          notes: c.notes,
        }));
      expect(off).toEqual([]);

      // The limiter profile learned before the checks.
      const profiles = results.profiles.filter((p) => p.tier === 'starter');
      expect(profiles).toHaveLength(1);
      expected.profile(profiles[0]!);
      expected.more?.(checks);

      // The exit code follows from the checks: any fail fails the run; all passing passes it.
      if (checks.some((c) => c.verdict === 'fail')) expect(outcome.exitCode).toBe(EXIT.fail);
      if (checks.every((c) => c.verdict === 'pass')) expect(outcome.exitCode).toBe(EXIT.pass);

      rmSync(outDir, { recursive: true, force: true });
    }, 150_000);
  }
});

/** One request to a test-bed edge: status, the §8 headers, the edge that answered, the body text. */
async function call(base: string, method: string, path: string, key: string | null, body?: string) {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  const h = (name: string) => res.headers.get(name);
  return {
    what: `${method} ${path} → ${res.status}`,
    status: res.status,
    edge: h('x-edge-node'),
    rateLimit: [h('x-ratelimit-limit'), h('x-ratelimit-remaining'), h('x-ratelimit-reset')],
    remaining: Number(h('x-ratelimit-remaining')),
    text,
  };
}

const hasRateLimitHeaders = (r: Awaited<ReturnType<typeof call>>) =>
  r.rateLimit.every((v) => v !== null && /^\d+$/.test(v));

describe.concurrent('the test bed as a deployment of issue 17 (conformant-cluster)', () => {
  for (const store of ['memory', 'redis'] as const) {
    it(`${store} store: three edges on one store; every answer, cap 429 included, carries the §8 headers and names its edge`, async (ctx) => {
      if (!INSTALLED) ctx.skip(NOT_INSTALLED);
      let redisStop: (() => Promise<void>) | null = null;
      let redisUrl: string | null = null;
      if (store === 'redis') {
        const redis = await startRedis();
        if (redis.url === null) ctx.skip(redis.reason);
        else {
          redisUrl = redis.url;
          redisStop = () => redis.stop();
        }
      }
      // Single uploads held long enough to be sure they are in flight while the cap is probed.
      const running = await startWithKeys('conformant-cluster', {
        tiers: ['starter'],
        windowS: WINDOW_S,
        shape: { store, parseMs: 2000 },
        redisUrl,
      });
      try {
        expect(running.urls).toHaveLength(3);
        expect(running.shape).toMatchObject({ edges: 3, parseMs: 2000, bulkParseMs: 2000, store });
        const [a, b] = running.orgs;
        const key = a!.keys.primary;
        // One store: the org's reads on edge 0, 1, 2 count against one Remaining.
        const reads = [];
        for (const edge of running.urls) reads.push(await call(edge, 'GET', '/recruiter/jobs', key));
        expect(reads.map((r) => [r.status, r.edge])).toEqual([
          [200, 'edge-0'],
          [200, 'edge-1'],
          [200, 'edge-2'],
        ]);
        expect(reads.map((r) => r.remaining)).toEqual([59, 58, 57]);
        // Every kind of answer, on every edge.
        const bulk = '/recruiter/jobs/vendor/resume-analysis/bulk';
        const answers = [];
        for (const [i, edge] of running.urls.entries()) {
          answers.push(
            await call(edge, 'GET', '/recruiter/jobs', null),
            await call(edge, 'GET', '/recruiter/jobs', b!.keys.unscoped),
            await call(edge, 'GET', '/recruiter/no-such-endpoint', b!.keys.primary),
            await call(edge, 'POST', bulk, b!.keys.primary, '{"resumes": ['),
            await call(edge, 'POST', bulk, b!.keys.primary, '{"resumes": []}'),
            await call(edge, 'HEAD', '/recruiter/bootstrap', b!.keys.primary),
          );
          expect(answers.slice(-6).map((r) => r.edge)).toEqual(Array(6).fill(`edge-${i}`));
        }
        expect(answers.map((r) => r.status)).toEqual(Array(3).fill([401, 403, 404, 400, 400, 200]).flat());
        expect(answers.filter((r) => !hasRateLimitHeaders(r)).map((r) => r.what)).toEqual([]);
        // The cap: five uploads held (2 s each), then reads until one is refused for the cap (the
        // witness that all five are in flight), on another edge than the uploads'.
        const heldFrom = performance.now();
        const held = Array.from({ length: 5 }, () =>
          call(running.urls[0]!, 'POST', '/recruiter/jobs/vendor/resume-analysis', b!.keys.primary, '{}'),
        );
        let capped: Awaited<ReturnType<typeof call>> | null = null;
        // Polled while the uploads are surely held (less than their 2 s), however long they take to arrive on a busy machine.
        while (capped === null && performance.now() - heldFrom < 1_800) {
          const r = await call(running.urls[2]!, 'HEAD', '/recruiter/bootstrap', b!.keys.primary);
          if (r.status === 429) capped = r;
          else await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(capped, 'no cap 429 while five uploads were held').not.toBeNull();
        expect(hasRateLimitHeaders(capped!)).toBe(true);
        expect(capped!.edge).toBe('edge-2');
        // Each upload answered with the headers: admitted, or refused for the cap where a poll reached the
        // server before it (the polls hold a slot while in flight); most of them admitted.
        const answered = await Promise.all(held);
        expect(
          answered.filter((r) => !hasRateLimitHeaders(r) || ![200, 429].includes(r.status)).map((r) => r.what),
        ).toEqual([]);
        expect(answered.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(4);
      } finally {
        await running.stop();
        await redisStop?.();
      }
    });
  }
});
