/**
 * `tiergate k6 ingest --revocation RUN-DIR FILE...`: the revocation trials of a tiergate run, judged
 * again as seen from every vantage point that probed them (scenarios/k6/revocation.ts). The run's
 * trials come from its own folder, as `tiergate verify` reads them: the REVOKE-LATENCY judgement and
 * the observations it refers to. Each vantage's `tiergate_revocation_probe` samples become
 * Observations (ids after the run's), grouped by the vantage they name; REVOKE-LATENCY is then
 * judged by the same function, on the run's trials and every vantage's probes together.
 */
import { join } from 'node:path';
import type { CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Contract } from '../contract/types.ts';
import { NO_HEADER, type Observation } from '../measure/observation.ts';
import { JudgementLog, JUDGEMENTS_FILE, withSharedArgs } from '../procedures/judgements.ts';
import { loadResults } from '../results/load.ts';
import { readJudgements, readObservations } from '../procedures/judgement-file.ts';
import { UsageError } from '../util/errors.ts';
import { decodeArgs, referenced } from '../verdicts/replay.ts';
import type { RevocationEvidence } from '../verdicts/support/revocation-evidence.ts';
import { checkResult } from '../verdicts/support/result.ts';
import type { VantagePoint } from '../verdicts/support/vantage-bounds.ts';
import { readK6Points, type K6Point, type K6ReadStats } from './ndjson.ts';
import { REVOCATION_PROBE_METRIC } from './revocation-watch.ts';
import { OBSERVATIONS_FILE } from '../measure/observation-file.ts';

/** The run's own name among the vantage points. */
export const RUN_VANTAGE = 'this run';

export interface RevocationIngestOptions {
  /** The folder of the run whose trials the vantages probed. */
  readonly runDir: string;
  readonly files: readonly string[];
  /** How far a server's Date header may lag its clock, ms. */
  readonly dateLagMs: number;
  readonly contract?: Contract;
}

export interface RevocationIngest {
  readonly check: CheckResult;
  readonly judgements: JudgementLog;
  /** The run's probes then every vantage's, in id order: what the judgement refers to. */
  readonly observations: readonly Observation[];
  readonly sourceRunId: string;
  readonly vantages: readonly string[];
  /** Every vantage's view of an edge, as the table names them. */
  readonly edges: readonly string[];
  readonly stats: K6ReadStats & { readonly probes: number };
  readonly startedWall: number;
  readonly finishedWall: number;
  readonly windowSeconds: number;
}

const tagOrNull = (raw: string | undefined): string | null => (raw === undefined || raw === 'none' || raw === '' ? null : raw);

/**
 * A probe sample as an Observation on its vantage's own clock: sent at the sample's value (read
 * before the request), headers in by the sample's time (read after the answer, rounded up to the ms).
 */
export function vantageObservation(p: K6Point, id: number): Observation {
  const status = Number(p.tags.status);
  const answered = Number.isInteger(status) && status > 0;
  const sentWall = p.value;
  const inWall = Math.max(sentWall, Math.ceil(p.timeMs) + (Number.isInteger(p.timeMs) ? 1 : 0));
  return {
    id,
    check: 'REVOKE-LATENCY',
    phase: 'vantage',
    tier: null,
    org: null,
    key: tagOrNull(p.tags.key),
    edge: p.tags.edge ?? `k6-file-${p.file + 1}`,
    method: 'HEAD',
    path: '/recruiter/bootstrap',
    intendedAt: null,
    sentAt: sentWall,
    headersAt: answered ? inWall : null,
    doneAt: inWall,
    sentWall,
    status: answered ? status : null,
    rateLimit: { limit: NO_HEADER, remaining: NO_HEADER, reset: NO_HEADER, retryAfter: NO_HEADER },
    date: tagOrNull(p.tags.date),
    edgeNode: tagOrNull(p.tags.edge_node),
    contentType: null,
    bodyBytes: 0,
    bodyExcerpt: '',
    body: null,
    error: answered ? null : { code: 'NO_RESPONSE', message: 'k6 recorded no response' },
  };
}

/** The run's REVOKE-LATENCY evidence, read back from its folder as verify reads it. */
async function runEvidence(runDir: string, contract: Contract): Promise<{ evidence: RevocationEvidence; byId: ReadonlyMap<number, Observation>; result: CheckResult; runId: string; windowSeconds: number }> {
  const results = await loadResults(join(runDir, 'results.json'));
  const result = results.checks.find((c) => c.id === 'REVOKE-LATENCY' && c.variant !== 'vantages');
  if (!result) throw new UsageError(`k6 ingest --revocation ${runDir}: the run has no REVOKE-LATENCY result; give the folder of a run that ran revocation trials`);
  const problems: string[] = [];
  const read = await readJudgements(join(runDir, JUDGEMENTS_FILE), problems);
  if (read === null) throw new UsageError(`k6 ingest --revocation ${runDir}: no ${JUDGEMENTS_FILE} (a run of tiergate before it kept its judgements): run the trials again`);
  const { records } = withSharedArgs(read);
  const record = records.find((r) => r.fn === 'revokeLatencyVerdict' && r.link?.check === 'REVOKE-LATENCY' && r.link.tier === result.tier && r.link.org === result.org);
  if (!record?.args) {
    throw new UsageError(`k6 ingest --revocation ${runDir}: its REVOKE-LATENCY was ${result.verdict} without trials to judge (${result.actual}); give the folder of a run whose trials ran`);
  }
  const source = await readObservations(join(runDir, OBSERVATIONS_FILE), referenced(record.args));
  const [evidence] = decodeArgs(record.args, source, contract) as [RevocationEvidence];
  if (evidence.vantages) throw new UsageError(`k6 ingest --revocation ${runDir}: that folder is itself a merge of vantage points; give the run's own folder`);
  return { evidence, byId: source.byId, result, runId: results.runId, windowSeconds: results.windowSeconds };
}

export async function ingestRevocation(options: RevocationIngestOptions): Promise<RevocationIngest> {
  const contract = options.contract ?? recruitingApi;
  const { evidence, byId, result, runId, windowSeconds } = await runEvidence(options.runDir, contract);
  const runProbes = evidence.runs.flatMap((run) => run.probes.map((p) => byId.get(p.id)!)).sort((a, b) => a.id - b.id);
  let nextId = Math.max(0, ...runProbes.map((o) => o.id)) + 1;
  const byVantage = new Map<string, Observation[]>();
  let probes = 0;
  const stats = await readK6Points(options.files, (p) => {
    if (p.metric !== REVOCATION_PROBE_METRIC) return;
    const name = p.tags.vantage || `file ${p.file + 1}`;
    const own = byVantage.get(name) ?? [];
    own.push(vantageObservation(p, nextId++));
    byVantage.set(name, own);
    probes += 1;
  });
  if (probes === 0) {
    throw new UsageError(`k6 ingest --revocation: ${options.files.join(', ')} hold no ${REVOCATION_PROBE_METRIC} sample: run the revocation script (tiergate k6 export --revocation) with k6 --out json`);
  }
  if (byVantage.has(RUN_VANTAGE)) throw new UsageError(`k6 ingest --revocation: a vantage is named "${RUN_VANTAGE}", the run's own name: give it another (-e VANTAGE=...)`);
  const points: VantagePoint[] = [...byVantage.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, own]) => ({ name, probes: own }));
  const merged: RevocationEvidence = { ...evidence, vantages: { run: RUN_VANTAGE, runProbes, points, dateLagMs: options.dateLagMs } };
  const judgements = new JudgementLog(contract);
  const finding = judgements.judge('revokeLatencyVerdict', merged);
  const walls = [...runProbes, ...points.flatMap((p) => p.probes)].map((o) => o.sentWall);
  const startedWall = Math.min(...walls);
  const finishedWall = Math.max(...walls);
  const check = checkResult('REVOKE-LATENCY', finding, { tier: result.tier, org: result.org, variant: 'vantages', startedWall, durationMs: finishedWall - startedWall });
  judgements.link(check, finding);
  return {
    check,
    judgements,
    observations: [...runProbes, ...points.flatMap((p) => p.probes)],
    sourceRunId: runId,
    vantages: [RUN_VANTAGE, ...points.map((p) => p.name)],
    edges: [...new Set(finding.data?.trials.map((t) => t.edge) ?? [])].sort(),
    stats: { ...stats, probes },
    startedWall,
    finishedWall,
    windowSeconds,
  };
}
