/**
 * A deployment that keeps every promise but speaks the IETF RateLimit fields instead of §8's
 * X-RateLimit-*. Declared (`run --declare-headers ietf`; a config's `headers`), every check of every
 * tier passes, decided: results.json records the declaration beside §8's dialect, every answer is
 * read in the dialect (observations keep the fields as received in `rateLimit.dialect`, and the
 * quota's figures as Limit, Remaining and Reset in seconds until). Not declared, §8 judges: exactly
 * the header checks fail, and every quota check is still decided.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckId } from '../../src/catalogue/types.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { HeaderDeclaration } from '../../src/config/schema.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { notPassed } from '../helpers/explained.ts';
import { runObservations } from '../helpers/run-files.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const QUOTA_CHECKS = ['QUOTA-READ', 'QUOTA-INGEST'] as const satisfies readonly CheckId[];
const TIERS = ['starter', 'professional', 'enterprise'] as const;
/** What §8 judges of a deployment that sends none of its X-RateLimit-* headers. */
const HEADER_CHECKS: readonly string[] = ['HDR-PRESENT', 'HDR-LIMIT', 'HDR-REMAINING', 'HDR-RESET', 'HEAD-BOOTSTRAP'];
/** Enterprise sells "2,500 or more": its organizations' own figures declared (the published minimums), as a config does. */
const { enterprise } = recruitingApi.tiers;
const ENTERPRISE = {
  read: enterprise.read.value,
  ingest: enterprise.ingest.value,
  concurrency: enterprise.concurrency.value,
};

/** The embedded target speaking the IETF fields, every tier, every check, Enterprise's figures declared; the dialect declared or not. */
async function runIetf(declaredHeaders: HeaderDeclaration | undefined, checks?: readonly CheckId[]) {
  const outDir = tempReportsDir();
  const { io } = captureIo();
  const outcome = await runSuite(
    shortRun(outDir, {
      tiers: checks ? ['starter'] : [...TIERS],
      headers: 'ietf',
      // Enterprise's 500 uploads at 300 ms, in batches under its cap, fit a 5 s window on a loaded machine.
      windowMs: checks ? 3000 : 5000,
      parseMs: 300,
      orgLimits: { enterprise: ENTERPRISE },
      ...(checks ? { checks } : {}),
      ...(declaredHeaders ? { declaredHeaders } : {}),
    }),
    io,
  );
  return { outcome, results: outcome.results!, runDir: outcome.runDir! };
}

// The whole-suite runs go one at a time, as clean-run's does: uploads timed on a loaded machine must fit a window.
describe('the IETF RateLimit fields', () => {
  it('declared: every check of every tier passes, and every answer is read in the dialect', async () => {
    const { outcome, results, runDir } = await runIetf({ dialect: 'ietf', policies: {} });
    expect(notPassed(results.checks)).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    for (const tier of TIERS) expect(results.checks.filter((c) => c.tier === tier).length).toBeGreaterThan(10);
    const headers = { declared: 'ietf', spec: 'x-ratelimit', policies: {} };
    expect(results.headers).toEqual(headers);
    expect(JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')).headers).toEqual(headers);
    // Every answer of an organization's quota carries the dialect's fields and the figures read from them.
    const counted = runObservations<Observation>(runDir).filter(
      (o) => o.org !== null && (o.status === 200 || o.status === 202 || o.status === 429),
    );
    expect(counted.length).toBeGreaterThan(0);
    for (const o of counted) {
      expect(o.rateLimit.dialect).toMatchObject({ name: 'ietf', problems: [] });
      expect(Object.keys(o.rateLimit.dialect!.fields).sort()).toEqual(['ratelimit', 'ratelimit-policy']);
      expect(o.rateLimit.limit.value).toEqual(o.rateLimit.dialect!.policy!.quota);
      // Reset in seconds until, never an epoch: within the 5 s window.
      expect(o.rateLimit.reset.value).toBeGreaterThanOrEqual(0);
      expect(o.rateLimit.reset.value).toBeLessThanOrEqual(5);
    }
    const policies = new Set(counted.map((o) => `${o.path} ${o.rateLimit.dialect!.policy!.name}`));
    expect([...policies].every((p) => p.endsWith(p.includes('resume-analysis') ? ' ingest' : ' read'))).toBe(true);
  });

  it('not declared: §8 judges, exactly the header checks fail, every quota check decided', async () => {
    const { outcome, results } = await runIetf(undefined);
    expect(results.headers).toEqual({ declared: null, spec: 'x-ratelimit', policies: {} });
    const failed = new Set(results.checks.filter((c) => c.verdict === 'fail').map((c) => c.id));
    expect([...failed].sort()).toEqual([...HEADER_CHECKS].sort());
    expect(notPassed(results.checks.filter((c) => !HEADER_CHECKS.includes(c.id)))).toEqual([]);
    expect(outcome.exitCode).toBe(1);
  });

  it.concurrent('with the policies named per quota class: recorded, and the quota checks pass', async () => {
    const policies = { read: 'read', ingest: 'ingest' };
    const { results } = await runIetf({ dialect: 'ietf', policies }, QUOTA_CHECKS);
    expect(results.headers).toEqual({ declared: 'ietf', spec: 'x-ratelimit', policies });
    const quota = results.checks.filter((c) => (QUOTA_CHECKS as readonly string[]).includes(c.id));
    expect(new Set(quota.map((c) => c.id))).toEqual(new Set(QUOTA_CHECKS));
    expect(notPassed(quota)).toEqual([]);
  });
});
