/**
 * `tiergate serve`: run the reference target until Ctrl-C. Flags map to TargetOptions; an absent
 * flag stays undefined, so the target's own defaults (TARGET_DEFAULTS) apply, except the parse time,
 * which follows the window as it does for `run`. The server is imported when the command runs.
 */
import { TiergateError, UsageError, EXIT } from '../util/errors.ts';
import { defaultParseMs } from '../config/defaults.ts';
import { formatFaultList, isFaultName, type FaultName } from '../reference-server/faults.ts';
import {
  resolveTargetOptions,
  TARGET_DEFAULTS,
  TARGET_LIMITS,
  type TargetOptions,
} from '../reference-server/options.ts';
import { formatVariantList, isVariantName, type VariantName } from '../reference-server/variants.ts';
import { formatDurationMs } from '../util/duration.ts';
import { isLoopbackHost } from '../util/loopback.ts';
import type { CliCommand } from './command.ts';
import { bytes, formatBytes, integer, milliseconds, windowLength } from './flag-values.ts';
import { stringFlag, stringsFlag, WINDOW, type FlagValues } from './flags.ts';
import { asGiven, flagsOf, option, parseOptions, type FlagsOf, type OptionTable } from './option-table.ts';
import { TARGET_SHAPE_OPTIONS } from './options.ts';

/** A repeatable, comma-separable flag of catalogue names; an unknown one is a UsageError. */
function names<T extends string>(
  flag: 'fault' | 'variant',
  values: readonly string[],
  known: (name: string) => name is T,
): T[] {
  const given = values.flatMap((v) => v.split(',')).map((v) => v.trim());
  const unknown = given.filter((n) => !known(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `--${flag} ${unknown.join(', ') || '(empty)'}: unknown ${flag}; tiergate serve --list-${flag}s lists them`,
    );
  }
  return given as T[];
}

/** The target listens on loopback only. */
function loopbackHost(given: string | undefined, name: string): string | undefined {
  if (given !== undefined && !isLoopbackHost(given))
    throw new UsageError(
      `--${name} ${given || '(empty)'}: the target listens on loopback only; use 127.0.0.1, ::1 or localhost`,
    );
  return given;
}

/** `serve`'s options: the reference target's, its shape shared with `run` (TARGET_SHAPE_OPTIONS). */
const SERVE_OPTIONS = {
  host: option(stringFlag('loopback address to listen on', TARGET_DEFAULTS.host), loopbackHost),
  port: option(
    stringFlag('edge i listens on port+i; 0 picks free ports', String(TARGET_DEFAULTS.port)),
    (given, name) => integer(name, given, 0, 65535),
  ),
  'admin-port': option(
    stringFlag('admin API port; 0 picks a free one', String(TARGET_DEFAULTS.adminPort)),
    (given, name) => integer(name, given, 0, 65535),
  ),
  window: option(WINDOW, (given) => windowLength(given)),
  ...TARGET_SHAPE_OPTIONS,
  'revocation-jitter': option(
    stringFlag('extra random delay per edge, e.g. 100ms', formatDurationMs(TARGET_DEFAULTS.revocationJitterMs)),
    (given, name) => milliseconds(name, given, TARGET_LIMITS.delayMs, '100ms'),
  ),
  'max-upload': option(
    stringFlag('largest request body, e.g. 5MiB (K/M are 1024-based)', formatBytes(TARGET_DEFAULTS.maxUploadBytes)),
    (given, name) => bytes(name, given),
  ),
  fault: option(stringsFlag('inject a named fault (repeatable); see --list-faults'), (given) =>
    names<FaultName>('fault', given, isFaultName),
  ),
  'list-faults': asGiven({ type: 'boolean', describe: 'list the faults and exit' }),
  variant: option(stringsFlag('show a conformant variant (repeatable); see --list-variants'), (given) =>
    names<VariantName>('variant', given, isVariantName),
  ),
  'list-variants': asGiven({ type: 'boolean', describe: 'list the conformant variants and exit' }),
} as const satisfies OptionTable;

type ServeArgs = FlagValues<FlagsOf<typeof SERVE_OPTIONS>>;

/** Flags to TargetOptions; the first invalid flag is a UsageError naming it and the fix. */
export function serveOptions(args: ServeArgs): TargetOptions {
  const given = parseOptions(SERVE_OPTIONS, args);
  const options: TargetOptions = {
    host: given.host,
    port: given.port,
    adminPort: given['admin-port'],
    edges: given.edges,
    windowMs: given.window,
    revocationDelayMs: given['revocation-delay'],
    revocationJitterMs: given['revocation-jitter'],
    parseMs: given['parse-ms'] ?? defaultParseMs(given.window ?? TARGET_DEFAULTS.windowMs),
    maxUploadBytes: given['max-upload'],
    faults: given.fault,
    variants: given.variant,
  };
  try {
    resolveTargetOptions(options);
  } catch (error) {
    // Cross-flag problems (an admin port among the edge ports): still the user's to fix.
    if (error instanceof TiergateError) throw new UsageError(error.message);
    throw error;
  }
  return options;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export const serveCommand: CliCommand<ServeArgs> = {
  name: 'serve',
  describe: 'Run the reference target (edges, admin API, faults, variants) until Ctrl-C',
  builder: (argv) => argv.options(flagsOf(SERVE_OPTIONS)),
  run: async (args, io) => {
    if (args['list-faults'] === true) {
      io.stdout.write(formatFaultList());
      return EXIT.pass;
    }
    if (args['list-variants'] === true) {
      io.stdout.write(formatVariantList());
      return EXIT.pass;
    }
    const options = serveOptions(args);
    const { startTarget } = await import('../reference-server/server.ts');
    const target = await startTarget(options);
    const o = target.options;
    const listed = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : 'none');
    const lines = [
      `tiergate reference target: ${o.edges} edge${o.edges === 1 ? '' : 's'}, window ${formatDurationMs(o.windowMs)}, revocation delay ${formatDurationMs(o.revocationDelayMs)}, faults: ${listed(o.faults)}, variants: ${listed(o.variants)}`,
      ...target.edges.map((url, i) => `  edge-${i}  ${url}`),
      `  admin   ${target.adminUrl}`,
      'Create an org and a key:',
      `  ORG=$(curl -s -X POST ${target.adminUrl}/admin/orgs -d '{"tier":"starter","name":"demo"}' | sed -E 's/.*"id":"([^"]+)".*/\\1/') && curl -s -X POST ${target.adminUrl}/admin/orgs/$ORG/keys -d '{"scopes":["jobs.read"],"env":"test"}'`,
      'Ctrl-C to stop.',
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    await untilAborted(io.signal);
    await target.close();
    io.stdout.write('tiergate: target stopped\n');
    return EXIT.pass;
  },
};
