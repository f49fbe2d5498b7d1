/**
 * `tiergate run`: flags → validated RunOptions → runSuite. Every flag mistake is one line, exit 2.
 * The library (the suite, the reporter, scenario loading) is imported when the command runs, so
 * `--help` and the other commands do not load it.
 */
import { resolve } from 'node:path';
import { CHECK_IDS } from '../catalogue/types.ts';
import { DEFAULTS, REVOCATION_LIMITS } from '../config/defaults.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { SCENARIO_DEFAULTS, type Scenario } from '../scenario/define.ts';
import type { RunOptions } from '../run/options.ts';
import type { CliCommand } from './command.ts';
import { count, list } from './flag-values.ts';
import { REPORTS_OUT, stringFlag, SCENARIO, type FlagValues } from './flags.ts';
import { asGiven, flagsOf, option, parseOptions, type FlagsOf, type OptionTable } from './option-table.ts';
import {
  DECLARE_HEADERS_OPTION,
  declaredHeadersOf,
  resolveTarget,
  TARGET_OPTIONS,
  TARGET_SHAPE_OPTIONS,
  type TargetArgs,
  type TargetShapeArgs,
} from './options.ts';
import { ensureOutDir } from '../util/out-dir.ts';
import { signingKeyFrom } from './signing-key.ts';
import { parseConfidenceTarget, targetText, type ConfidenceTarget } from '../config/confidence-target.ts';
import { trialsToProve } from '../verdicts/support/confidence.ts';

const { trials: MAX_TRIALS, parallel: MAX_PARALLEL } = REVOCATION_LIMITS;

/** The confidence target a flag names, "99%@95%"; undefined when absent. */
function confidenceTarget(given: string | undefined, name: string): ConfidenceTarget | undefined {
  if (given === undefined) return undefined;
  const parsed = parseConfidenceTarget(given);
  if (!parsed.ok) throw new UsageError(`--${name}: ${parsed.problem}`);
  return parsed.target;
}

/** `run`'s own options; the target's are TARGET_OPTIONS and TARGET_SHAPE_OPTIONS (options.ts). */
const RUN_OPTIONS = {
  checks: option(stringFlag('comma-separated check IDs (tiergate list shows them)'), (given, name) =>
    list(name, given, CHECK_IDS),
  ),
  out: option(REPORTS_OUT, (given) => given ?? DEFAULTS.reportsDir),
  'revocation-trials': option(
    stringFlag('revocation trials', `the config's or scenario's, ${SCENARIO_DEFAULTS.revocation.trials}`),
    (given, name) => count(name, given, MAX_TRIALS),
  ),
  'revocation-parallel': option(
    stringFlag(
      'revocation trials at most at once',
      `the config's or scenario's, ${SCENARIO_DEFAULTS.revocation.parallel}`,
    ),
    (given, name) => count(name, given, MAX_PARALLEL),
  ),
  'revocation-confidence': option(
    stringFlag(
      'what the revocation trials are to prove: "99%@95%" (99 % within 3 s at 95 % confidence); the trials rise to what it takes',
      "the config's or scenario's, else none",
    ),
    confidenceTarget,
  ),
  scenario: asGiven(SCENARIO),
  'dry-run': asGiven({ type: 'boolean', default: false, describe: 'print the plan and send nothing' }),
  'keep-bodies': asGiven({
    type: 'boolean',
    default: false,
    describe:
      "keep data reads' bodies in the run folder (customer data: see docs/deployment.md); else their shape only",
  }),
  ...DECLARE_HEADERS_OPTION,
  engine: asGiven({
    choices: ['harness', 'k6'] as const,
    default: 'harness' as const,
    describe: 'who drives sustained load: the harness, or k6 (must be on PATH)',
  }),
} as const satisfies OptionTable;

type RunArgs = TargetArgs & TargetShapeArgs & FlagValues<FlagsOf<typeof RUN_OPTIONS>>;

export const runCommand: CliCommand<RunArgs> = {
  name: 'run',
  describe: 'Run the conformance suite (against the embedded reference target unless --config names a deployment)',
  builder: (argv) =>
    argv.options(flagsOf(TARGET_OPTIONS)).options(flagsOf(TARGET_SHAPE_OPTIONS)).options(flagsOf(RUN_OPTIONS)),
  run: async (args, io) => {
    const { terminalReporter } = await import('../report/terminal.ts');
    const reporter = terminalReporter(io);
    const options = await resolveRunOptions(args, io, [reporter.listener]);
    // Loaded once the flags are good: a flag mistake is reported without loading the suite.
    const { runSuite } = await import('../run/run.ts');
    try {
      return (await runSuite(options, io)).exitCode;
    } finally {
      reporter.finish();
    }
  },
};

/**
 * The confidence target the revocation task will have (flag, then config, then scenario), checked
 * before anything runs: one that takes more trials than a run allows, or more than
 * --revocation-trials gives, is a mistake, named by where it came from.
 */
async function checkConfidenceTarget(options: RunOptions): Promise<void> {
  const { resolvedRevocation, selectedScenarios } = await import('../run/plan-for.ts');
  const resolved = resolvedRevocation(options);
  const target = resolved?.shape.confidence;
  if (!resolved || !target) return;
  const sources = {
    flag: '--revocation-confidence',
    config: 'revocation.confidence (config)',
    scenario: `the ${selectedScenarios(options)[0]!.tier} scenario's revocation.confidence`,
  } as const;
  const source = sources[resolved.confidenceFrom ?? 'scenario'];
  const needed = trialsToProve(target);
  if (needed > MAX_TRIALS)
    throw new UsageError(
      `${source}: ${targetText(target, '3 s')} takes ${needed} trials, none slower, more than the ${MAX_TRIALS} a run allows: ask for less`,
    );
  const trials = options.revocation.trials;
  if (trials !== undefined && trials < needed)
    throw new UsageError(
      `${source}: ${targetText(target, '3 s')} takes ${needed} trials, none slower; --revocation-trials ${trials} cannot prove it: raise it or drop it`,
    );
}

export async function resolveRunOptions(
  args: RunArgs,
  io: Io,
  listeners: RunOptions['listeners'],
): Promise<RunOptions> {
  const { target, windowMs, timeoutMs, tiers } = await resolveTarget(args, io);
  const given = parseOptions(RUN_OPTIONS, args);
  const { defaultScenarioFile, loadScenarioFile } = await import('../scenario/load.ts');
  const files = given.scenario.length > 0 ? given.scenario : tiers.map(defaultScenarioFile);
  const scenarios: Scenario[] = [];
  for (const file of files) scenarios.push(await loadScenarioFile(file, io.cwd));
  const twice = scenarios.find((s, i) => scenarios.findIndex((o) => o.tier === s.tier) !== i);
  if (twice) throw new UsageError(`--scenario: two scenarios for tier ${twice.tier}; give one per tier`);
  const missing = tiers.filter((t) => !scenarios.some((s) => s.tier === t));
  if (missing.length > 0)
    throw new UsageError(`--scenario: no scenario for tier ${missing.join(', ')}; add one or narrow --tiers`);
  const confidence = given['revocation-confidence'];
  const declaredHeaders = declaredHeadersOf(given['declare-headers'], target);
  const options: RunOptions = {
    target,
    windowMs,
    tiers,
    checks: given.checks,
    scenarios,
    outDir: given['dry-run'] ? given.out : await ensureOutDir(resolve(io.cwd, given.out), `--out ${given.out}`),
    timeoutMs,
    revocation: {
      trials: given['revocation-trials'],
      parallel: given['revocation-parallel'],
      ...(confidence === undefined ? {} : { confidence }),
    },
    listeners,
    dryRun: given['dry-run'],
    engine: given.engine,
    keepBodies: given['keep-bodies'],
    seal: { command: io.argv ?? null, signingKey: await signingKeyFrom(io) },
    ...(declaredHeaders === undefined ? {} : { declaredHeaders }),
  };
  await checkConfidenceTarget(options);
  return options;
}
