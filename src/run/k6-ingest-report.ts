/**
 * k6 output, read back into a tiergate run: RunResults (the LOAD-THRESHOLDS results of `ingestK6`),
 * the cited observations beside them, and the usual reports (results.json, junit.xml, index.html)
 * in `<outDir>/<run-id>/`, with `<outDir>/latest` pointing at it.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { countVerdicts, overallVerdict } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { LATENCY_POLICY } from '../measure/outcome.ts';
import { pointLatest, writeReports } from '../report/render.ts';
import { RESULTS_SCHEMA, type RunResults } from '../results/types.ts';
import { newRunId, toolInfo } from './run-id.ts';
import { ingestK6, writeEvidence, type K6Ingest, type K6IngestOptions } from '../k6/ingest.ts';

export const K6_METHODOLOGY: RunResults['methodology'] = [
  { topic: 'k6 engine', text: LATENCY_POLICY.k6 },
  {
    topic: 'Across runners',
    text:
      "Every runner's --out json samples are read together. A quota window is the server's (named by X-RateLimit-Reset), so requests from all runners into one organization's window are added up before admitted is compared with Limit; thresholds are evaluated over all runners' samples merged, where k6 judges each instance alone.",
  },
];

export interface K6ReportOptions extends K6IngestOptions {
  readonly outDir: string;
  /** Wall clock now, epoch ms (for the run id). */
  readonly now: number;
  readonly runId?: string;
}

export interface K6ReportOutcome {
  readonly ingest: K6Ingest;
  readonly results: RunResults;
  readonly runDir: string;
}

export async function k6RunResults(ingest: K6Ingest, options: { readonly runId: string; readonly windowS: number; readonly evidenceCount: number }): Promise<RunResults> {
  const verdicts = ingest.checks.map((c) => c.verdict);
  return {
    schema: RESULTS_SCHEMA,
    runId: options.runId,
    tool: await toolInfo(),
    contract: { name: recruitingApi.name, version: recruitingApi.version },
    target: { kind: 'external', edges: [], faults: [] },
    startedAt: new Date(ingest.startedWall).toISOString(),
    finishedAt: new Date(ingest.finishedWall).toISOString(),
    durationMs: Math.max(0, ingest.finishedWall - ingest.startedWall),
    windowSeconds: options.windowS,
    tiers: [...ingest.tiers],
    clock: null,
    windows: { needed: 0, used: ingest.windowsUsed },
    interrupted: false,
    verdict: overallVerdict(verdicts),
    counts: countVerdicts(verdicts),
    checks: [...ingest.checks],
    profiles: [],
    assumptions: recruitingApi.assumptions,
    methodology: K6_METHODOLOGY,
    observations: { file: 'observations.ndjson', count: options.evidenceCount },
  };
}

export async function ingestK6ToReports(options: K6ReportOptions): Promise<K6ReportOutcome> {
  const ingest = await ingestK6(options);
  const runId = options.runId ?? newRunId(options.now);
  const runDir = join(options.outDir, runId);
  await mkdir(runDir, { recursive: true });
  const cited = new Set(ingest.checks.flatMap((c) => c.evidence));
  const evidenceCount = await writeEvidence(options.files, cited, join(runDir, 'observations.ndjson'));
  const results = await k6RunResults(ingest, { runId, windowS: options.windowS, evidenceCount });
  await writeReports(results, runDir);
  await pointLatest(options.outDir, runDir);
  return { ingest, results, runDir };
}
