/**
 * What the commands that open a target (`run`, `profile`) share: validating the target flags into
 * the target, window, timeout and tiers; and the reference target's delays, which `serve` takes too.
 * Every mistake is one line (UsageError), exit 2.
 */
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { DEFAULTS, defaultParseMs } from '../config/defaults.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { RunOptions } from '../run/options.ts';
import { FAULT_NAMES } from '../reference-server/faults.ts';
import { TARGET_DEFAULTS, TARGET_LIMITS } from '../reference-server/options.ts';
import { VARIANT_NAMES } from '../reference-server/variants.ts';
import { count, duration, list, MAX_EDGES, milliseconds, MAX_DURATION_MS } from './flag-values.ts';
import type { FlagValues, TARGET_FLAGS, TARGET_SHAPE_FLAGS } from './flags.ts';

/** A repeatable flag (`--target-fault a --target-fault b`, or `a,b`), each value one of `allowed`. */
function repeated<T extends string>(flag: string, values: readonly string[], allowed: readonly T[]): T[] {
  return list(flag, values.length > 0 ? values.join(',') : undefined, allowed) ?? [];
}

/** The target flags; `run` adds the embedded target's shape (edges, delays). */
type TargetArgs = FlagValues<typeof TARGET_FLAGS> & FlagValues<typeof TARGET_SHAPE_FLAGS>;

/** The reference target bounds a resume's parse time to a minute. */
const MAX_PARSE_MS = TARGET_LIMITS.parseMs;

/** --revocation-delay and --parse-ms of the reference target, for `run` and `serve` alike; undefined when absent. */
export function targetDelays(args: FlagValues<typeof TARGET_SHAPE_FLAGS>) {
  return {
    revocationDelayMs: milliseconds('revocation-delay', args['revocation-delay'], MAX_DURATION_MS, '300ms'),
    parseMs: milliseconds('parse-ms', args['parse-ms'], MAX_PARSE_MS, '500 (ms)'),
  };
}

export interface ResolvedTarget {
  readonly target: RunOptions['target'];
  readonly windowMs: number;
  readonly timeoutMs: number;
  /** --tiers, else the config's tiers, else all. */
  readonly tiers: TierName[];
}

/** Validates the target flags: --config (its keys from the environment) or the embedded target. */
export async function resolveTarget(args: TargetArgs, io: Io): Promise<ResolvedTarget> {
  const faults = repeated('target-fault', args['target-fault'], FAULT_NAMES);
  if (args.config && faults.length > 0)
    throw new UsageError('--target-fault applies to the embedded target only; drop it or drop --config');
  const variants = repeated('target-variant', args['target-variant'], VARIANT_NAMES);
  if (args.config && variants.length > 0)
    throw new UsageError('--target-variant applies to the embedded target only; drop it or drop --config');
  // The config's loader and schema (zod) load only when a config is named.
  const config = args.config ? await (await import('../config/load.ts')).loadConfig(args.config, io.cwd) : null;
  const configTiers = config ? [...new Set(config.orgs.map((o) => o.tier))] : null;
  const tiers: TierName[] = list('tiers', args.tiers, TIER_NAMES) ?? configTiers ?? [...TIER_NAMES];
  if (config) {
    const { orgsFromConfig } = await import('../provision/config-orgs.ts');
    return {
      target: { kind: 'external', config, orgs: orgsFromConfig(config, io.env) },
      windowMs: config.window,
      timeoutMs: config.timeout,
      tiers,
    };
  }
  const windowMs =
    args.window === undefined ? DEFAULTS.windowMs : duration('window', args.window, { wholeSeconds: true });
  const edges = count('edges', args.edges, MAX_EDGES) ?? TARGET_DEFAULTS.edges;
  const delays = targetDelays(args);
  return {
    target: {
      kind: 'embedded',
      edges,
      revocationDelayMs: delays.revocationDelayMs ?? TARGET_DEFAULTS.revocationDelayMs,
      revocationJitterMs: TARGET_DEFAULTS.revocationJitterMs,
      parseMs: delays.parseMs ?? defaultParseMs(windowMs),
      faults,
      variants,
    },
    windowMs,
    timeoutMs: args.timeout === undefined ? DEFAULTS.timeoutMs : duration('timeout', args.timeout),
    tiers,
  };
}
