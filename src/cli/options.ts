/**
 * What the commands that open a target (`run`, `profile`) share: the flags naming the target, their
 * defaults, and their validation into the target, window, timeout and tiers. Every mistake is one
 * line (UsageError), exit 2.
 */
import type { Argv } from 'yargs';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { loadConfig } from '../config/load.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { orgsFromConfig } from '../provision/config-orgs.ts';
import type { RunOptions } from '../run/options.ts';
import { FAULT_NAMES } from '../reference-server/faults.ts';
import { TARGET_DEFAULTS } from '../reference-server/options.ts';
import { VARIANT_NAMES } from '../reference-server/variants.ts';
import { DEFAULTS, defaultParseMs } from '../config/defaults.ts';
import { formatDurationMs, parseDurationMs } from '../util/duration.ts';

/** Defaults of the target flags as the help shows them, written from the constants that own them. */
export const FLAG_DEFAULTS = {
  window: `${DEFAULTS.windowMs / 1000}s`,
  timeout: formatDurationMs(DEFAULTS.timeoutMs),
  edges: TARGET_DEFAULTS.edges,
  revocationDelay: formatDurationMs(TARGET_DEFAULTS.revocationDelayMs),
} as const;

/** Longer than this is surely a typo, and past 2^31 ms Node's timers fire at once. */
const MAX_DURATION_MS = 600_000;

export function duration(flag: string, value: string, { wholeSeconds = false, zeroAllowed = false } = {}): number {
  const ms = parseDurationMs(value);
  if (ms === null || (ms === 0 && !zeroAllowed)) throw new UsageError(`--${flag} ${value}: expected a duration like 300ms, 3s or 1m`);
  if (ms > MAX_DURATION_MS) throw new UsageError(`--${flag} ${value}: at most 10m`);
  if (wholeSeconds && ms % 1000 !== 0) throw new UsageError(`--${flag} ${value}: windows are whole seconds, like 3s or 60s`);
  return ms;
}

export function list<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] | null {
  if (value === undefined) return null;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i));
  if (items.length === 0 || unknown.length > 0) {
    throw new UsageError(`--${flag} ${value}: unknown ${unknown.join(', ') || '(empty)'}; choose from ${allowed.join(', ')}`);
  }
  return items as T[];
}

/** A repeatable flag (`--target-fault a --target-fault b`, or `a,b`), each value one of `allowed`. */
function repeated<T extends string>(flag: string, values: readonly string[], allowed: readonly T[]): T[] {
  return list(flag, values.length > 0 ? values.join(',') : undefined, allowed) ?? [];
}

export function positiveInt(flag: string, value: number | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new UsageError(`--${flag} ${value}: expected a whole number from 1 to ${max}`);
  return value;
}

/** The flags naming the target; `run` adds the embedded target's shape (edges, delays). */
export interface TargetArgs {
  readonly config?: string;
  readonly tiers?: string;
  readonly window: string;
  readonly timeout: string;
  readonly 'target-fault': readonly string[];
  readonly 'target-variant': readonly string[];
  readonly edges?: number;
  readonly 'revocation-delay'?: string;
  readonly 'parse-ms'?: number;
}

/** Adds the target flags every target-opening command takes. */
export function withTargetOptions(argv: Argv): Argv {
  return argv
    .option('config', { type: 'string', describe: 'tiergate.config.json of a real deployment (keys come from the environment)' })
    .option('tiers', { type: 'string', describe: `comma-separated tiers (default: all): ${TIER_NAMES.join(', ')}` })
    .option('window', { type: 'string', default: FLAG_DEFAULTS.window, describe: "quota window of the embedded target (the spec's is 60s)" })
    .option('timeout', { type: 'string', default: FLAG_DEFAULTS.timeout, describe: 'per-request timeout' })
    .option('target-fault', { type: 'string', array: true, default: [], describe: 'inject a fault into the embedded target (serve --list-faults)' })
    .option('target-variant', { type: 'string', array: true, default: [], describe: 'show a conformant variant on the embedded target (serve --list-variants)' });
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
  if (args.config && faults.length > 0) throw new UsageError('--target-fault applies to the embedded target only; drop it or drop --config');
  const variants = repeated('target-variant', args['target-variant'], VARIANT_NAMES);
  if (args.config && variants.length > 0) throw new UsageError('--target-variant applies to the embedded target only; drop it or drop --config');
  const config = args.config ? await loadConfig(args.config, io.cwd) : null;
  const configTiers = config ? [...new Set(config.orgs.map((o) => o.tier))] : null;
  const tiers: TierName[] = list('tiers', args.tiers, TIER_NAMES) ?? configTiers ?? [...TIER_NAMES];
  if (config) return { target: { kind: 'external', config, orgs: orgsFromConfig(config, io.env) }, windowMs: config.window, timeoutMs: config.timeout, tiers };
  const windowMs = duration('window', args.window, { wholeSeconds: true });
  return {
    target: {
      kind: 'embedded',
      edges: positiveInt('edges', args.edges ?? FLAG_DEFAULTS.edges, 32)!,
      revocationDelayMs: duration('revocation-delay', args['revocation-delay'] ?? FLAG_DEFAULTS.revocationDelay, { zeroAllowed: true }),
      revocationJitterMs: TARGET_DEFAULTS.revocationJitterMs,
      parseMs: positiveInt('parse-ms', args['parse-ms'], 10_000) ?? defaultParseMs(windowMs),
      faults,
      variants,
    },
    windowMs,
    timeoutMs: duration('timeout', args.timeout),
    tiers,
  };
}
