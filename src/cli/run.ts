/** `tiergate run`: flags → validated RunOptions → runSuite. Every flag mistake is one line, exit 2. */
import type { Argv } from 'yargs';
import { CHECK_IDS, type CheckId } from '../catalogue/types.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { terminalReporter } from '../report/terminal.ts';
import { defaultScenarioFile, loadScenarioFile } from '../scenario/load.ts';
import { SCENARIO_DEFAULTS, type Scenario } from '../scenario/define.ts';
import type { RunOptions } from '../run/options.ts';
import { runSuite } from '../run/run.ts';
import { runK6Engine } from '../run/k6-engine.ts';
import type { CliCommand } from './command.ts';
import { FLAG_DEFAULTS, list, positiveInt, resolveTarget, withTargetOptions, type TargetArgs } from './options.ts';
import { DEFAULTS, PARSE_MS } from '../config/defaults.ts';
import { formatDurationMs } from '../util/duration.ts';
import { ensureOutDir } from '../util/out-dir.ts';
import { resolve } from 'node:path';

interface RunArgs extends TargetArgs {
  readonly checks?: string;
  readonly out: string;
  readonly edges: number;
  readonly 'revocation-delay': string;
  readonly 'revocation-trials'?: number;
  readonly scenario: readonly string[];
  readonly 'dry-run': boolean;
  readonly engine: 'harness' | 'k6';
}

export const runCommand: CliCommand = {
  name: 'run',
  describe: 'Run the conformance suite (against the embedded reference target unless --config names a deployment)',
  builder: (argv: Argv) =>
    withTargetOptions(argv)
      .option('checks', { type: 'string', describe: 'comma-separated check IDs (tiergate list shows them)' })
      .option('out', { type: 'string', default: DEFAULTS.reportsDir, describe: 'reports directory: writes <out>/<run-id>/ and <out>/latest' })
      .option('edges', { type: 'number', default: FLAG_DEFAULTS.edges, describe: 'edge listeners of the embedded target' })
      .option('revocation-delay', { type: 'string', default: FLAG_DEFAULTS.revocationDelay, describe: 'revocation propagation delay of the embedded target' })
      .option('revocation-trials', { type: 'number', describe: `revocation trials (default: the scenario's, ${SCENARIO_DEFAULTS.revocation.trials})` })
      .option('parse-ms', { type: 'number', describe: `simulated resume parse time of the embedded target, ms (default ${PARSE_MS.shortWindows}; ${PARSE_MS.longWindows} with windows of ${formatDurationMs(PARSE_MS.longFromWindowMs)} or more)` })
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

export async function resolveRunOptions(args: RunArgs, io: Io, listeners: RunOptions['listeners']): Promise<RunOptions> {
  const { target, windowMs, timeoutMs, tiers } = await resolveTarget(args, io);
  const checks: CheckId[] | null = list('checks', args.checks, CHECK_IDS);
  const files = args.scenario.length > 0 ? args.scenario : tiers.map(defaultScenarioFile);
  const scenarios: Scenario[] = [];
  for (const file of files) scenarios.push(await loadScenarioFile(file, io.cwd));
  const missing = tiers.filter((t) => !scenarios.some((s) => s.tier === t));
  if (missing.length > 0) throw new UsageError(`--scenario: no scenario for tier ${missing.join(', ')}; add one or narrow --tiers`);
  return {
    target,
    windowMs,
    tiers,
    checks,
    scenarios,
    outDir: args['dry-run'] ? args.out : await ensureOutDir(resolve(io.cwd, args.out), `--out ${args.out}`),
    timeoutMs,
    revocation: { trials: positiveInt('revocation-trials', args['revocation-trials'], 1000) },
    listeners,
    dryRun: args['dry-run'],
  };
}
