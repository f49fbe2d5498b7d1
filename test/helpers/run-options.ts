/** RunOptions for a short run, against the embedded target or a deployment's config, writing into a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckId } from '../../src/catalogue/types.ts';
import type { Config, HeaderDeclaration } from '../../src/config/schema.ts';
import type { TierName } from '../../src/contract/types.ts';
import { DEFAULT_RATE_LIMIT_DIALECT, type RateLimitDialectName } from '../../src/contract/rate-limit-dialects.ts';
import { defineScenario, type BulkPolicy, type Scenario } from '../../src/scenario/define.ts';
import { externalTarget, type EmbeddedTarget, type RunOptions } from '../../src/run/options.ts';
import type { TargetCa } from '../../src/config/target-ca.ts';
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
  /** How the sequential read series is shaped (scenario quota.bulk). */
  readonly bulk?: BulkPolicy;
  /** The embedded target at a distance: HTTPS from a private CA, and the round trip its relays add. */
  readonly distance?: { readonly tls: boolean; readonly latencyMs: number; readonly jitterMs: number };
  /** The rate-limit header dialect the embedded target speaks; x-ratelimit unless given. */
  readonly headers?: RateLimitDialectName;
  /** The dialect the run judges (`run --declare-headers`), by name or with its policies; §8's unless given. */
  readonly declaredHeaders?: RateLimitDialectName | HeaderDeclaration;
  /** Per tier, the figures the organizations are made with and held to (EmbeddedTarget.orgLimits). */
  readonly orgLimits?: EmbeddedTarget['orgLimits'];
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
      tls: run.distance?.tls ?? false,
      latencyMs: run.distance?.latencyMs ?? 0,
      jitterMs: run.distance?.jitterMs ?? 0,
      headers: run.headers ?? DEFAULT_RATE_LIMIT_DIALECT,
      ...(run.orgLimits ? { orgLimits: run.orgLimits } : {}),
    },
    windowMs: run.windowMs ?? 2000,
    tiers,
    checks: run.checks === undefined ? null : run.checks,
    scenarios: tiers.map((tier) =>
      defineScenario({
        tier,
        revocation: { trials: 2, intervalMs: 10, settleMs: 800 },
        ...(run.bulk ? { quota: { variants: ['sequential', 'burst'], bulk: run.bulk } } : {}),
      }),
    ),
    outDir,
    timeoutMs: 5000,
    revocation: {},
    listeners: run.listeners ?? [],
    dryRun: false,
    engine: 'harness',
    ...(run.declaredHeaders === undefined ? {} : { declaredHeaders: declarationOf(run.declaredHeaders) }),
  };
}

const declarationOf = (declared: RateLimitDialectName | HeaderDeclaration): HeaderDeclaration =>
  typeof declared === 'string' ? { dialect: declared, policies: {} } : declared;

/** A run of a deployment's config, as `tiergate run --config` makes it: its keys from `env`, its window and timeout. */
export function configRun(
  config: Config,
  env: Readonly<Record<string, string>>,
  run: {
    readonly scenarios: readonly Scenario[];
    readonly checks?: readonly CheckId[] | null;
    readonly revocation?: RunOptions['revocation'];
    /** The CA its `target.ca` names, as loaded. */
    readonly ca?: TargetCa;
  },
): RunOptions {
  return {
    target: externalTarget(config, env, run.ca ?? null),
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
