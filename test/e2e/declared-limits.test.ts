/**
 * Contracted limits in the config, judged exactly: two Enterprise organizations of a reference
 * target running in-process, created through its admin API with figures of their own, and a
 * deployment config (keys by variable) that declares figures for them. Declared as the target
 * enforces them, every quota, organization and concurrency check passes, with the Limit the server
 * announces and without any; declared otherwise, HDR-LIMIT fails on the server's announcement.
 * Through the library API (`runSuite`), as `tiergate run --config` runs it.
 */
import { describe, expect, it } from 'vitest';
import type { CheckId, CheckResult } from '../../src/catalogue/types.ts';
import { parseConfig } from '../../src/config/load.ts';
import { SCOPE_NAMES, type OrgLimits } from '../../src/contract/types.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { configRun } from '../helpers/run-options.ts';
import { useTarget, type TestTarget } from '../helpers/target.ts';

/** Just above the published minimums (2500 / 500 / 100), so that exactness shows and a run stays short. */
const CONTRACT: OrgLimits = { read: 2600, ingest: 520, concurrency: 110 };
const QUOTA_CHECKS = [
  'QUOTA-READ',
  'QUOTA-INGEST',
  'CONCURRENCY-CAP',
  'ORG-ISOLATED',
] as const satisfies readonly CheckId[];
/** 5 s: Enterprise's burst (5,200 reads) must fit one window beside the other whole-suite files. */
const WINDOW_MS = 5000;
/**
 * Behind a server without headers every window is placed by timing alone, so Enterprise's 2,600
 * sequential reads and its burst must end before the window's safe end, beside the other whole-suite
 * files on two cores. A series goes one at a time only where it fits a quarter of the window at the
 * measured round trip, else its bulk goes together (suite/series-shape.ts), so 5 s holds it.
 */
const HEADERLESS_WINDOW_MS = 5000;

// Uploads take 200 ms, so that the concurrency check can hold the cap's worth in flight.
const withHeaders = useTarget({ edges: 1, windowMs: WINDOW_MS, parseMs: 200 });
const headerless = useTarget({ edges: 1, windowMs: HEADERLESS_WINDOW_MS, parseMs: 200, faults: ['no-rate-headers'] });

/** Organizations of their own each time, so runs on one target never share a quota. */
let made = 0;

/**
 * Two Enterprise organizations on `t` with `enforced` figures, three keys each; the config declares
 * `declared` for both.
 */
async function runDeclared(
  t: TestTarget,
  enforced: OrgLimits,
  declared: Partial<OrgLimits>,
  checks: readonly CheckId[],
) {
  const env: Record<string, string> = {};
  const orgs = [];
  for (const name of ['enterprise-a', 'enterprise-b']) {
    const org = await t.admin.createOrg('enterprise', `${name}-${++made}`, enforced);
    const variable = (role: string) => `XH_${name.replace('-', '_').toUpperCase()}_${role}`;
    for (const [role, scopes] of [
      ['KEY', SCOPE_NAMES],
      ['KEY_2', SCOPE_NAMES],
      ['KEY_NOSCOPE', []],
    ] as const) {
      env[variable(role)] = (await t.admin.createKey(org.id, scopes, 'test')).key;
    }
    orgs.push({
      name,
      tier: 'enterprise',
      keys: {
        primary: { env: variable('KEY') },
        secondary: { env: variable('KEY_2') },
        unscoped: { env: variable('KEY_NOSCOPE') },
      },
      limits: declared,
    });
  }
  const config = parseConfig(
    { target: { edges: t.target.edges }, window: `${t.windowMs / 1000}s`, timeout: '5s', orgs },
    'declared-limits test config',
  );
  const { io } = captureIo({ env });
  const outcome = await runSuite(
    configRun(config, env, { scenarios: [defineScenario({ tier: 'enterprise', orgs: 2 })], checks }),
    io,
  );
  return { outcome, results: outcome.results! };
}

const verdicts = (checks: readonly CheckResult[]) =>
  checks.map(
    (c) =>
      `${c.id}${c.variant ? ` ${c.variant}` : ''} ${c.verdict}${c.verdict === 'pass' ? '' : `: ${c.actual} ${c.notes.join(' ')}`}`,
  );
const find = (checks: readonly CheckResult[], id: CheckId, variant: string) =>
  checks.find((c) => c.id === id && c.variant === variant)!;

describe.concurrent('limits declared in the config, judged exactly (Enterprise)', () => {
  it('declared as the target enforces them: HDR-LIMIT, the quota, organization and concurrency checks pass, against the declared figures', async () => {
    const { outcome, results } = await runDeclared(withHeaders(), CONTRACT, CONTRACT, ['HDR-LIMIT', ...QUOTA_CHECKS]);
    expect(verdicts(results.checks).filter((v) => !v.endsWith(' pass'))).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    expect(new Set(results.checks.map((c) => c.id))).toEqual(new Set(['HDR-LIMIT', ...QUOTA_CHECKS]));
    expect(find(results.checks, 'HDR-LIMIT', 'read').data).toMatchObject({
      figure: { value: 2600, atLeast: false, declared: true },
    });
    expect(find(results.checks, 'HDR-LIMIT', 'ingest').data).toMatchObject({
      figure: { value: 520, atLeast: false, declared: true },
    });
    expect(find(results.checks, 'QUOTA-READ', 'sequential').reasons).toContainEqual({
      code: 'limit-declared-in-config',
      limit: 2600,
      announced: 2600,
    });
    expect(results.declaredLimits).toEqual([
      { org: 'enterprise-a', tier: 'enterprise', limits: CONTRACT },
      { org: 'enterprise-b', tier: 'enterprise', limits: CONTRACT },
    ]);
  }, 120_000);

  it('behind a server that announces no Limit, the quota checks are still decided, exactly, against the declared figures', async () => {
    const { outcome, results } = await runDeclared(headerless(), CONTRACT, CONTRACT, QUOTA_CHECKS);
    expect(verdicts(results.checks).filter((v) => !v.endsWith(' pass'))).toEqual([]);
    expect(outcome.exitCode).toBe(0);
    const sequential = find(results.checks, 'QUOTA-READ', 'sequential');
    expect(sequential.data).toMatchObject({ limit: 2600, admissible: 2600, spentBefore: 0 });
    expect(sequential.reasons).toContainEqual({ code: 'limit-declared-in-config', limit: 2600, announced: null });
    expect(sequential.reasons.map((r) => r.code)).not.toContain('no-announced-limit');
  }, 120_000);

  it('declared otherwise than the target announces: HDR-LIMIT fails, saying the figure was declared in the config', async () => {
    const declared = { read: CONTRACT.read + 100 };
    const { outcome, results } = await runDeclared(withHeaders(), CONTRACT, declared, ['HDR-LIMIT']);
    const read = find(results.checks, 'HDR-LIMIT', 'read');
    expect(read.verdict).toBe('fail');
    expect(read.data).toMatchObject({ figure: { value: 2700, atLeast: false, declared: true } });
    expect(read.reasons).toEqual([
      { code: 'limit-off-figure', announced: 2600, responses: expect.any(Number), figure: 2700, basis: 'declared' },
    ]);
    // Ingest was not declared: the published minimum judges it, and the target's 520 meets it.
    expect(find(results.checks, 'HDR-LIMIT', 'ingest').verdict).toBe('pass');
    expect(outcome.exitCode).toBe(1);
  }, 120_000);
});
