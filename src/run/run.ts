/**
 * `runSuite`: the library call behind `tiergate run`, one lifecycle for every engine: open the run
 * (id, folder), open the target session, let the engine drive it, then results, reports and
 * `latest`. An interrupted run (io.signal) still writes the report of what finished, and says so; a
 * run whose edges answer nothing (the engines' preflight) stops before anything else, with exit code 2.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { declaredDialectText } from '../report/header-dialect.ts';
import { EXIT, UsageError, exitCodeFor } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { TierName } from '../contract/types.ts';
import type { RunResults } from '../results/types.ts';
import type { RunEvent } from '../results/events.ts';
import { declaredAssumptions, headerDeclaration, type RunOptions } from './options.ts';
import { describePlan } from './describe-plan.ts';
import { openTargetSession } from './target-session.ts';
import { newRunId } from './run-id.ts';
import { harnessEngine } from './harness-engine.ts';
import { k6Engine } from './k6-engine.ts';
import type { RunEngine } from './engine.ts';
import { bulkPolicyOf, plannedRun, resolvedRevocation, selectedScenarios } from './plan-for.ts';
import { openRunFolder, publishResults, sealOf, type EngineOutcome } from './publish.ts';
import { stepSummaryTarget } from '../report/step-summary.ts';
import { TargetUnreachableError } from './preflight.ts';
import { reasonText } from '../catalogue/reasons/index.ts';

export interface RunOutcome {
  /** null for a dry run. */
  readonly results: RunResults | null;
  readonly runDir: string | null;
  readonly exitCode: number;
}

/** The config's organizations of the run's tiers that declare figures of their own. */
function declaredLimits(options: RunOptions, tiers: readonly TierName[]): RunResults['declaredLimits'] {
  if (options.target.kind !== 'external') return [];
  return options.target.orgs.flatMap((org) =>
    org.limits && tiers.includes(org.tier) ? [{ org: org.label, tier: org.tier, limits: org.limits }] : [],
  );
}

/** The header dialect the run judged, for results.json: the one declared, else §8's. */
function headerDialects(options: RunOptions): NonNullable<RunResults['headers']> {
  const declared = headerDeclaration(options);
  return { declared: declared?.dialect ?? null, spec: 'x-ratelimit', policies: declared?.policies ?? {} };
}

const ENGINES: Readonly<Record<RunOptions['engine'], RunEngine>> = { harness: harnessEngine, k6: k6Engine };

/**
 * A check named in --checks that the plan refuses for the run's edges (LOAD-THRESHOLDS against a
 * deployment at a distance) is a usage mistake, not a skipped check: a gate would pass on no evidence.
 */
function refuseNamedChecksRefused(options: RunOptions): void {
  const named = plannedRun(options).refused.filter((r) => r.checks.some((id) => options.checks?.includes(id)));
  const first = named[0];
  if (first)
    throw new UsageError(`--checks ${first.checks.join(',')}: ${reasonText(first.reason)}; leave it out of --checks`);
}

export async function runSuite(options: RunOptions, io: Io): Promise<RunOutcome> {
  if (options.dryRun) {
    const orgs = options.target.kind === 'external' ? options.target.orgs : [];
    const limitsOf = (label: string) => orgs.find((o) => o.label === label)?.limits;
    const writes = options.target.kind === 'external' ? options.target.config.writes : 'own';
    const plan = plannedRun(options);
    const revocation = plan.revocation ? (resolvedRevocation(options)?.shape ?? null) : null;
    io.stdout.write(
      describePlan(plan, options.windowMs, {
        uploadMs: options.target.kind === 'embedded' ? options.target.parseMs : null,
        limitsOf,
        writes,
        revocation,
        bulkCountsPerRequest: declaredAssumptions(options)['bulk-counts-per-resume'] === false,
        bulkOf: bulkPolicyOf(options),
        headers: declaredDialectText(headerDialects(options)) ?? "x-ratelimit judged: §8's X-RateLimit-* names",
      }),
    );
    return { results: null, runDir: null, exitCode: EXIT.pass };
  }
  refuseNamedChecksRefused(options);
  const drive = await ENGINES[options.engine].prepare(options, io);
  const emit = (event: RunEvent) => {
    for (const listener of options.listeners) listener(event);
  };
  const runId = options.runId ?? newRunId(io.clock.now());
  const outDir = resolve(io.cwd, options.outDir);
  const runDir = await openRunFolder(outDir, runId);
  const startedWall = io.clock.now();
  const session = await openTargetSession(options, io.env);
  let outcome: EngineOutcome;
  try {
    outcome = await drive({ options, io, session, runId, runDir, emit });
  } catch (error) {
    // A run whose edges answered nothing did nothing else: it leaves no run folder behind.
    if (error instanceof TargetUnreachableError) await rm(runDir, { recursive: true, force: true });
    throw error;
  } finally {
    await session.close();
  }
  const tiers = selectedScenarios(options).map((s) => s.tier);
  const frame = {
    runId,
    target: session.info,
    startedWall,
    finishedWall: io.clock.now(),
    windowSeconds: session.windowMs / 1000,
    tiers,
    interrupted: io.signal.aborted,
    declaredLimits: declaredLimits(options, tiers),
    headers: headerDialects(options),
  };
  const config = options.target.kind === 'external' ? options.target.config : null;
  const { results, warning } = await publishResults(frame, outcome, {
    runDir,
    outDir,
    summary: stepSummaryTarget(io),
    seal: sealOf(options.seal, config),
  });
  if (warning) emit({ type: 'warning', message: warning });
  emit({ type: 'run-end', results, reportDir: runDir });
  return { results, runDir, exitCode: exitCodeFor(results.verdict, results.interrupted) };
}
