/**
 * A deployment that speaks the IETF RateLimit fields instead of §8's X-RateLimit-*, with that
 * dialect declared (`run --declare-headers ietf`; a config's `headers`): results.json records the
 * declaration beside §8's dialect, every answer is read in the dialect (observations keep the fields
 * as received in `rateLimit.dialect`, and the quota's figures as Limit, Remaining and Reset in seconds
 * until), and the quota checks, whose windows are placed by those fields, are decided. What the
 * header checks say of the dialect is judged elsewhere.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import type { HeaderDeclaration } from '../../src/config/schema.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { runObservations } from '../helpers/run-files.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const QUOTA_CHECKS = ['QUOTA-READ', 'QUOTA-INGEST'] as const;

/** Every quota result as `ID/variant verdict`, with its reason codes where it did not pass. */
const verdicts = (checks: readonly CheckResult[]) =>
  checks.map(
    (c) =>
      `${c.id}/${c.variant} ${c.verdict}${c.verdict === 'pass' ? '' : ` ${c.reasons.map((r) => JSON.stringify(r)).join(' ')}`}`,
  );

async function runDeclared(declaredHeaders: HeaderDeclaration) {
  const outDir = tempReportsDir();
  const { io } = captureIo();
  const outcome = await runSuite(
    shortRun(outDir, { checks: QUOTA_CHECKS, headers: 'ietf', declaredHeaders, windowMs: 3000 }),
    io,
  );
  return { results: outcome.results!, runDir: outcome.runDir! };
}

describe('the IETF RateLimit fields, declared', () => {
  it.concurrent('results.json records the declaration, every answer is read in the dialect, the quota checks pass', async () => {
    const { results, runDir } = await runDeclared({ dialect: 'ietf', policies: {} });
    const headers = { declared: 'ietf', spec: 'x-ratelimit', policies: {} };
    expect(results.headers).toEqual(headers);
    expect(JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8')).headers).toEqual(headers);
    const quota = results.checks.filter((c) => (QUOTA_CHECKS as readonly string[]).includes(c.id));
    expect(new Set(quota.map((c) => c.id))).toEqual(new Set(QUOTA_CHECKS));
    expect(verdicts(quota)).toEqual(quota.map((c) => `${c.id}/${c.variant} pass`));
    // Every answer of an organization's quota carries the dialect's fields and the figures read from them.
    const counted = runObservations<Observation>(runDir).filter(
      (o) => o.org !== null && (o.status === 200 || o.status === 202 || o.status === 429),
    );
    expect(counted.length).toBeGreaterThan(0);
    for (const o of counted) {
      expect(o.rateLimit.dialect).toMatchObject({ name: 'ietf', problems: [] });
      expect(Object.keys(o.rateLimit.dialect!.fields).sort()).toEqual(['ratelimit', 'ratelimit-policy']);
      expect(o.rateLimit.limit.value).toEqual(o.rateLimit.dialect!.policy!.quota);
      // Reset in seconds until, never an epoch: within the 3 s window.
      expect(o.rateLimit.reset.value).toBeGreaterThanOrEqual(0);
      expect(o.rateLimit.reset.value).toBeLessThanOrEqual(3);
    }
    const policies = new Set(counted.map((o) => `${o.path} ${o.rateLimit.dialect!.policy!.name}`));
    expect([...policies].every((p) => p.endsWith(p.includes('resume-analysis') ? ' ingest' : ' read'))).toBe(true);
  });

  it.concurrent('with the policies named per quota class: recorded, and the quota checks pass', async () => {
    const policies = { read: 'read', ingest: 'ingest' };
    const { results } = await runDeclared({ dialect: 'ietf', policies });
    expect(results.headers).toEqual({ declared: 'ietf', spec: 'x-ratelimit', policies });
    const quota = results.checks.filter((c) => (QUOTA_CHECKS as readonly string[]).includes(c.id));
    expect(verdicts(quota)).toEqual(quota.map((c) => `${c.id}/${c.variant} pass`));
  });
});
