/**
 * `tiergate k6 export|operator|ingest`: the k6 side of sustained load. Flags → typed options → the
 * src/k6 library; every flag mistake is one line, exit 2.
 *
 *   tiergate k6 export --out DIR                      one bundled k6 script per tier
 *   tiergate k6 operator --parallelism N --out DIR    k6-operator TestRun per tier + ConfigMap
 *   tiergate k6 ingest FILE... [--out DIR]            judge k6 --out json output of any number of runners
 *
 * `tiergate run --engine k6` is `runK6Engine` (src/run/k6-engine.ts).
 */
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { EXIT, UsageError, exitCodeFor } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { exportK6Scripts } from '../k6/export.ts';
import { ingestK6ToReports } from '../run/k6-ingest-report.ts';
import { writeOperatorManifests, checkParallelism } from '../k6/operator.ts';
import { parseThresholds, type Threshold } from '../config/thresholds.ts';
import type { LoadShape } from '../scenario/define.ts';
import { defaultScenarioFile, loadScenarioFile } from '../scenario/load.ts';
import { DEFAULTS } from '../config/defaults.ts';
import { parseDurationMs } from '../util/duration.ts';
import type { CliCommand } from './command.ts';
import { ensureOutDir } from '../util/out-dir.ts';

const ACTIONS = ['export', 'operator', 'ingest'] as const;
type Action = (typeof ACTIONS)[number];

interface K6Args {
  readonly action: Action;
  readonly files: readonly string[];
  readonly out?: string;
  readonly tiers?: string;
  readonly scenario: readonly string[];
  readonly parallelism?: number;
  readonly 'base-url'?: string;
  readonly namespace?: string;
  readonly window?: string;
  readonly image?: string;
}

/** Flags each action accepts (besides the shared --tiers and --scenario). */
const FLAGS_BY_ACTION: Readonly<Record<Action, readonly (keyof K6Args)[]>> = {
  export: ['out'],
  operator: ['out', 'parallelism', 'base-url', 'namespace', 'window', 'image'],
  ingest: ['out', 'window'],
};


export const k6Command: CliCommand<{}> = {
  name: 'k6 <action> [files..]',
  describe: 'k6 scripts for sustained load: export them, write a k6-operator TestRun, or ingest k6 --out json output (export | operator | ingest)',
  builder: (argv: Argv) =>
    argv
      .positional('action', { type: 'string', describe: `one of ${ACTIONS.join(', ')}: bundled scripts, k6-operator manifests, or judge k6 output` })
      .positional('files', { type: 'string', array: true, describe: 'ingest: k6 --out json files (.gz too), one or more per runner' })
      .option('out', { type: 'string', describe: `output directory (ingest: reports root, default ${DEFAULTS.reportsDir})` })
      .option('tiers', { type: 'string', describe: `comma-separated tiers (default: all): ${TIER_NAMES.join(', ')}` })
      .option('scenario', { type: 'string', array: true, default: [], describe: 'scenario files whose load shape and thresholds to use (default: scenarios/<tier>.ts)' })
      .option('parallelism', { type: 'number', describe: 'operator: k6 runner pods per tier' })
      .option('base-url', { type: 'string', describe: "operator: the API's base URL (default: the Secret's base-url)" })
      .option('namespace', { type: 'string', describe: 'operator: Kubernetes namespace' })
      .option('window', { type: 'string', describe: `quota window length, like 60s (default: the contract's ${DEFAULTS.windowMs / 1000}s)` })
      .option('image', { type: 'string', describe: 'operator: k6 runner image (default grafana/k6:latest)' }),
  run: async (raw, io) => {
    const args = raw as unknown as K6Args;
    if (!(ACTIONS as readonly string[]).includes(args.action)) {
      throw new UsageError(`k6 ${String(args.action)}: unknown action; choose ${ACTIONS.join(', ')}`);
    }
    const stray = (Object.keys(FLAGS_BY_ACTION) as Action[])
      .flatMap((a) => FLAGS_BY_ACTION[a])
      .filter((flag, i, all) => all.indexOf(flag) === i && !FLAGS_BY_ACTION[args.action].includes(flag) && args[flag] !== undefined);
    if (stray.length > 0) throw new UsageError(`k6 ${args.action}: --${stray.join(', --')} does not apply here`);
    if (args.action !== 'ingest' && args.files.length > 0) throw new UsageError(`k6 ${args.action}: unexpected ${args.files.join(' ')} (only ingest takes files)`);
    if (args.action !== 'ingest') required('out', args.action, args.out);
    if (args.action === 'operator') required('parallelism', args.action, args.parallelism);
    if (args.action === 'ingest' && args.files.length === 0) throw new UsageError('k6 ingest: name at least one k6 --out json file');
    const tiers = tierList(args.tiers);
    const shapes = await loadShapes(args.scenario, tiers, io);
    switch (args.action) {
      case 'export':
        return exportAction(args, tiers, shapes, io);
      case 'operator':
        return operatorAction(args, tiers, shapes, io);
      case 'ingest':
        return ingestAction(args, shapes, io);
    }
  },
};

function tierList(value: string | undefined): readonly TierName[] {
  if (value === undefined) return TIER_NAMES;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = items.filter((t) => !(TIER_NAMES as readonly string[]).includes(t));
  if (items.length === 0 || unknown.length > 0) throw new UsageError(`--tiers ${value}: unknown ${unknown.join(', ') || '(empty)'}; choose from ${TIER_NAMES.join(', ')}`);
  return items as TierName[];
}

function windowSeconds(value: string | undefined): number | null {
  if (value === undefined) return null;
  const ms = parseDurationMs(value);
  if (ms === null || ms === 0 || ms % 1000 !== 0) throw new UsageError(`--window ${value}: expected whole seconds, like 3s or 60s`);
  return ms / 1000;
}

function required<T>(flag: string, action: Action, value: T | undefined): T {
  if (value === undefined) throw new UsageError(`k6 ${action}: --${flag} is required`);
  return value;
}

/** Each tier's scenario load shape: from --scenario files, else the shipped scenarios/<tier>.ts. */
async function loadShapes(files: readonly string[], tiers: readonly TierName[], io: Io): Promise<Partial<Record<TierName, LoadShape | null>>> {
  const shapes: Partial<Record<TierName, LoadShape | null>> = {};
  const paths = files.length > 0 ? files : tiers.map(defaultScenarioFile);
  for (const path of paths) {
    const scenario = await loadScenarioFile(path, io.cwd);
    // Validate the thresholds at the boundary: a malformed one is named before anything is written.
    if (scenario.load) parseThresholds(scenario.load.thresholds, `--scenario ${path}: load.thresholds`);
    shapes[scenario.tier] = scenario.load;
  }
  return shapes;
}

async function exportAction(args: K6Args, tiers: readonly TierName[], shapes: Partial<Record<TierName, LoadShape | null>>, io: Io): Promise<number> {
  const outDir = await ensureOutDir(resolve(io.cwd, required('out', 'export', args.out)), `--out ${args.out}`);
  const bundles = await exportK6Scripts({ outDir, tiers, shapes });
  for (const b of bundles) io.stdout.write(`${b.path}  (${Buffer.byteLength(b.code)} bytes; imports ${b.imports.join(', ')})\n`);
  io.stdout.write(`Run one: k6 run -e BASE_URL=http://host:port -e TIERGATE_KEYS=label=KEY,... --out json=out.json ${bundles[0]?.path ?? ''}\n`);
  return EXIT.pass;
}

async function operatorAction(args: K6Args, tiers: readonly TierName[], shapes: Partial<Record<TierName, LoadShape | null>>, io: Io): Promise<number> {
  const parallelism = required('parallelism', 'operator', args.parallelism);
  // Refuse a bad count before anything is written.
  checkParallelism(parallelism);
  const outDir = await ensureOutDir(resolve(io.cwd, required('out', 'operator', args.out)), `--out ${args.out}`);
  const bundles = await exportK6Scripts({ outDir, tiers, shapes });
  const manifests = await writeOperatorManifests(outDir, {
    parallelism,
    bundles,
    ...(args.namespace !== undefined ? { namespace: args.namespace } : {}),
    baseUrl: args['base-url'] ?? null,
    windowS: windowSeconds(args.window),
    ...(args.image !== undefined ? { image: args.image } : {}),
  });
  for (const file of [manifests.configMap.file, ...manifests.testRuns.map((r) => r.file)]) io.stdout.write(`${resolve(outDir, file)}\n`);
  io.stdout.write(`Each TestRun file starts with the commands to apply it and to collect its ${parallelism} runners' output for tiergate k6 ingest.\n`);
  return EXIT.pass;
}

async function ingestAction(args: K6Args, shapes: Partial<Record<TierName, LoadShape | null>>, io: Io): Promise<number> {
  const thresholds: Partial<Record<TierName, readonly Threshold[]>> = {};
  for (const [tier, shape] of Object.entries(shapes) as [TierName, LoadShape | null][]) {
    if (shape) thresholds[tier] = parseThresholds(shape.thresholds);
  }
  const { ingest, results, runDir } = await ingestK6ToReports({
    files: args.files.map((f) => resolve(io.cwd, f)),
    windowS: windowSeconds(args.window) ?? DEFAULTS.windowMs / 1000,
    thresholds,
    outDir: await ensureOutDir(resolve(io.cwd, args.out ?? DEFAULTS.reportsDir), `--out ${args.out ?? DEFAULTS.reportsDir}`),
    now: io.clock.now(),
  });
  io.stdout.write(`Read ${ingest.stats.points} samples (${ingest.stats.responses} responses) from ${ingest.stats.runners} runner(s) in ${ingest.stats.files} file(s).\n`);
  for (const check of results.checks) io.stdout.write(`${check.verdict.toUpperCase().padEnd(12)} ${check.id} ${check.tier ?? '(no tier)'}: ${check.actual}\n`);
  io.stdout.write(`Verdict: ${results.verdict}. Reports: ${runDir}\n`);
  return exitCodeFor(results.verdict);
}
