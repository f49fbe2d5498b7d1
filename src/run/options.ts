/** The resolved options of one run: typed, validated, frozen. The CLI and tests build these. */
import type { AssumptionId, OrgLimits, TierName } from '../contract/types.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { Config, HeaderDeclaration } from '../config/schema.ts';
import type { TargetCa } from '../config/target-ca.ts';
import { orgsFromConfig } from '../provision/config-orgs.ts';
import type { RevocationShape, Scenario } from '../scenario/define.ts';
import type { RunListener } from '../results/events.ts';
import type { OrgHandle } from '../contract/handles.ts';
import type { RateLimitDialectName } from '../contract/rate-limit-dialects.ts';
import type { FaultName } from '../reference-server/faults.ts';
import type { VariantName } from '../reference-server/variants.ts';
import type { KeyObject } from 'node:crypto';

export interface EmbeddedTarget {
  readonly kind: 'embedded';
  readonly edges: number;
  readonly revocationDelayMs: number;
  readonly revocationJitterMs: number;
  readonly parseMs: number;
  readonly faults: readonly FaultName[];
  /** Conformant variants of the embedded target (src/reference-server/variants.ts). */
  readonly variants: readonly VariantName[];
  /** Its edges serve HTTPS, from a private CA the target session hands on (TargetSession.ca). */
  readonly tls: boolean;
  /** The round trip a relay in front of each edge adds, and how much it varies (src/reference-server/distance.ts). */
  readonly latencyMs: number;
  readonly jitterMs: number;
  /** The rate-limit header dialect its responses speak (src/contract/rate-limit-dialects.ts). */
  readonly headers: RateLimitDialectName;
  /**
   * Per tier, the figures the run's organizations are made with and held to exactly, as a config's
   * `orgs[].limits` declares a contract's own; absent: the target's defaults, judged by their tier.
   */
  readonly orgLimits?: Readonly<Partial<Record<TierName, OrgLimits>>>;
}

export interface ExternalTarget {
  readonly kind: 'external';
  readonly config: Config;
  /** The config's organizations, their keys resolved from the environment at the boundary. */
  readonly orgs: readonly OrgHandle[];
  /** The CA its `target.ca` names, read at the boundary; null where it names none. */
  readonly ca: TargetCa | null;
}

/** A deployment's config as a run's target: its keys resolved from `env`, the CA it names as loaded. */
export function externalTarget(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
  ca: TargetCa | null,
): ExternalTarget {
  return { kind: 'external', config, orgs: orgsFromConfig(config, env), ca };
}

export interface RunOptions {
  readonly target: EmbeddedTarget | ExternalTarget;
  readonly windowMs: number;
  readonly tiers: readonly TierName[];
  /** null: every check. */
  readonly checks: readonly CheckId[] | null;
  readonly scenarios: readonly Scenario[];
  /** Reports root; the run writes `<outDir>/<runId>/` and points `<outDir>/latest` at it. */
  readonly outDir: string;
  readonly timeoutMs: number;
  /** Overrides of the scenarios' revocation shape. */
  readonly revocation: Partial<RevocationShape>;
  readonly runId?: string;
  readonly listeners: readonly RunListener[];
  /** Print the plan and send nothing. */
  readonly dryRun: boolean;
  /** Who drives the traffic: the harness (every check), or k6 (the scenarios' sustained load). */
  readonly engine: 'harness' | 'k6';
  /** Keep data reads' bodies as they came (`--keep-bodies`); by default only their shape is kept. */
  readonly keepBodies?: boolean;
  /** How the run folder is sealed (manifest.json, and manifest.sig with a signing key): the command line and the key. */
  readonly seal?: RunSeal;
  /**
   * The rate-limit header dialect declared for a target without a config (`run --declare-headers`):
   * the embedded target's `headers` shapes what it sends, this says what the run judges. A config
   * declares its own (`headers`), and this is not read for it.
   */
  readonly declaredHeaders?: HeaderDeclaration;
}

/** What the CLI knows of a run for its manifest: the arguments, and the signing key (TIERGATE_SIGNING_KEY). */
export interface RunSeal {
  readonly command: readonly string[] | null;
  readonly signingKey: KeyObject | null;
}

/** What the deployment's config declares where the spec is silent (none for the embedded target). */
export function declaredAssumptions(options: RunOptions): Readonly<Partial<Record<AssumptionId, boolean>>> {
  return options.target.kind === 'external' ? (options.target.config.assumptions ?? {}) : {};
}

/**
 * The rate-limit header dialect the run judges, where one is declared: the config's `headers` for a
 * deployment, `declaredHeaders` for the embedded target; null: §8's X-RateLimit-* (the spec's).
 */
export function headerDeclaration(options: Pick<RunOptions, 'target' | 'declaredHeaders'>): HeaderDeclaration | null {
  if (options.target.kind === 'external') return options.target.config.headers ?? null;
  return options.declaredHeaders ?? null;
}

/** Revocation trials, interval, settle, trials at once and the confidence target: the flags first, then the config file's (the scenario's come after both). */
export function revocationOverrides(options: RunOptions): Partial<RevocationShape> {
  const fromConfig = options.target.kind === 'external' ? options.target.config.revocation : undefined;
  return {
    trials: options.revocation.trials ?? fromConfig?.trials,
    intervalMs: options.revocation.intervalMs ?? fromConfig?.interval,
    settleMs: options.revocation.settleMs ?? fromConfig?.settle,
    parallel: options.revocation.parallel ?? fromConfig?.parallel,
    confidence: options.revocation.confidence ?? fromConfig?.confidence,
  };
}
