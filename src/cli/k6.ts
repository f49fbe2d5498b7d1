/**
 * `tiergate k6 export|operator|ingest`: the k6 side of sustained load, a subcommand each with its own
 * flags and --help. Flags → typed options → the src/k6 library; every flag mistake is one line, exit 2.
 *
 *   tiergate k6 export --out DIR                      one bundled k6 script per tier
 *   tiergate k6 operator --parallelism N --out DIR    k6-operator TestRun per tier + ConfigMap
 *   tiergate k6 ingest FILE... [--out DIR]            judge k6 --out json output of any number of runners
 *
 * `tiergate run --engine k6` is the k6 engine of `runSuite` (src/run/k6-engine.ts). The library
 * (esbuild, yaml, the ingest and its reports, scenario loading) is imported when an action runs.
 */
import { K6_RUNNER_IMAGE } from '../k6/version.ts';
import { resolve } from 'node:path';
import type { Argv, Options } from 'yargs';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { DEFAULTS } from '../config/defaults.ts';
import { EXIT, UsageError, exitCodeFor } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { Threshold } from '../config/thresholds.ts';
import type { LoadShape } from '../scenario/define.ts';
import { mount, type CliCommand, type Mount } from './command.ts';
import { list, milliseconds, windowLength } from './flag-values.ts';
import { countOf } from '../verdicts/support/finding.ts';
import { DEFAULT_DATE_LAG_MS } from '../verdicts/support/vantage-bounds.ts';
import { lastGiven, REPORTS_OUT, SCENARIO, stringFlag, stringsFlag, TIERS, WINDOW, type FlagValues } from './flags.ts';
import { ensureOutDir } from '../util/out-dir.ts';
import type { TargetCa } from '../config/target-ca.ts';
import { shellQuote } from '../provision/hooks/template.ts';
import { signingKeyFrom } from './signing-key.ts';
import {
  DEFAULT_RATE_LIMIT_DIALECT,
  isRateLimitDialectName,
  RATE_LIMIT_DIALECT_NAMES,
} from '../contract/rate-limit-names.ts';
import type { RateLimitReader } from '../measure/rate-limit-reading.ts';

/** Which scenarios' load shapes and thresholds to use: every action takes these. */
const SCENARIO_FLAGS = { tiers: TIERS, scenario: SCENARIO } as const;

const SCRIPTS_OUT = {
  out: stringFlag('directory to write into (required)'),
  'declare-headers': stringFlag(
    `the rate-limit header dialect the scripts read, as the run declares it: ${RATE_LIMIT_DIALECT_NAMES.join(', ')}`,
    `${DEFAULT_RATE_LIMIT_DIALECT}, §8's X-RateLimit-*`,
  ),
} as const;

/** `--declare-headers`: the dialect the bundled scripts read; a name that is none is the user's mistake. */
function declaredReader(action: string, given: string | undefined): RateLimitReader | undefined {
  if (given === undefined) return undefined;
  if (!isRateLimitDialectName(given))
    throw new UsageError(`k6 ${action}: --declare-headers ${given}: one of ${RATE_LIMIT_DIALECT_NAMES.join(', ')}`);
  return { dialect: given, policies: {} };
}
const REPORTS = { out: REPORTS_OUT } as const;
const VANTAGE_SCRIPT = {
  revocation: {
    type: 'boolean',
    describe: 'write revocation.js, the script a revocation vantage point runs, instead of the tier scripts',
  },
} as const;
const VANTAGE_OPERATOR = {
  revocation: {
    type: 'boolean',
    describe:
      'write a TestRun per --region running revocation.js, the revocation vantage script, instead of the tier TestRuns',
  },
  region: stringsFlag(
    'with --revocation: a region to watch from (a value of the topology.kubernetes.io/region node label); repeat for several',
  ),
} as const;
const VANTAGE_INGEST = {
  revocation: stringFlag(
    "a run's folder: judge its revocation trials again with the vantage points' probes in the files (revocation.js output)",
  ),
  'date-lag': stringFlag(
    "with --revocation: how far a server's Date header may lag its clock",
    '500ms, as a cache refreshed every 500 ms (Envoy)',
  ),
} as const;

/** Flags only some actions take; the others accept them hidden, only to refuse them by name. */
const ACTION_FLAGS = {
  parallelism: { type: 'number', coerce: lastGiven<number>, describe: 'k6 runner pods per tier (required)' },
  'base-url': stringFlag("the API's base URL", "the Secret's base-url"),
  namespace: stringFlag('Kubernetes namespace'),
  window: WINDOW,
  image: stringFlag(
    'k6 runner image (the k6 release tiergate checks its flags against; another release must be k6 1.3.0 or later)',
    K6_RUNNER_IMAGE,
  ),
  config: stringFlag(
    "a deployment's tiergate.config.json: where it names target.ca, says the SSL_CERT_FILE k6 needs to trust that CA",
  ),
} as const;
type ActionFlag = keyof typeof ACTION_FLAGS;

/** Declares every action flag, shows those `action` takes, and refuses the others: "does not apply here" says more than "unknown". */
function takingOnly<T>(argv: Argv<T>, action: string, takes: readonly ActionFlag[]) {
  const refused = (Object.keys(ACTION_FLAGS) as ActionFlag[]).filter((flag) => !takes.includes(flag));
  return refused
    .reduce((y, flag) => y.hide(flag), argv.options(ACTION_FLAGS))
    .check((args) => {
      const given = refused.filter((flag) => args[flag] !== undefined);
      if (given.length > 0) throw new UsageError(`k6 ${action}: --${given.join(', --')} does not apply here`);
      return true;
    });
}

/** `export` and `operator` take no files: say which action does, where yargs would say only "Unknown arguments". */
function takingNoFiles<T>(argv: Argv<T>, action: string) {
  return argv
    .strict(false)
    .strictOptions()
    .check((args) => {
      const files = args._.slice(2); // after `k6 <action>`
      if (files.length > 0)
        throw new UsageError(`k6 ${action}: unexpected ${files.join(' ')} (only ingest takes files)`);
      return true;
    });
}

/** An action's args: the scenario and action flags every action declares, and its own. */
type ActionArgs<Own extends Record<string, Options>> = FlagValues<typeof SCENARIO_FLAGS> &
  FlagValues<typeof ACTION_FLAGS> &
  FlagValues<Own>;
type ScriptsArgs = ActionArgs<typeof SCRIPTS_OUT>;
type ExportArgs = ScriptsArgs & FlagValues<typeof VANTAGE_SCRIPT>;
type OperatorArgs = ScriptsArgs & FlagValues<typeof VANTAGE_OPERATOR>;
type IngestArgs = ActionArgs<typeof REPORTS> &
  FlagValues<typeof VANTAGE_INGEST> & { readonly files?: readonly string[] };

const exportCommand: CliCommand<ExportArgs> = {
  name: 'export',
  describe: 'Bundle one k6 script per tier into --out (with --revocation, the revocation vantage script)',
  builder: (argv) =>
    takingNoFiles(
      takingOnly(argv.options(SCRIPTS_OUT).options(VANTAGE_SCRIPT).options(SCENARIO_FLAGS), 'export', ['config']),
      'export',
    ),
  run: async (args, io) => {
    const out = required('out', 'export', args.out);
    const rateLimitReader = declaredReader('export', args['declare-headers']);
    if (args.revocation === true && rateLimitReader !== undefined)
      throw new UsageError('k6 export: --declare-headers applies to the tier scripts, not with --revocation');
    const trust = k6Trust(await configCa(args.config, io));
    if (args.revocation === true) {
      const outDir = await ensureOutDir(resolve(io.cwd, out), `--out ${out}`);
      const { exportRevocationScript } = await import('../k6/export.ts');
      const script = await exportRevocationScript(outDir);
      io.stdout.write(
        `${script.path}  (${Buffer.byteLength(script.code)} bytes; imports ${script.imports.join(', ')})\n`,
      );
      io.stdout.write(
        `Start it on each vantage point before the run: ${trust.prefix}k6 run -e VANTAGE=NAME -e EDGES=label=URL,... -e TIERGATE_REVOCATION_KEYS=KEY,... --out json=NAME.json ${script.path}\n`,
      );
      io.stdout.write(trust.note);
      io.stdout.write('Then: tiergate k6 ingest --revocation reports/<run-id> NAME.json ...\n');
      return EXIT.pass;
    }
    const tiers = tierList(args.tiers);
    const shapes = await loadShapes(args.scenario, tiers, io);
    const outDir = await ensureOutDir(resolve(io.cwd, out), `--out ${out}`);
    const { exportK6Scripts } = await import('../k6/export.ts');
    const bundles = await exportK6Scripts({ outDir, tiers, shapes, rateLimitReader });
    for (const b of bundles)
      io.stdout.write(`${b.path}  (${Buffer.byteLength(b.code)} bytes; imports ${b.imports.join(', ')})\n`);
    io.stdout.write(
      `Run one: ${trust.prefix}k6 run -e BASE_URL=http://host:port -e TIERGATE_KEYS=label=KEY,... --out json=out.json ${bundles[0]?.path ?? ''}\n`,
    );
    io.stdout.write(trust.note);
    return EXIT.pass;
  },
};

const operatorCommand: CliCommand<OperatorArgs> = {
  name: 'operator',
  describe:
    'Write a k6-operator TestRun per tier and the ConfigMap of its script into --out (with --revocation, a vantage TestRun per --region)',
  builder: (argv) =>
    takingNoFiles(
      takingOnly(argv.options(SCRIPTS_OUT).options(VANTAGE_OPERATOR).options(SCENARIO_FLAGS), 'operator', [
        'parallelism',
        'base-url',
        'namespace',
        'window',
        'image',
        'config',
      ]),
      'operator',
    ),
  run: async (args, io) => {
    const out = required('out', 'operator', args.out);
    const rateLimitReader = declaredReader('operator', args['declare-headers']);
    if (args.revocation === true && rateLimitReader !== undefined)
      throw new UsageError('k6 operator: --declare-headers applies to the tier scripts, not with --revocation');
    if (args.revocation === true) return vantageOperator(args, out, io);
    if (args.region.length > 0) throw new UsageError('k6 operator: --region applies only with --revocation');
    const parallelism = required('parallelism', 'operator', args.parallelism);
    const tiers = tierList(args.tiers);
    const shapes = await loadShapes(args.scenario, tiers, io);
    const [{ exportK6Scripts }, { writeOperatorManifests, checkParallelism }] = await Promise.all([
      import('../k6/export.ts'),
      import('../k6/operator.ts'),
    ]);
    // Refuse a bad count or window before anything is written.
    checkParallelism(parallelism);
    const windowMs = windowLength(args.window);
    const outDir = await ensureOutDir(resolve(io.cwd, out), `--out ${out}`);
    const bundles = await exportK6Scripts({ outDir, tiers, shapes, rateLimitReader });
    const manifests = await writeOperatorManifests(outDir, {
      parallelism,
      bundles,
      ...(args.namespace !== undefined ? { namespace: args.namespace } : {}),
      baseUrl: args['base-url'] ?? null,
      // Absent: the scripts keep the contract's window.
      windowS: windowMs === undefined ? null : windowMs / 1000,
      ...(args.image !== undefined ? { image: args.image } : {}),
    });
    for (const file of [manifests.configMap.file, ...manifests.testRuns.map((r) => r.file)])
      io.stdout.write(`${resolve(outDir, file)}\n`);
    io.stdout.write(
      `Each TestRun file starts with the commands to apply it and to collect its ${parallelism} runners' output for tiergate k6 ingest.\n`,
    );
    io.stdout.write(k6Trust(await configCa(args.config, io)).runners);
    return EXIT.pass;
  },
};

const ingestCommand: CliCommand<IngestArgs> = {
  name: 'ingest [files..]',
  describe: "Judge k6 --out json output (any number of runners' files, .gz too) and write the usual reports",
  builder: (argv) =>
    takingOnly(
      argv
        .positional('files', { type: 'string', array: true, describe: 'k6 --out json files, one or more per runner' })
        .options(REPORTS)
        .options(VANTAGE_INGEST)
        .options(SCENARIO_FLAGS),
      'ingest',
      ['window'],
    ),
  run: async (args, io) => {
    const files = args.files ?? [];
    if (files.length === 0) throw new UsageError('k6 ingest: name at least one k6 --out json file');
    if (args.revocation !== undefined) return ingestVantages(args, files, io);
    if (args['date-lag'] !== undefined)
      throw new UsageError('k6 ingest: --date-lag applies only with --revocation RUN-DIR');
    const shapes = await loadShapes(args.scenario, tierList(args.tiers), io);
    const [{ parseThresholds }, { ingestK6ToReports }, { stepSummaryTarget }] = await Promise.all([
      import('../config/thresholds.ts'),
      import('../run/k6-ingest-report.ts'),
      import('../report/step-summary.ts'),
    ]);
    const thresholds: Partial<Record<TierName, readonly Threshold[]>> = {};
    for (const [tier, shape] of Object.entries(shapes) as [TierName, LoadShape | null][]) {
      if (shape) thresholds[tier] = parseThresholds(shape.thresholds);
    }
    const windowMs = windowLength(args.window) ?? DEFAULTS.windowMs;
    const out = args.out ?? DEFAULTS.reportsDir;
    const { ingest, results, runDir, warning } = await ingestK6ToReports({
      files: files.map((f) => resolve(io.cwd, f)),
      windowS: windowMs / 1000,
      thresholds,
      outDir: await ensureOutDir(resolve(io.cwd, out), `--out ${out}`),
      now: io.clock.now(),
      stepSummary: stepSummaryTarget(io),
      seal: { command: io.argv ?? null, signingKey: await signingKeyFrom(io) },
    });
    const skipped = ingest.stats.skipped > 0 ? `; ${ingest.stats.skipped} other line(s) (logs) skipped` : '';
    io.stdout.write(
      `Read ${ingest.stats.points} samples (${ingest.stats.responses} responses) from ${ingest.stats.runners} runner(s) in ${ingest.stats.files} file(s)${skipped}.\n`,
    );
    for (const check of results.checks)
      io.stdout.write(
        `${check.verdict.toUpperCase().padEnd(12)} ${check.id} ${check.tier ?? '(no tier)'}: ${check.actual}\n`,
      );
    io.stdout.write(`Verdict: ${results.verdict}. Reports: ${runDir}\n`);
    if (warning) io.stderr.write(`tiergate: warning: ${warning}\n`);
    return exitCodeFor(results.verdict);
  },
};

/** `k6 operator --revocation --region R...`: a vantage TestRun per region, and the ConfigMap of revocation.js. */
async function vantageOperator(args: OperatorArgs, out: string, io: Io): Promise<number> {
  const inapplicable = (['parallelism', 'base-url', 'window'] as const).filter((flag) => args[flag] !== undefined);
  if (inapplicable.length > 0)
    throw new UsageError(
      `k6 operator --revocation: --${inapplicable.join(', --')} does not apply (one runner per region, the edges from the Secret)`,
    );
  const [{ exportRevocationScript, bundleRevocationScript }, { vantageManifests, writeManifests }] = await Promise.all([
    import('../k6/export.ts'),
    import('../k6/operator.ts'),
  ]);
  // Refuse bad regions or names before anything is written.
  const manifests = vantageManifests({
    regions: args.region,
    code: (await bundleRevocationScript()).code,
    ...(args.namespace !== undefined ? { namespace: args.namespace } : {}),
    ...(args.image !== undefined ? { image: args.image } : {}),
  });
  const outDir = await ensureOutDir(resolve(io.cwd, out), `--out ${out}`);
  await exportRevocationScript(outDir);
  await writeManifests(outDir, manifests);
  for (const file of [manifests.configMap.file, ...manifests.testRuns.map((r) => r.file)])
    io.stdout.write(`${resolve(outDir, file)}\n`);
  io.stdout.write(
    'Each TestRun file starts with the commands to apply it before the run and to collect its output for tiergate k6 ingest --revocation.\n',
  );
  io.stdout.write(k6Trust(await configCa(args.config, io)).runners);
  return EXIT.pass;
}

/** `k6 ingest --revocation RUN-DIR FILE...`: the run's trials judged again with every vantage's probes. */
async function ingestVantages(args: IngestArgs, files: readonly string[], io: Io): Promise<number> {
  if (args.window !== undefined)
    throw new UsageError('k6 ingest --revocation: --window does not apply (the run folder says its window)');
  const dateLagMs = milliseconds('date-lag', args['date-lag'], 5000, '500ms') ?? DEFAULT_DATE_LAG_MS;
  const runDir = resolve(io.cwd, args.revocation!);
  const out = args.out ?? DEFAULTS.reportsDir;
  const [{ ingestRevocationToReports }, { stepSummaryTarget }] = await Promise.all([
    import('../run/vantage-report.ts'),
    import('../report/step-summary.ts'),
  ]);
  const {
    ingest,
    results,
    runDir: written,
    warning,
  } = await ingestRevocationToReports({
    runDir,
    files: files.map((f) => resolve(io.cwd, f)),
    dateLagMs,
    outDir: await ensureOutDir(resolve(io.cwd, out), `--out ${out}`),
    now: io.clock.now(),
    stepSummary: stepSummaryTarget(io),
    seal: { command: io.argv ?? null, signingKey: await signingKeyFrom(io) },
  });
  io.stdout.write(
    `Read ${ingest.stats.probes} probes of ${countOf(ingest.vantages.length - 1, 'vantage point')} from ${ingest.stats.files} file(s), with run ${ingest.sourceRunId}'s trials.\n`,
  );
  for (const check of results.checks)
    io.stdout.write(
      `${check.verdict.toUpperCase().padEnd(12)} ${check.id} ${check.tier ?? '(no tier)'}: ${check.actual}\n`,
    );
  io.stdout.write(`Verdict: ${results.verdict}. Reports: ${written}\n`);
  if (warning) io.stderr.write(`tiergate: warning: ${warning}\n`);
  return exitCodeFor(results.verdict);
}

const ACTIONS: readonly Mount[] = [mount(exportCommand), mount(operatorCommand), mount(ingestCommand)];
const ACTION_NAMES = [exportCommand, operatorCommand, ingestCommand].map((a) => a.name.split(' ')[0]);

export const k6Command: Mount = (argv, io, exited) =>
  argv.command(
    'k6',
    'k6 scripts for sustained load at scale: export them, write a k6-operator TestRun, or ingest k6 --out json output (export | operator | ingest)',
    (k6) =>
      ACTIONS.reduce((y, mountAction) => mountAction(y, io, exited), k6)
        // An unknown action gets a line naming the actions, where yargs would say only "Unknown argument".
        .command(
          '$0 <action>',
          false,
          (y) => y.strict(false),
          (args) => {
            throw new UsageError(`k6 ${String(args.action)}: unknown action; choose ${ACTION_NAMES.join(', ')}`);
          },
        ),
  );

/** The CA a deployment's config names in target.ca, read as `tiergate run --config` reads it; null without a config or a CA. */
async function configCa(file: string | undefined, io: Io): Promise<TargetCa | null> {
  if (file === undefined) return null;
  const [{ loadConfig }, { loadTargetCa }] = await Promise.all([
    import('../config/load.ts'),
    import('../config/target-ca.ts'),
  ]);
  return loadTargetCa(await loadConfig(file, io.cwd), file, io.cwd);
}

/**
 * How k6 trusts a private CA: k6 verifies against Go's system roots, which on Linux Go reads from the
 * file SSL_CERT_FILE names instead of the system's bundle (the system's certificate folders still
 * count). What a printed k6 command is prefixed with, the line saying so, and what k6-operator
 * runners need; all empty without a CA.
 */
function k6Trust(ca: TargetCa | null): { readonly prefix: string; readonly note: string; readonly runners: string } {
  if (ca === null) return { prefix: '', note: '', runners: '' };
  return {
    prefix: `SSL_CERT_FILE=${shellQuote(ca.path)} `,
    note: `SSL_CERT_FILE names target.ca's CA, which k6 must trust to reach the edges; on another machine, copy ${ca.path} there and name that copy\n`,
    runners: `The runners must trust target.ca's CA to reach the edges: mount ${ca.path} into each runner pod (a Secret or ConfigMap volume) and set the runner's SSL_CERT_FILE to its path there\n`,
  };
}

function tierList(value: string | undefined): readonly TierName[] {
  return list('tiers', value, TIER_NAMES) ?? TIER_NAMES;
}

function required<T>(flag: string, action: string, value: T | undefined): T {
  if (value === undefined) throw new UsageError(`k6 ${action}: --${flag} is required`);
  return value;
}

/** Each tier's scenario load shape: from --scenario files, else the shipped scenarios/<tier>.ts. */
async function loadShapes(
  files: readonly string[],
  tiers: readonly TierName[],
  io: Io,
): Promise<Partial<Record<TierName, LoadShape | null>>> {
  const shapes: Partial<Record<TierName, LoadShape | null>> = {};
  const [{ defaultScenarioFile, loadScenarioFile }, { parseThresholds }] = await Promise.all([
    import('../scenario/load.ts'),
    import('../config/thresholds.ts'),
  ]);
  const paths = files.length > 0 ? files : tiers.map(defaultScenarioFile);
  for (const path of paths) {
    const scenario = await loadScenarioFile(path, io.cwd);
    // Validate the thresholds at the boundary: a malformed one is named before anything is written.
    if (scenario.load) parseThresholds(scenario.load.thresholds, `--scenario ${path}: load.thresholds`);
    shapes[scenario.tier] = scenario.load;
  }
  return shapes;
}
