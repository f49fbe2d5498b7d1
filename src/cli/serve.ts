/**
 * `tiergate serve`: run the reference target until Ctrl-C. Flags map to TargetOptions; an absent
 * flag stays undefined, so the target's own defaults (TARGET_DEFAULTS) apply, except the parse time,
 * which follows the window as it does for `run`.
 */
import type { Argv } from 'yargs';
import { TiergateError, UsageError, EXIT } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { formatFaultList, isFaultName, type FaultName } from '../reference-server/faults.ts';
import { resolveTargetOptions, TARGET_DEFAULTS, type TargetOptions } from '../reference-server/options.ts';
import { defaultParseMs, PARSE_MS } from '../config/defaults.ts';
import { startTarget } from '../reference-server/server.ts';
import { formatVariantList, isVariantName, type VariantName } from '../reference-server/variants.ts';
import { formatDurationMs, parseDurationMs } from '../util/duration.ts';
import { isLoopbackHost } from '../util/loopback.ts';
import type { CliCommand } from './command.ts';

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2 };

/** A flag's value as one string (the last one when repeated), or undefined when absent. */
function single(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return String(last);
}

function integer(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} ${raw || '(empty)'}: expected an integer from ${min} to ${max}`);
  }
  return value;
}

function duration(flag: string, raw: string | undefined, max: number, example: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw);
  if (ms === null || !Number.isInteger(ms) || ms > max) {
    throw new UsageError(`--${flag} ${raw || '(empty)'}: expected a duration like ${example}, at most ${formatDurationMs(max)}`);
  }
  return ms;
}

function windowMs(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw);
  if (ms === null) throw new UsageError(`--window ${raw || '(empty)'}: expected a duration like 3s`);
  if (ms < 1000 || ms % 1000 !== 0 || ms > 24 * 3600_000) {
    throw new UsageError(`--window ${raw}: expected whole seconds from 1s to 24h, like 3s or 1m`);
  }
  return ms;
}

function bytes(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw);
  const unit = SIZE_UNITS[match?.[2]?.toLowerCase() ?? 'x'];
  const value = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > 1024 ** 3) {
    throw new UsageError(`--max-upload ${raw || '(empty)'}: expected a size like 5MiB, 512KiB or 1048576 (bytes), at most 1024MiB`);
  }
  return value;
}

/** A repeatable, comma-separable flag of catalogue names; an unknown one is a UsageError. */
function names<T extends string>(flag: 'fault' | 'variant', value: unknown, known: (name: string) => name is T): T[] | undefined {
  if (value === undefined) return undefined;
  const given = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim());
  const unknown = given.filter((n) => !known(n));
  if (unknown.length > 0) {
    throw new UsageError(`--${flag} ${unknown.join(', ') || '(empty)'}: unknown ${flag}; tiergate serve --list-${flag}s lists them`);
  }
  return given as T[];
}

/** Flags to TargetOptions; the first invalid flag is a UsageError naming it and the fix. */
export function serveOptions(args: Record<string, unknown>): TargetOptions {
  const host = single(args['host']);
  if (host !== undefined && !isLoopbackHost(host)) {
    throw new UsageError(`--host ${host || '(empty)'}: the target listens on loopback only; use 127.0.0.1, ::1 or localhost`);
  }
  const window = windowMs(single(args['window']));
  const options: TargetOptions = {
    host,
    port: integer('port', single(args['port']), 0, 65535),
    adminPort: integer('admin-port', single(args['admin-port']), 0, 65535),
    edges: integer('edges', single(args['edges']), 1, 32),
    windowMs: window,
    revocationDelayMs: duration('revocation-delay', single(args['revocation-delay']), 600_000, '300ms'),
    revocationJitterMs: duration('revocation-jitter', single(args['revocation-jitter']), 600_000, '100ms'),
    parseMs: duration('parse-ms', single(args['parse-ms']), 60_000, '500 (ms)') ?? defaultParseMs(window ?? TARGET_DEFAULTS.windowMs),
    maxUploadBytes: bytes(single(args['max-upload'])),
    faults: names<FaultName>('fault', args['fault'], isFaultName),
    variants: names<VariantName>('variant', args['variant'], isVariantName),
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

const FLAGS = {
  host: { type: 'string', describe: `Loopback address to listen on [default: ${TARGET_DEFAULTS.host}]` },
  port: { type: 'string', describe: `Edge i listens on port+i; 0 picks free ports [default: ${TARGET_DEFAULTS.port}]` },
  'admin-port': { type: 'string', describe: `Admin API port; 0 picks a free one [default: ${TARGET_DEFAULTS.adminPort}]` },
  edges: { type: 'string', describe: `Number of edge listeners sharing one state [default: ${TARGET_DEFAULTS.edges}]` },
  window: { type: 'string', describe: `Quota window, whole seconds, e.g. 3s [default: ${TARGET_DEFAULTS.windowMs / 1000}s]` },
  'revocation-delay': { type: 'string', describe: `A revocation reaches each edge after this, e.g. 300ms [default: ${formatDurationMs(TARGET_DEFAULTS.revocationDelayMs)}]` },
  'revocation-jitter': { type: 'string', describe: `Extra random delay per edge, e.g. 100ms [default: ${formatDurationMs(TARGET_DEFAULTS.revocationJitterMs)}]` },
  'parse-ms': {
    type: 'string',
    describe: `Simulated parse time of a single resume, ms [default: ${PARSE_MS.shortWindows}; ${PARSE_MS.longWindows} with windows of ${formatDurationMs(PARSE_MS.longFromWindowMs)} or more]`,
  },
  'max-upload': { type: 'string', describe: `Largest request body, e.g. 5MiB (K/M are 1024-based) [default: ${TARGET_DEFAULTS.maxUploadBytes / 1024 ** 2}MiB]` },
  fault: { type: 'string', array: true, describe: 'Inject a named fault (repeatable); see --list-faults' },
  'list-faults': { type: 'boolean', describe: 'List the faults and exit' },
  variant: { type: 'string', array: true, describe: 'Show a conformant variant (repeatable); see --list-variants' },
  'list-variants': { type: 'boolean', describe: 'List the conformant variants and exit' },
} as const;

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const KNOWN = new Set(['_', '$0', 'help', ...Object.keys(FLAGS), ...Object.keys(FLAGS).map(camel)]);

/** yargs' strict mode reports unknown flags but still runs the handler: never start a server then. */
function refuseUnknownFlags(args: Record<string, unknown>): void {
  const unknown = Object.keys(args).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new UsageError(`--${unknown[0]}: unknown flag; tiergate serve --help lists them`);
}

export const serveCommand: CliCommand = {
  name: 'serve',
  describe: 'Run the reference target (edges, admin API, faults, variants) until Ctrl-C',
  builder: (y: Argv) => y.options(FLAGS),
  run: async (args: Record<string, unknown>, io: Io): Promise<number> => {
    refuseUnknownFlags(args);
    if (args['list-faults'] === true) {
      io.stdout.write(formatFaultList());
      return EXIT.pass;
    }
    if (args['list-variants'] === true) {
      io.stdout.write(formatVariantList());
      return EXIT.pass;
    }
    const target = await startTarget(serveOptions(args));
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
