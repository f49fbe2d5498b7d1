/**
 * `tiergate serve`: run the reference target until Ctrl-C. Flags map to TargetOptions; an absent
 * flag stays undefined, so the target's own defaults (TARGET_DEFAULTS) apply, except the parse time,
 * which follows the window as it does for `run`. The server is imported when the command runs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TiergateError, UsageError, EXIT } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { ensureOutDir } from '../util/out-dir.ts';
import { CERTIFICATE_KINDS } from '../reference-server/certificates.ts';
import type { RunningTarget } from '../reference-server/server.ts';
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
import { bytes, formatBytes, integer, milliseconds, oneOf, windowLength } from './flag-values.ts';
import { stringFlag, stringsFlag, WINDOW, type FlagValues } from './flags.ts';
import { asGiven, flagsOf, option, parseOptions, type FlagsOf, type OptionTable } from './option-table.ts';
import { parseTargetShape, TARGET_SHAPE_OPTIONS } from './options.ts';

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

/** The file --tls writes the CA's certificate to, in --tls-dir or a new temp folder. */
const CA_FILE = 'tiergate-ca.pem';

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
  'tls-certificate': option(
    stringFlag(
      `the certificate the HTTPS edges present (with --tls): ${CERTIFICATE_KINDS.join(', ')}; a bad one shows how a client refuses it`,
      TARGET_DEFAULTS.tlsCertificate,
    ),
    (given, name) => oneOf(name, given, CERTIFICATE_KINDS),
  ),
  'tls-dir': asGiven(stringFlag(`the folder --tls writes the CA's certificate into (${CA_FILE})`, 'a new temp folder')),
} as const satisfies OptionTable;

type ServeArgs = FlagValues<FlagsOf<typeof SERVE_OPTIONS>>;

/** What `serve` starts: the target's options, and the folder --tls writes the CA's certificate into (undefined: a new temp one). */
export interface ServeOptions {
  readonly target: TargetOptions;
  readonly tlsDir: string | undefined;
}

/** Flags to the target's options; the first invalid flag is a UsageError naming it and the fix. */
export function serveOptions(args: ServeArgs): ServeOptions {
  const given = parseOptions(SERVE_OPTIONS, args);
  const shape = parseTargetShape(args);
  const tls = shape.tls === true;
  if (!tls && given['tls-certificate'] !== undefined)
    throw new UsageError(
      `--tls-certificate ${given['tls-certificate']}: the edges present a certificate with --tls only; add --tls`,
    );
  if (!tls && given['tls-dir'] !== undefined)
    throw new UsageError(`--tls-dir ${given['tls-dir']}: the CA's certificate is written with --tls only; add --tls`);
  const target: TargetOptions = {
    host: given.host,
    port: given.port,
    adminPort: given['admin-port'],
    edges: shape.edges,
    windowMs: given.window,
    revocationDelayMs: shape['revocation-delay'],
    revocationJitterMs: given['revocation-jitter'],
    parseMs: shape['parse-ms'] ?? defaultParseMs(given.window ?? TARGET_DEFAULTS.windowMs),
    maxUploadBytes: given['max-upload'],
    faults: given.fault,
    variants: given.variant,
    tls,
    tlsCertificate: given['tls-certificate'],
    latencyMs: shape.latency,
    jitterMs: shape.jitter,
    headers: shape.headers,
  };
  try {
    resolveTargetOptions(target);
  } catch (error) {
    // Cross-flag problems (an admin port among the edge ports): still the user's to fix.
    if (error instanceof TiergateError) throw new UsageError(error.message);
    throw error;
  }
  return { target, tlsDir: given['tls-dir'] };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Where --tls writes the CA's certificate: into --tls-dir, else into a new temp folder, removed on stop. */
interface CaFile {
  readonly path: string;
  /** The temp folder made for it, removed when the target stops; null for --tls-dir. */
  readonly madeFolder: string | null;
}

async function caFileIn(tlsDir: string | undefined, io: Io): Promise<CaFile> {
  if (tlsDir === undefined) {
    const folder = await mkdtemp(join(tmpdir(), 'tiergate-tls-'));
    return { path: join(folder, CA_FILE), madeFolder: folder };
  }
  return { path: join(await ensureOutDir(resolve(io.cwd, tlsDir), `--tls-dir ${tlsDir}`), CA_FILE), madeFolder: null };
}

async function writeCa(file: CaFile, pem: string): Promise<void> {
  try {
    await writeFile(file.path, pem);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      `cannot write the CA's certificate to ${file.path} (${code}); name a folder to write it in with --tls-dir`,
    );
  }
}

/** The target as it runs: its shape, its URLs, and how to make a first key. */
function targetLines(target: RunningTarget): string[] {
  const o = target.options;
  const listed = (items: readonly string[]) => (items.length > 0 ? items.join(', ') : 'none');
  const distance =
    o.latencyMs === 0
      ? []
      : [`  at a distance: each edge's round trip ${formatDurationMs(o.latencyMs)} ± ${formatDurationMs(o.jitterMs)}`];
  const tls = o.tls ? [`  HTTPS, certificate ${o.tlsCertificate}; the admin API stays plain HTTP`] : [];
  const dialect = o.headers === TARGET_DEFAULTS.headers ? [] : [`  rate-limit headers: ${o.headers}`];
  return [
    `tiergate reference target: ${o.edges} edge${o.edges === 1 ? '' : 's'}, window ${formatDurationMs(o.windowMs)}, revocation delay ${formatDurationMs(o.revocationDelayMs)}, faults: ${listed(o.faults)}, variants: ${listed(o.variants)}`,
    ...tls,
    ...dialect,
    ...distance,
    ...target.edges.map((url, i) => `  edge-${i}  ${url}`),
    `  admin   ${target.adminUrl}`,
    'Create an org and a key:',
    `  ORG=$(curl -s -X POST ${target.adminUrl}/admin/orgs -d '{"tier":"starter","name":"demo"}' | sed -E 's/.*"id":"([^"]+)".*/\\1/') && curl -s -X POST ${target.adminUrl}/admin/orgs/$ORG/keys -d '{"scopes":["jobs.read"],"env":"test"}'`,
  ];
}

/** How a client trusts the edges' certificate: the CA's file, wherever each kind of client looks. */
function trustLines(caPath: string, edge: string): string[] {
  return [
    `The edges' certificate comes from the CA in ${caPath}. Trust it:`,
    `  a tiergate config:  "target": { "ca": "${caPath}", ... }`,
    `  Node tools:         NODE_EXTRA_CA_CERTS=${caPath}`,
    `  k6:                 SSL_CERT_FILE=${caPath} k6 run ...`,
    `  curl:               curl --cacert ${caPath} -I ${edge}/recruiter/bootstrap`,
  ];
}

/** Starts the target, writes the CA's certificate where it said it would, and serves until Ctrl-C. */
async function serveUntilStopped(options: TargetOptions, caFile: CaFile | null, io: Io): Promise<void> {
  if (caFile) io.stdout.write(`tiergate serve --tls: writes the CA's certificate (no key) to ${caFile.path}\n`);
  const { startTarget } = await import('../reference-server/server.ts');
  const target = await startTarget(options);
  try {
    if (caFile) await writeCa(caFile, target.ca!);
    const trust = caFile ? trustLines(caFile.path, target.edges[0]!) : [];
    io.stdout.write(`${[...targetLines(target), ...trust, 'Ctrl-C to stop.'].join('\n')}\n`);
    await untilAborted(io.signal);
  } finally {
    await target.close();
  }
  io.stdout.write('tiergate: target stopped\n');
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
    const { target: options, tlsDir } = serveOptions(args);
    const caFile = options.tls ? await caFileIn(tlsDir, io) : null;
    try {
      await serveUntilStopped(options, caFile, io);
    } finally {
      if (caFile?.madeFolder) await rm(caFile.madeFolder, { recursive: true, force: true });
    }
    return EXIT.pass;
  },
};
