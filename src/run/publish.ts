/**
 * The end of every run, whichever engine drove it (and of `tiergate k6 ingest`): what the engine
 * measured becomes RunResults (identity, timing, verdict and counts added), written as the reports in
 * `<outDir>/<run-id>/`, with `<outDir>/latest` pointing at them, and summed up on the job's page
 * when GitHub Actions names a step summary.
 */
import { countVerdicts, overallVerdict, CHECK_IDS, type CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { pointLatest, writeReports } from '../report/render.ts';
import { appendStepSummary, stepSummary, type StepSummaryTarget } from '../report/step-summary.ts';
import { RESULTS_SCHEMA, type RunResults, type TargetInfo } from '../results/types.ts';
import { toolInfo } from './run-id.ts';
import { sealRun, type SealInput } from './seal.ts';
import type { RunSeal } from './options.ts';
import { messageOf } from '../util/errors.ts';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { because } from '../catalogue/reasons/index.ts';

/** What an engine measured: its checks and the evidence around them. */
export type EngineOutcome = Pick<
  RunResults,
  'checks' | 'clock' | 'network' | 'windows' | 'profiles' | 'methodology' | 'observations' | 'k6' | 'footprint'
>;

export interface RunFrame {
  readonly runId: string;
  readonly target: TargetInfo;
  readonly startedWall: number;
  readonly finishedWall: number;
  readonly windowSeconds: number;
  readonly tiers: readonly TierName[];
  readonly interrupted: boolean;
  /** Organizations of the run whose own figures the config declared. */
  readonly declaredLimits: RunResults['declaredLimits'];
  /** The rate-limit header dialect judged; absent where the frame does not know (k6 ingests, merged vantage points). */
  readonly headers?: RunResults['headers'];
}

export async function runResults(frame: RunFrame, outcome: EngineOutcome): Promise<RunResults> {
  const checks = orderResults(outcome.checks);
  const verdicts = checks.map((c) => c.verdict);
  return {
    schema: RESULTS_SCHEMA,
    runId: frame.runId,
    tool: await toolInfo(),
    contract: { name: recruitingApi.name, version: recruitingApi.version },
    target: frame.target,
    startedAt: new Date(frame.startedWall).toISOString(),
    finishedAt: new Date(frame.finishedWall).toISOString(),
    durationMs: Math.max(0, frame.finishedWall - frame.startedWall),
    windowSeconds: frame.windowSeconds,
    tiers: [...frame.tiers],
    clock: outcome.clock,
    ...(outcome.network ? { network: outcome.network } : {}),
    windows: outcome.windows,
    interrupted: frame.interrupted,
    verdict: overallVerdict(verdicts),
    counts: countVerdicts(verdicts),
    checks,
    profiles: outcome.profiles,
    declaredLimits: frame.declaredLimits,
    ...(frame.headers ? { headers: frame.headers } : {}),
    assumptions: recruitingApi.assumptions,
    methodology: outcome.methodology,
    observations: outcome.observations,
    ...(outcome.k6 ? { k6: outcome.k6 } : {}),
    ...(outcome.footprint ? { footprint: outcome.footprint } : {}),
  };
}

/** Writes a run's reports into `runDir`, seals the folder (manifest.json, manifest.sig), points `<outDir>/latest` at it, and appends the step summary (if any). */
export async function publishRun(
  results: RunResults,
  runDir: string,
  outDir: string,
  summary: StepSummaryTarget | null,
  seal: SealInput,
): Promise<string | null> {
  await writeReports(results, runDir);
  await sealRun(runDir, results, seal);
  await pointLatest(outDir, runDir);
  if (!summary) return null;
  // The reports are written and the verdict stands: a summary that cannot be written is a warning.
  try {
    await appendStepSummary(summary, stepSummary(results, runDir, summary.cwd));
    return null;
  } catch (error) {
    return messageOf(error);
  }
}

/** A check judged on traffic Ctrl-C cut short: what it found is reported, never as a verdict. */
export function asInterrupted(result: CheckResult): CheckResult {
  if (result.verdict === 'skipped' || result.verdict === 'inconclusive') return result;
  return {
    ...result,
    verdict: 'inconclusive',
    reasons: [...result.reasons, because('interrupted', { wouldHaveBeen: result.verdict })],
  };
}

/** Catalogue order, then tier order, then variant: reports and JUnit read the same way every run. */
function orderResults(results: readonly CheckResult[]): CheckResult[] {
  const tierRank = (t: TierName | null) => (t === null ? TIER_NAMES.length : TIER_NAMES.indexOf(t));
  return [...results].sort(
    (a, b) =>
      CHECK_IDS.indexOf(a.id) - CHECK_IDS.indexOf(b.id) ||
      tierRank(a.tier) - tierRank(b.tier) ||
      a.variant.localeCompare(b.variant),
  );
}

/** A run's folder, `<outDir>/<run-id>/`, created. */
export async function openRunFolder(outDir: string, runId: string): Promise<string> {
  const runDir = join(outDir, runId);
  await mkdir(runDir, { recursive: true });
  return runDir;
}

/** Where and how a run is published: its folder, the folder `latest` lives in, the job's step summary, the seal. */
export interface Publishing {
  readonly runDir: string;
  readonly outDir: string;
  readonly summary: StepSummaryTarget | null;
  readonly seal: SealInput;
}

/** The seal of a run: the command and signing key it was given, and the validated config it ran by (none for ingests). */
export function sealOf(seal: RunSeal | undefined, config: unknown = null): SealInput {
  return { command: seal?.command ?? null, signingKey: seal?.signingKey ?? null, config };
}

/** RunResults from what the run measured, written as its reports and sealed (publishRun); a step summary that failed, as a warning. */
export async function publishResults(
  frame: RunFrame,
  outcome: EngineOutcome,
  publishing: Publishing,
): Promise<{ readonly results: RunResults; readonly warning: string | null }> {
  const results = await runResults(frame, outcome);
  const { runDir, outDir, summary, seal } = publishing;
  return { results, warning: await publishRun(results, runDir, outDir, summary, seal) };
}
