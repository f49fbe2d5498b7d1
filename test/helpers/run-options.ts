/** RunOptions for a short run, against the embedded target or a deployment's config, writing into a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckId } from '../../src/catalogue/types.ts';
import type { Config } from '../../src/config/schema.ts';
import { orgsFromConfig } from '../../src/provision/config-orgs.ts';
import type { TierName } from '../../src/contract/types.ts';
import { defineScenario, type Scenario } from '../../src/scenario/define.ts';
import type { RunOptions } from '../../src/run/options.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { VariantName } from '../../src/reference-server/variants.ts';

export interface ShortRun {
  readonly tiers?: readonly TierName[];
  readonly checks?: readonly CheckId[] | null;
  readonly faults?: readonly FaultName[];
  readonly variants?: readonly VariantName[];
  readonly windowMs?: number;
  readonly listeners?: RunOptions['listeners'];
  readonly parseMs?: number;
}

export function tempReportsDir(): string {
  return mkdtempSync(join(tmpdir(), 'tiergate-run-'));
}

export function shortRun(outDir: string, run: ShortRun = {}): RunOptions {
  const tiers = run.tiers ?? ['starter'];
  return {
    target: {
      kind: 'embedded',
      edges: 3,
      revocationDelayMs: 100,
      revocationJitterMs: 0,
      parseMs: run.parseMs ?? 200,
      faults: run.faults ?? [],
      variants: run.variants ?? [],
      tls: false,
      latencyMs: 0,
      jitterMs: 0,
    },
    windowMs: run.windowMs ?? 2000,
    tiers,
    checks: run.checks === undefined ? null : run.checks,
    scenarios: tiers.map((tier) => defineScenario({ tier, revocation: { trials: 2, intervalMs: 10, settleMs: 800 } })),
    outDir,
    timeoutMs: 5000,
    revocation: {},
    listeners: run.listeners ?? [],
    dryRun: false,
    engine: 'harness',
  };
}

/** A run of a deployment's config, as `tiergate run --config` makes it: its keys from `env`, its window and timeout. */
export function configRun(
  config: Config,
  env: Readonly<Record<string, string>>,
  run: {
    readonly scenarios: readonly Scenario[];
    readonly checks?: readonly CheckId[] | null;
    readonly revocation?: RunOptions['revocation'];
  },
): RunOptions {
  return {
    target: { kind: 'external', config, orgs: orgsFromConfig(config, env) },
    windowMs: config.window,
    tiers: run.scenarios.map((s) => s.tier),
    checks: run.checks ?? null,
    scenarios: run.scenarios,
    outDir: tempReportsDir(),
    timeoutMs: config.timeout,
    revocation: run.revocation ?? {},
    listeners: [],
    dryRun: false,
    engine: 'harness',
  };
}
