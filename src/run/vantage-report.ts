/**
 * `tiergate k6 ingest --revocation`: the run's trials and every vantage's probes, judged together
 * (k6/revocation-ingest.ts), written as a run folder of their own: the observations the judgement
 * refers to, its judgement, results.json, the reports, and the seal, so `tiergate verify` judges it
 * again like any run.
 */
import { join } from 'node:path';
import { ingestRevocation, type RevocationIngest, type RevocationIngestOptions } from '../k6/revocation-ingest.ts';
import { observationSink, OBSERVATIONS_FILE } from '../measure/observation-file.ts';
import { JUDGEMENTS_FILE } from '../suite/judgements.ts';
import type { RunResults } from '../results/types.ts';
import type { StepSummaryTarget } from '../report/step-summary.ts';
import type { RunSeal } from './options.ts';
import { openRunFolder, publishResults, sealOf } from './publish.ts';
import { newRunId } from './run-id.ts';
import { METHODOLOGY } from './methodology.ts';
import { SLA_METHOD_TOPICS } from '../report/sla.ts';

export const VANTAGE_METHODOLOGY: RunResults['methodology'] = [
  // How the trials measure and what they prove, as the run's own report says it.
  ...METHODOLOGY.filter((m) => SLA_METHOD_TOPICS.includes(m.topic)),
  {
    topic: 'Vantage points',
    text: "The run's revocation trials, judged again with the probes other machines sent to the same keys (the k6 revocation script). Each vantage's clock is set against the run's through the Date headers of the servers both reached (an edge, and the node it names in X-Edge-Node, since nodes behind one address may keep clocks of their own): a response stamped second D, sent at s and answered by h on the sender's clock, puts the server's clock between D − h and D + 1 s (+ the allowed Date lag) − s of the sender's; intersected over every response, and the difference of two senders' offsets to one server is the difference of their clocks, whatever that server's clock says. A vantage's bracket runs from its last admission of the key, at the earliest its clock may stand, to its first rejection after that, at the latest, so it holds wherever in that interval the clocks truly stand, and a 401 in passing never closes it early. The verdict is on the worst bracket of every vantage point × edge.",
  },
];

export interface VantageReportOptions extends RevocationIngestOptions {
  readonly outDir: string;
  readonly now: number;
  readonly runId?: string;
  readonly stepSummary: StepSummaryTarget | null;
  readonly seal?: RunSeal;
}

export interface VantageReportOutcome {
  readonly ingest: RevocationIngest;
  readonly results: RunResults;
  readonly runDir: string;
  readonly warning: string | null;
}

export async function ingestRevocationToReports(options: VantageReportOptions): Promise<VantageReportOutcome> {
  // Judged first: a folder or files unfit are a usage error that leaves no empty run folder behind.
  const ingest = await ingestRevocation(options);
  const runId = options.runId ?? newRunId(options.now);
  const runDir = await openRunFolder(options.outDir, runId);
  const sink = observationSink(join(runDir, OBSERVATIONS_FILE));
  for (const o of ingest.observations) sink.write(`${JSON.stringify(o)}\n`);
  await sink.end();
  await ingest.judgements.write(join(runDir, JUDGEMENTS_FILE));
  const { results, warning } = await publishResults(
    {
      runId,
      target: { kind: 'external', edges: [...ingest.edges], faults: [] },
      startedWall: ingest.startedWall,
      finishedWall: ingest.finishedWall,
      windowSeconds: ingest.windowSeconds,
      tiers: ingest.check.tier ? [ingest.check.tier] : [],
      interrupted: false,
      declaredLimits: [],
    },
    {
      checks: [
        {
          ...ingest.check,
          notes: [
            ...ingest.check.notes,
            `merged from run ${ingest.sourceRunId} and ${ingest.stats.files} k6 output file(s)`,
          ],
        },
      ],
      clock: null,
      windows: { needed: 0, used: 0 },
      profiles: [],
      methodology: VANTAGE_METHODOLOGY,
      observations: { file: OBSERVATIONS_FILE, count: ingest.observations.length, bodies: 'shape' },
    },
    { runDir, outDir: options.outDir, summary: options.stepSummary, seal: sealOf(options.seal) },
  );
  return { ingest, results, runDir, warning };
}
