/** `tiergate run`: flags → validated RunOptions → runSuite. Every flag mistake is one line, exit 2. */
import type { Argv } from 'yargs';
import { CHECK_IDS, type CheckId } from '../checks/types.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { loadConfig } from '../config/load.ts';
import { UsageError } from '../errors.ts';
import type { Io } from '../io.ts';
import { terminalReporter } from '../report/terminal.ts';
import { defaultScenarioFile, loadScenarioFile } from '../scenario/load.ts';
import type { Scenario } from '../scenario/define.ts';
import type { RunOptions } from '../suite/options.ts';
import { runSuite } from '../suite/run.ts';
import { runK6Engine } from '../k6/engine.ts';
import { orgsFromConfig } from '../suite/config-orgs.ts';
import { FAULT_NAMES } from '../target/faults.ts';
import { parseDurationMs } from '../util/duration.ts';
import type { CliCommand } from './command.ts';
import { ensureOutDir } from '../util/out-dir.ts';
import { resolve } from 'node:path';

interface RunArgs {
  readonly config?: string;
  readonly tiers?: string;
  readonly checks?: string;
  readonly window: string;
  readonly out: string;
  readonly 'target-fault': readonly string[];
  readonly edges: number;
  readonly 'revocation-delay': string;
  readonly 'revocation-trials'?: number;
  readonly 'parse-ms'?: number;
  readonly timeout: string;
  readonly scenario: readonly string[];
  readonly 'dry-run': boolean;
  readonly engine: 'harness' | 'k6';
}

export const runCommand: CliCommand = {
  name: 'run',
  describe: 'Run the conformance suite (against the embedded reference target unless --config names a deployment)',
  builder: (argv: Argv) =>
    argv
      .option('config', { type: 'string', describe: 'tiergate.config.json of a real deployment (keys come from the environment)' })
      .option('tiers', { type: 'string', describe: `comma-separated tiers (default: all): ${TIER_NAMES.join(', ')}` })
      .option('checks', { type: 'string', describe: 'comma-separated check IDs (tiergate list shows them)' })
      .option('window', { type: 'string', default: '60s', describe: "quota window of the embedded target (the spec's is 60s)" })
      .option('out', { type: 'string', default: 'reports', describe: 'reports directory: writes <out>/<run-id>/ and <out>/latest' })
      .option('target-fault', { type: 'string', array: true, default: [], describe: 'inject a fault into the embedded target (serve --list-faults)' })
      .option('edges', { type: 'number', default: 3, describe: 'edge listeners of the embedded target' })
      .option('revocation-delay', { type: 'string', default: '300ms', describe: 'revocation propagation delay of the embedded target' })
      .option('revocation-trials', { type: 'number', describe: 'revocation trials (default: the scenario, 20)' })
      .option('parse-ms', { type: 'number', describe: 'simulated resume parse time of the embedded target, ms (default 200; 500 with windows of 10 s or more)' })
      .option('timeout', { type: 'string', default: '5s', describe: 'per-request timeout' })
      .option('scenario', { type: 'string', array: true, default: [], describe: 'scenario files (default: scenarios/<tier>.ts)' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'print the plan and send nothing' })
      .option('engine', { choices: ['harness', 'k6'] as const, default: 'harness' as const, describe: 'who drives sustained load: the harness, or k6 (must be on PATH)' }),
  run: async (args, io) => {
    const reporter = terminalReporter(io);
    const options = await resolveRunOptions(args as unknown as RunArgs, io, [reporter.listener]);
    try {
      if ((args as unknown as RunArgs).engine === 'k6' && !options.dryRun) return (await runK6Engine(options, io)).exitCode;
      const outcome = await runSuite(options, io);
      return outcome.exitCode;
    } finally {
      reporter.finish();
    }
  },
};

/**
 * Uploads must stay in flight long enough for CONCURRENCY-CAP to see them held while the extra is
 * answered, yet a tier's single uploads (Enterprise: 500, in batches under the cap) must fit a window.
 */
function defaultParseMs(windowMs: number): number {
  return windowMs >= 10_000 ? 500 : 200;
}

/** Longer than this is surely a typo, and past 2^31 ms Node's timers fire at once. */
const MAX_DURATION_MS = 600_000;

function duration(flag: string, value: string, { wholeSeconds = false, zeroAllowed = false } = {}): number {
  const ms = parseDurationMs(value);
  if (ms === null || (ms === 0 && !zeroAllowed)) throw new UsageError(`--${flag} ${value}: expected a duration like 300ms, 3s or 1m`);
  if (ms > MAX_DURATION_MS) throw new UsageError(`--${flag} ${value}: at most 10m`);
  if (wholeSeconds && ms % 1000 !== 0) throw new UsageError(`--${flag} ${value}: windows are whole seconds, like 3s or 60s`);
  return ms;
}

function list<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] | null {
  if (value === undefined) return null;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((i) => !(allowed as readonly string[]).includes(i));
  if (items.length === 0 || unknown.length > 0) {
    throw new UsageError(`--${flag} ${value}: unknown ${unknown.join(', ') || '(empty)'}; choose from ${allowed.join(', ')}`);
  }
  return items as T[];
}

function positiveInt(flag: string, value: number | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new UsageError(`--${flag} ${value}: expected a whole number from 1 to ${max}`);
  return value;
}

export async function resolveRunOptions(args: RunArgs, io: Io, listeners: RunOptions['listeners']): Promise<RunOptions> {
  const faults = list('target-fault', args['target-fault'].length > 0 ? args['target-fault'].join(',') : undefined, FAULT_NAMES) ?? [];
  if (args.config && faults.length > 0) throw new UsageError('--target-fault applies to the embedded target only; drop it or drop --config');
  const config = args.config ? await loadConfig(args.config, io.cwd) : null;
  const configTiers = config ? [...new Set(config.orgs.map((o) => o.tier))] : null;
  const tiers: TierName[] = list('tiers', args.tiers, TIER_NAMES) ?? configTiers ?? [...TIER_NAMES];
  const checks: CheckId[] | null = list('checks', args.checks, CHECK_IDS);
  const files = args.scenario.length > 0 ? args.scenario : tiers.map(defaultScenarioFile);
  const scenarios: Scenario[] = [];
  for (const file of files) scenarios.push(await loadScenarioFile(file, io.cwd));
  const missing = tiers.filter((t) => !scenarios.some((s) => s.tier === t));
  if (missing.length > 0) throw new UsageError(`--scenario: no scenario for tier ${missing.join(', ')}; add one or narrow --tiers`);
  return {
    target: config
      ? { kind: 'external', config, orgs: orgsFromConfig(config, io.env) }
      : {
          kind: 'embedded',
          edges: positiveInt('edges', args.edges, 32)!,
          revocationDelayMs: duration('revocation-delay', args['revocation-delay'], { zeroAllowed: true }),
          revocationJitterMs: 0,
          parseMs: positiveInt('parse-ms', args['parse-ms'], 10_000) ?? defaultParseMs(duration('window', args.window, { wholeSeconds: true })),
          faults,
        },
    windowMs: config ? config.window : duration('window', args.window, { wholeSeconds: true }),
    tiers,
    checks,
    scenarios,
    outDir: args['dry-run'] ? args.out : await ensureOutDir(resolve(io.cwd, args.out), `--out ${args.out}`),
    timeoutMs: config ? config.timeout : duration('timeout', args.timeout),
    revocation: { trials: positiveInt('revocation-trials', args['revocation-trials'], 1000) },
    listeners,
    dryRun: args['dry-run'],
  };
}
