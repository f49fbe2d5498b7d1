/**
 * tiergate's verdicts on real rate limiters: each server of the test bed (test/limiters/: express-
 * rate-limit, rate-limiter-flexible, @fastify/rate-limit, limiter's TokenBucket) is started as
 * run.mjs starts it, and the starter tier is run through the library API (runSuite) with a 3 s
 * window, as `node test/limiters/run.mjs <server> --tiers starter` does through the CLI. The keys
 * stay in memory: the config names environment variables and the env object carries them.
 *
 * The table holds the verdicts a correct harness must give per the spec. Where a verdict depends on
 * the server's timing (a token bucket refills while the checks run), only what must hold is asserted;
 * no timing threshold is. Skipped, with the reason, only when test/limiters/node_modules is missing
 * (`npm ci --prefix test/limiters`).
 */
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFailed } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { EXIT } from '../../src/util/errors.ts';
import type { CheckResult, Verdict } from '../../src/catalogue/types.ts';
import type { LimiterProfile } from '../../src/profile/types.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { orgsFromConfig } from '../../src/provision/config-orgs.ts';
import type { RunOptions } from '../../src/run/options.ts';
import { runSuite } from '../../src/run/run.ts';
import { buildConfig, SERVERS, startWithKeys } from '../limiters/run.mjs';
import { captureIo } from '../helpers/capture-io.ts';
import { tempReportsDir } from '../helpers/run-options.ts';

const LIMITERS = resolve(dirname(fileURLToPath(import.meta.url)), '../limiters');
const INSTALLED = existsSync(join(LIMITERS, 'node_modules'));
const NOT_INSTALLED = 'test/limiters/node_modules is missing: run `npm ci --prefix test/limiters` to test tiergate on the real limiters';
const WINDOW_S = 3;

/** What an external starter run reports (id/variant); any check added later is held by the '*' rule. */
const STARTER_CHECKS = [
  'AUTH-MISSING', 'AUTH-MALFORMED', 'AUTH-UNKNOWN', 'AUTH-KEY-FORMAT', 'SCOPE-LIST', 'SCOPE-ENFORCED',
  'HDR-PRESENT', 'HDR-LIMIT/read', 'HDR-LIMIT/ingest', 'HDR-REMAINING', 'HDR-RESET',
  'QUOTA-READ/sequential', 'QUOTA-READ/burst', 'QUOTA-INGEST/single', 'QUOTA-INGEST/bulk',
  'CONCURRENCY-CAP', 'ERR-429-BODY', 'RETRY-AFTER', 'ORG-SHARED', 'ORG-ISOLATED', 'HEAD-BOOTSTRAP',
];

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
  readonly verdicts: Rules;
  readonly profile: (p: LimiterProfile) => void;
  readonly more?: (checks: readonly CheckResult[]) => void;
}

const EXPECTED: readonly Expectation[] = [
  {
    server: 'express-rate-limit',
    why: 'exact fixed windows; a bulk upload counts as one request, not one per resume',
    verdicts: { '*': PASS, 'QUOTA-INGEST/bulk': FAIL },
    profile: (p) => {
      expect(p.read.algorithm.value).toBe('fixed-first-request');
      expect(p.read.resetFormat.value).toBe('epoch-seconds');
      expect(p.counts.head.value).toBe(true);
    },
    more: (checks) => {
      // HEAD counts as a read here: no fault (§4 is silent), and the note says it is an assumption.
      const head = only(checks, 'HEAD-BOOTSTRAP');
      expect(head.notes.some((n) => n.startsWith('assumption, not spec')), show(head)).toBe(true);
    },
  },
  {
    server: 'rate-limiter-flexible',
    why: 'exact fixed windows, bulk weighed per resume',
    verdicts: { '*': PASS },
    profile: (p) => {
      expect(p.read.algorithm.value).toBe('fixed-first-request');
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
    verdicts: { '*': PASS, 'QUOTA-READ/sequential': FAIL, 'HDR-RESET': FAIL, 'QUOTA-INGEST/bulk': FAIL, 'CONCURRENCY-CAP': ['pass', 'inconclusive'] },
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
];

const keyOf = (c: CheckResult) => (c.variant ? `${c.id}/${c.variant}` : c.id);
const show = (c: CheckResult) => `${keyOf(c)} ${c.verdict}: ${c.actual}${c.notes.length ? ` [notes: ${c.notes.join(' | ')}]` : ''}`;

function only(checks: readonly CheckResult[], key: string): CheckResult {
  const found = checks.filter((c) => keyOf(c) === key);
  expect(found.map(keyOf)).toEqual([key]);
  return found[0]!;
}

function allowed(rules: Rules, c: CheckResult): readonly Verdict[] {
  return rules[keyOf(c)] ?? rules[c.id] ?? rules['*'] ?? ANY;
}

/** Starts the server, runs the starter tier against it (reports into outDir), stops the server. */
async function runAgainst(server: string, outDir: string, serverLog: string[]) {
  const running = await startWithKeys(server, { tiers: ['starter'], windowS: WINDOW_S, log: { write: (d) => serverLog.push(String(d)) } });
  try {
    const { config: raw, env } = buildConfig(running.url, running.orgs, WINDOW_S);
    const config = parseConfig(raw, `${server} config`);
    const options: RunOptions = {
      target: { kind: 'external', config, orgs: orgsFromConfig(config, env) },
      windowMs: config.window,
      tiers: ['starter'],
      checks: null,
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
    await running.stop();
  }
}

describe.concurrent('tiergate on real rate limiters (test/limiters, starter tier, 3 s window)', () => {
  for (const expected of EXPECTED) {
    it(`${expected.server}: ${expected.why}`, async (ctx) => {
      if (!INSTALLED) ctx.skip(NOT_INSTALLED);
      expect(SERVERS[expected.server], `run.mjs has no server ${expected.server}`).toBeDefined();
      const outDir = tempReportsDir();
      const serverLog: string[] = [];
      onTestFailed(() => {
        process.stderr.write(`[real-limiters] ${expected.server}: reports kept in ${outDir}; server log:\n${serverLog.join('').slice(-4000)}\n`);
      });
      const outcome = await runAgainst(expected.server, outDir, serverLog);
      expect(outcome.results, 'runSuite returned no results').not.toBeNull();
      const results = outcome.results!;
      const checks = results.checks;

      // Every check a starter run holds is there, and every rule names a check that ran.
      const keys = checks.map(keyOf);
      expect(keys).toEqual(expect.arrayContaining(STARTER_CHECKS));
      for (const rule of Object.keys(expected.verdicts).filter((r) => r !== '*')) {
        expect({ rule, matched: checks.some((c) => keyOf(c) === rule || c.id === rule) }).toEqual({ rule, matched: true });
      }

      // Verdicts: every result against its rule, shown with its actual text and notes when off.
      const off = checks
        .filter((c) => !allowed(expected.verdicts, c).includes(c.verdict))
        .map((c) => ({ check: keyOf(c), verdict: c.verdict, allowed: allowed(expected.verdicts, c).join('|'), actual: c.actual, notes: c.notes }));
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
