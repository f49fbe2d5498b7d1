/**
 * `tiergate run --engine k6`: the sustained load of each tier's scenario run by k6 instead of the
 * harness's driver, against the same target, then read back and judged by `tiergate k6 ingest`.
 * Needs a `k6` binary on PATH; without one it stops before starting anything, saying so and how to
 * run the exported scripts elsewhere. Keys reach k6 through its environment, never its arguments.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { TiergateError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { parseThresholds, type Threshold } from '../config/thresholds.ts';
import type { TierName } from '../contract/types.ts';
import type { RunOptions } from './options.ts';
import type { LoadShape, Scenario } from '../scenario/define.ts';
import type { EngineDrive, OpenRun, RunEngine } from './engine.ts';
import { asInterrupted, type EngineOutcome } from './publish.ts';
import { isLoopbackUrl } from '../util/loopback.ts';
import { exportK6Scripts } from '../k6/export.ts';
import { ingestK6 } from '../k6/ingest.ts';
import { k6Outcome } from './k6-ingest-report.ts';
import { preflightSession } from './preflight.ts';
import { NO_SUMMARY_FLAG, OLDEST_K6, k6Supported, parseK6Version, type K6Version } from '../k6/version.ts';

export const K6_MISSING_MESSAGE =
  'k6 is not on PATH: install it (https://grafana.com/docs/k6/latest/set-up/install-k6/) or run the exported scripts where k6 is: ' +
  'tiergate k6 export --out DIR, then k6 run -e BASE_URL=... -e TIERGATE_KEYS=... --out json=out.json DIR/<tier>.js, then tiergate k6 ingest out.json';

/** Beyond the phases' own length: k6 start-up, graceful stop and flushing its output. */
const K6_GRACE_MS = 60_000;

/** The first executable `k6` on PATH, or null. */
export async function findK6(env: Readonly<Record<string, string | undefined>>): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'k6');
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

export async function requireK6(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const k6 = await findK6(env);
  if (k6 === null) throw new TiergateError('TG_K6_MISSING', K6_MISSING_MESSAGE);
  return k6;
}

/**
 * The k6 at `k6`, by what `k6 version` prints: one tiergate can drive, or a TiergateError naming what
 * was found and what is needed (a user's fix, exit 2).
 */
export async function requireK6Version(k6: string, io: Io): Promise<K6Version> {
  const printed = await k6Output(k6, ['version'], io);
  const version = parseK6Version(printed);
  if (version === null) {
    const shown = printed.trim().split('\n')[0]?.slice(0, 120) ?? '';
    throw new TiergateError(
      'TG_K6_VERSION',
      `${k6} printed ${shown === '' ? 'nothing' : `'${shown}'`} for \`k6 version\`: tiergate needs k6 ${OLDEST_K6} or later`,
    );
  }
  if (!k6Supported(version)) {
    throw new TiergateError(
      'TG_K6_VERSION',
      `${k6} is k6 v${version.text}; tiergate needs k6 ${OLDEST_K6} or later (--summary-mode=disabled): upgrade k6`,
    );
  }
  return version;
}

/** What k6 needs from a run, checked before anything starts: itself, a version tiergate can drive, and load to drive. */
async function prepare(options: RunOptions, io: Io): Promise<EngineDrive> {
  const k6 = await requireK6(io.env);
  const version = await requireK6Version(k6, io);
  const scenarios = loadScenarios(options);
  if (scenarios.length === 0)
    throw new TiergateError('TG_USAGE', '--engine k6: no selected scenario has sustained load (load: null)');
  const thresholds: Partial<Record<TierName, readonly Threshold[]>> = {};
  for (const s of scenarios)
    thresholds[s.tier] = parseThresholds(s.load.thresholds, `scenario ${s.tier}: load.thresholds`);
  return (run) => drive(run, { k6, version, scenarios, thresholds });
}

type LoadScenario = Scenario & { readonly load: LoadShape };

const loadScenarios = (options: RunOptions) =>
  options.scenarios.filter((s): s is LoadScenario => options.tiers.includes(s.tier) && s.load !== null);

interface K6Prepared {
  readonly k6: string;
  readonly version: K6Version;
  readonly scenarios: readonly LoadScenario[];
  readonly thresholds: Partial<Record<TierName, readonly Threshold[]>>;
}

async function drive(
  { options, io, session, runId, runDir, emit }: OpenRun,
  { k6, version, scenarios, thresholds }: K6Prepared,
): Promise<EngineOutcome> {
  const bundles = await exportK6Scripts({
    outDir: join(runDir, 'k6'),
    tiers: scenarios.map((s) => s.tier),
    shapes: Object.fromEntries(scenarios.map((s) => [s.tier, s.load])),
    ...(session.headers ? { rateLimitReader: session.headers } : {}),
  });
  const edge = session.edges[0];
  if (!edge || !isLoopbackUrl(edge.url))
    throw new TiergateError(
      'TG_NOT_LOOPBACK',
      `--engine k6 sends load to loopback only; the target is ${edge?.url ?? '(none)'}`,
    );
  // Nothing is provisioned and k6 spends no quota before every edge has answered.
  await preflightSession(session, io, options.timeoutMs);
  emit({
    type: 'run-start',
    runId,
    tiers: scenarios.map((s) => s.tier),
    tasks: scenarios.length,
    windowSeconds: session.windowMs / 1000,
    target: edge.url,
  });
  const orgs = await session.orgs(
    scenarios.map((s) => ({ tier: s.tier, count: Math.max(s.orgs, ...s.load.phases.map((p) => p.orgs)) })),
  );
  const outputs: string[] = [];
  for (const scenario of scenarios) {
    if (io.signal.aborted) break;
    const bundle = bundles.find((b) => b.tier === scenario.tier)!;
    const keys = orgs.filter((o) => o.tier === scenario.tier).map((o) => `${o.label}=${o.primary.key}`);
    const output = join(runDir, `k6-${scenario.tier}.json`);
    const lengthMs = scenario.load.phases.reduce((n, p) => n + p.windows * session.windowMs, 0);
    io.stderr.write(`tiergate: k6 runs the ${scenario.tier} load (${Math.round(lengthMs / 1000)} s)\n`);
    const code = await runK6(k6, ['run', '--quiet', NO_SUMMARY_FLAG, '--out', `json=${output}`, bundle.path], {
      env: {
        ...io.env,
        ...k6TrustEnv(options),
        BASE_URL: edge.url,
        TIERGATE_KEYS: keys.join(','),
        WINDOW_S: String(session.windowMs / 1000),
      },
      io,
      timeoutMs: lengthMs + K6_GRACE_MS,
    });
    // 99: k6's own per-instance thresholds were crossed; tiergate judges them itself, below.
    if (code !== 0 && code !== 99)
      io.stderr.write(`tiergate: k6 exited with code ${code} for ${scenario.tier}; judging the output it wrote\n`);
    outputs.push(output);
  }
  const existing: string[] = [];
  for (const file of outputs) {
    try {
      await access(file);
      existing.push(file);
    } catch {
      io.stderr.write(`tiergate: k6 wrote no output to ${file}\n`);
    }
  }
  if (existing.length === 0) throw new TiergateError('TG_USAGE', '--engine k6: k6 wrote no output to judge');
  const outcome = {
    ...(await k6Outcome(
      await ingestK6({ files: existing, windowS: session.windowMs / 1000, thresholds }),
      existing,
      runDir,
    )),
    k6: { version: version.text },
  };
  // k6 stopped by Ctrl-C wrote partial output: what it shows is reported, never as a verdict.
  return io.signal.aborted ? { ...outcome, checks: outcome.checks.map(asInterrupted) } : outcome;
}

/** k6 verifies against Go's system roots, which on Linux Go reads from SSL_CERT_FILE: the config's target.ca, where it names one. */
function k6TrustEnv(options: RunOptions): Record<string, string> {
  const ca = options.target.kind === 'external' ? options.target.ca : null;
  return ca === null ? {} : { SSL_CERT_FILE: ca.path };
}

/** `tiergate run --engine k6`. */
export const k6Engine: RunEngine = { prepare };

/** What a short k6 command prints on stdout (bounded to 10 s); a k6 that cannot start is a TiergateError. */
function k6Output(k6: string, args: readonly string[], io: Io): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(k6, args, { env: io.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (out.length < 64 * 1024) out += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), VERSION_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new TiergateError('TG_K6_MISSING', `cannot start ${k6}: ${error.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolvePromise(out);
    });
  });
}

const VERSION_TIMEOUT_MS = 10_000;

/** Runs k6, its output relayed to ours; bounded by `timeoutMs` and by Ctrl-C. Resolves to the exit code. */
function runK6(
  k6: string,
  args: readonly string[],
  options: { env: Record<string, string | undefined>; io: Io; timeoutMs: number },
): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(k6, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => options.io.stdout.write(chunk));
    child.stderr.on('data', (chunk: Buffer) => options.io.stderr.write(chunk));
    const stop = () => child.kill('SIGTERM');
    const timer = setTimeout(stop, options.timeoutMs);
    options.io.signal.addEventListener('abort', stop, { once: true });
    // Ctrl-C may have come while k6 was starting: stop it now, it will not be signalled again.
    if (options.io.signal.aborted) stop();
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new TiergateError('TG_K6_MISSING', `cannot start ${k6}: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.io.signal.removeEventListener('abort', stop);
      resolvePromise(code ?? (signal ? 128 : 1));
    });
  });
}
