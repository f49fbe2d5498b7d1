/**
 * What the commands that open a target (`run`, `profile`) share: the target's options (flags, help,
 * parsing: one table) resolved into the target, window, timeout and tiers; and the reference
 * target's shape, which `serve` takes too. Every mistake is one line (UsageError), exit 2.
 */
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { DEFAULTS, defaultParseMs, PARSE_MS } from '../config/defaults.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { ExternalTarget, RunOptions } from '../run/options.ts';
import { RATE_LIMIT_DIALECT_NAMES, type RateLimitDialectName } from '../contract/rate-limit-names.ts';
import type { HeaderDeclaration } from '../config/schema.ts';
import { FAULT_NAMES, faultsOutsideDialect } from '../reference-server/faults.ts';
import { TARGET_DEFAULTS, TARGET_LIMITS } from '../reference-server/options.ts';
import { VARIANT_NAMES } from '../reference-server/variants.ts';
import { formatDurationMs } from '../util/duration.ts';
import { count, duration, list, MAX_EDGES, milliseconds, oneOf } from './flag-values.ts';
import { stringFlag, stringsFlag, TIERS, WINDOW, type FlagValues } from './flags.ts';
import { asGiven, option, parseOptions, type FlagsOf, type OptionTable, type ParsedOptions } from './option-table.ts';

/** A repeatable flag (`--target-fault a --target-fault b`, or `a,b`), each value one of `allowed`. */
function repeated<T extends string>(flag: string, values: readonly string[], allowed: readonly T[]): T[] {
  return list(flag, values.length > 0 ? values.join(',') : undefined, allowed) ?? [];
}

/** The reference target bounds a resume's parse time to a minute. */
const MAX_PARSE_MS = TARGET_LIMITS.parseMs;

/** The target a command opens (`run`, `profile`): a deployment's config, or the embedded reference target. */
export const TARGET_OPTIONS = {
  config: asGiven(
    stringFlag(
      "a deployment's tiergate.config.json (keys come from the environment): its window and timeout apply, --tiers defaults to its organizations' tiers, and the embedded target's flags do not apply",
    ),
  ),
  tiers: option(TIERS, (given, name) => list(name, given, TIER_NAMES)),
  window: option(WINDOW, (given, name) =>
    given === undefined ? undefined : duration(name, given, { wholeSeconds: true }),
  ),
  timeout: option(stringFlag('per-request timeout', formatDurationMs(DEFAULTS.timeoutMs)), (given, name) =>
    given === undefined ? undefined : duration(name, given),
  ),
  'target-fault': option(stringsFlag('inject a fault into the embedded target (serve --list-faults)'), (given, name) =>
    repeated(name, given, FAULT_NAMES),
  ),
  'target-variant': option(
    stringsFlag('show a conformant variant on the embedded target (serve --list-variants)'),
    (given, name) => repeated(name, given, VARIANT_NAMES),
  ),
} as const satisfies OptionTable;

/** The reference target's shape, whether embedded (`run`) or standalone (`serve`); undefined when absent. */
/** `--declare-headers`: the dialect a run without a config judges (a config declares its own, `headers`). */
export const DECLARE_HEADERS_OPTION = {
  'declare-headers': option(
    stringFlag(
      `judge this rate-limit header dialect, not §8's X-RateLimit-* (a departure the results and the report state): ${RATE_LIMIT_DIALECT_NAMES.join(', ')}; --headers only shapes what the embedded target sends`,
      "none: §8's X-RateLimit-*",
    ),
    (given, name) => oneOf(name, given, RATE_LIMIT_DIALECT_NAMES),
  ),
} as const;

/** The declaration `--declare-headers` gives; with --config, the user's mistake (the file declares it). */
export function declaredHeadersOf(
  declared: RateLimitDialectName | undefined,
  target: RunOptions['target'],
): HeaderDeclaration | undefined {
  if (declared === undefined) return undefined;
  if (target.kind === 'external')
    throw new UsageError(
      `--declare-headers ${declared}: a config declares its dialect itself; write "headers": "${declared}" in it and drop the flag`,
    );
  return { dialect: declared, policies: {} };
}

export const TARGET_SHAPE_OPTIONS = {
  edges: option(
    stringFlag('edge listeners of the reference target, sharing one state', String(TARGET_DEFAULTS.edges)),
    (given, name) => count(name, given, MAX_EDGES),
  ),
  'revocation-delay': option(
    stringFlag(
      'a revocation reaches each edge this long after it is made, e.g. 300ms',
      formatDurationMs(TARGET_DEFAULTS.revocationDelayMs),
    ),
    (given, name) => milliseconds(name, given, TARGET_LIMITS.delayMs, '300ms'),
  ),
  'parse-ms': option(
    stringFlag(
      'simulated parse time of one resume, ms',
      `${PARSE_MS.shortWindows} with windows under ${formatDurationMs(PARSE_MS.longFromWindowMs)}, else ${PARSE_MS.longWindows}`,
    ),
    (given, name) => milliseconds(name, given, MAX_PARSE_MS, '500 (ms)'),
  ),
  tls: asGiven({
    type: 'boolean',
    describe: 'every edge serves HTTPS, its certificate from a private CA made at start (the admin API stays HTTP)',
  }),
  latency: option(
    stringFlag(
      'a round trip added in front of each edge (a relay holds every chunk half of it each way), e.g. 80ms',
      formatDurationMs(TARGET_DEFAULTS.latencyMs),
    ),
    (given, name) => milliseconds(name, given, TARGET_LIMITS.latencyMs, '80ms'),
  ),
  jitter: option(
    stringFlag(
      'how much that round trip varies: each way is half the latency ± half this, e.g. 10ms; at most --latency',
      formatDurationMs(TARGET_DEFAULTS.jitterMs),
    ),
    (given, name) => milliseconds(name, given, TARGET_LIMITS.latencyMs, '10ms'),
  ),
  headers: option(
    stringFlag(
      `the rate-limit header dialect every response speaks: ${RATE_LIMIT_DIALECT_NAMES.join(', ')}`,
      TARGET_DEFAULTS.headers,
    ),
    (given, name) => oneOf(name, given, RATE_LIMIT_DIALECT_NAMES),
  ),
} as const satisfies OptionTable;

/**
 * The shape flags parsed, and what they say together: a jitter of at most the latency (each way is
 * half the latency ± half the jitter, and a delay cannot go below zero).
 */
export function parseTargetShape(args: TargetShapeArgs): ParsedOptions<typeof TARGET_SHAPE_OPTIONS> {
  const shape = parseOptions(TARGET_SHAPE_OPTIONS, args);
  const latencyMs = shape.latency ?? TARGET_DEFAULTS.latencyMs;
  if ((shape.jitter ?? 0) > latencyMs)
    throw new UsageError(
      `--jitter ${args.jitter}: at most the latency (${args.latency === undefined ? `${formatDurationMs(latencyMs)} without --latency` : `--latency ${args.latency}`}); raise --latency or lower --jitter`,
    );
  return shape;
}

export type TargetArgs = FlagValues<FlagsOf<typeof TARGET_OPTIONS>>;
export type TargetShapeArgs = FlagValues<FlagsOf<typeof TARGET_SHAPE_OPTIONS>>;

export interface ResolvedTarget {
  readonly target: RunOptions['target'];
  readonly windowMs: number;
  readonly timeoutMs: number;
  /** --tiers, else the config's tiers, else all. */
  readonly tiers: TierName[];
}

/**
 * A deployment's config (`--config FILE`) as a run's target: the file validated, its keys from the
 * environment, the CA it names read. The loaders (zod among them) load only when a config is named.
 */
export async function loadExternalTarget(file: string, io: Io): Promise<ExternalTarget> {
  const [{ loadConfig }, { loadTargetCa }, { externalTarget }] = await Promise.all([
    import('../config/load.ts'),
    import('../config/target-ca.ts'),
    import('../run/options.ts'),
  ]);
  const config = await loadConfig(file, io.cwd);
  return externalTarget(config, io.env, await loadTargetCa(config, file, io.cwd));
}

/**
 * The target flags resolved: --config (its keys from the environment, its window and timeout), or
 * the embedded target shaped by the shape flags (`run`; `profile` has none: the target's defaults).
 */
export async function resolveTarget(args: TargetArgs & TargetShapeArgs, io: Io): Promise<ResolvedTarget> {
  const given = parseOptions(TARGET_OPTIONS, args);
  if (given.config && given['target-fault'].length > 0)
    throw new UsageError('--target-fault applies to the embedded target only; drop it or drop --config');
  if (given.config && given['target-variant'].length > 0)
    throw new UsageError('--target-variant applies to the embedded target only; drop it or drop --config');
  if (given.config) {
    const target = await loadExternalTarget(given.config, io);
    const { config } = target;
    return {
      target,
      windowMs: config.window,
      timeoutMs: config.timeout,
      tiers: given.tiers ?? [...new Set(config.orgs.map((o) => o.tier))],
    };
  }
  const tiers: TierName[] = given.tiers ?? [...TIER_NAMES];
  const windowMs = given.window ?? DEFAULTS.windowMs;
  const shape = parseTargetShape(args);
  const headers = shape.headers ?? TARGET_DEFAULTS.headers;
  const [outside] = faultsOutsideDialect(given['target-fault'], headers);
  if (outside !== undefined) throw new UsageError(`--target-fault: ${outside}; name its dialect with --headers`);
  return {
    target: {
      kind: 'embedded',
      edges: shape.edges ?? TARGET_DEFAULTS.edges,
      revocationDelayMs: shape['revocation-delay'] ?? TARGET_DEFAULTS.revocationDelayMs,
      revocationJitterMs: TARGET_DEFAULTS.revocationJitterMs,
      parseMs: shape['parse-ms'] ?? defaultParseMs(windowMs),
      faults: given['target-fault'],
      variants: given['target-variant'],
      tls: shape.tls === true,
      latencyMs: shape.latency ?? TARGET_DEFAULTS.latencyMs,
      jitterMs: shape.jitter ?? TARGET_DEFAULTS.jitterMs,
      headers,
    },
    windowMs,
    timeoutMs: given.timeout ?? DEFAULTS.timeoutMs,
    tiers,
  };
}
