/**
 * k6 output, read back into a tiergate run: the LOAD-THRESHOLDS results of `ingestK6`, the cited
 * observations beside them, and, for `tiergate k6 ingest`, the usual reports (results.json,
 * junit.xml, index.html) in `<outDir>/<run-id>/`, with `<outDir>/latest` pointing at it.
 */
import { join } from 'node:path';
import { LATENCY_POLICY } from '../measure/outcome.ts';
import type { RunResults } from '../results/types.ts';
import { newRunId } from './run-id.ts';
import { refuseNotK6 } from '../k6/ndjson.ts';
import { ingestK6, writeEvidence, type K6Ingest, type K6IngestOptions } from '../k6/ingest.ts';
import { openRunFolder, publishResults, sealOf, type EngineOutcome } from './publish.ts';
import type { StepSummaryTarget } from '../report/step-summary.ts';
import { OBSERVATIONS_FILE } from '../measure/observation-file.ts';
import type { RunSeal } from './options.ts';

export const K6_METHODOLOGY: RunResults['methodology'] = [
  { topic: 'k6 engine', text: LATENCY_POLICY.k6 },
  {
    topic: 'Across runners',
    text: "Every runner's --out json samples are read together. A quota window is the server's (named by X-RateLimit-Reset), so requests from all runners into one organization's window are added up before admitted is compared with Limit; thresholds are evaluated over all runners' samples merged, where k6 judges each instance alone.",
  },
];

/** k6's judged output, with the observations its verdicts cite copied from `files` into `runDir`. */
export async function k6Outcome(ingest: K6Ingest, files: readonly string[], runDir: string): Promise<EngineOutcome> {
  const cited = new Set(ingest.checks.flatMap((c) => c.evidence));
  const count = await writeEvidence(files, cited, join(runDir, OBSERVATIONS_FILE));
  return {
    checks: ingest.checks,
    clock: null,
    windows: { needed: 0, used: ingest.windowsUsed },
    profiles: [],
    methodology: K6_METHODOLOGY,
    observations: { file: OBSERVATIONS_FILE, count, bodies: 'shape' },
  };
}

export interface K6ReportOptions extends K6IngestOptions {
  readonly outDir: string;
  /** Wall clock now, epoch ms (for the run id). */
  readonly now: number;
  readonly runId?: string;
  /** GitHub's step summary to append to (`stepSummaryTarget`), or null. */
  readonly stepSummary: StepSummaryTarget | null;
  /** The command line and signing key for the folder's manifest. */
  readonly seal?: RunSeal;
}

export interface K6ReportOutcome {
  readonly ingest: K6Ingest;
  readonly results: RunResults;
  readonly runDir: string;
  /** The step summary could not be written, and why; null otherwise. */
  readonly warning: string | null;
}

/** `tiergate k6 ingest`: output of k6 runs elsewhere, judged into a run of its own. */
export async function ingestK6ToReports(options: K6ReportOptions): Promise<K6ReportOutcome> {
  // Judged first: unreadable files, or files that are not k6 output, are a usage error that leaves no empty run folder behind.
  const ingest = await ingestK6(options);
  refuseNotK6(ingest.stats);
  const runId = options.runId ?? newRunId(options.now);
  const runDir = await openRunFolder(options.outDir, runId);
  const outcome = await k6Outcome(ingest, options.files, runDir);
  const { results, warning } = await publishResults(
    {
      runId,
      // The samples say which target they came from only by URL, in each sample; the run has no session.
      target: { kind: 'external', edges: [], faults: [] },
      startedWall: ingest.startedWall,
      finishedWall: ingest.finishedWall,
      windowSeconds: options.windowS,
      tiers: ingest.tiers,
      interrupted: false,
      declaredLimits: [],
    },
    outcome,
    { runDir, outDir: options.outDir, summary: options.stepSummary, seal: sealOf(options.seal) },
  );
  return { ingest, results, runDir, warning };
}
