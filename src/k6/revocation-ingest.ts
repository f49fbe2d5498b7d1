/**
 * `tiergate k6 ingest --revocation RUN-DIR FILE...`: the revocation trials of a tiergate run, judged
 * again as seen from every vantage point that probed them (scenarios/k6/revocation.ts). The run's
 * trials come from its own folder, as `tiergate verify` reads them: the REVOKE-LATENCY judgement and
 * the observations it refers to. Each vantage's `tiergate_revocation_probe` samples become
 * Observations (ids after the run's), grouped by the vantage they name; REVOKE-LATENCY is then
 * judged by the same function, on the run's trials and every vantage's probes together.
 */
import { access } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Contract } from '../contract/types.ts';
import { NO_HEADER, type Observation } from '../measure/observation.ts';
import { JudgementLog, JUDGEMENTS_FILE, withSharedArgs } from '../suite/judgements.ts';
import { loadResults } from '../results/load.ts';
import { readJudgements, readObservations } from '../suite/judgement-file.ts';
import { UsageError } from '../util/errors.ts';
import { decodeArgs, MissingObservation, referenced } from '../verdicts/replay.ts';
import type { RevocationEvidence } from '../verdicts/support/revocation-evidence.ts';
import { checkResult } from '../checks/result.ts';
import type { VantagePoint } from '../verdicts/support/vantage-bounds.ts';
import { readK6Points, type K6Point, type K6ReadStats } from './ndjson.ts';
import { REVOCATION_PROBE_METRIC } from './revocation-watch.ts';
import { OBSERVATIONS_FILE } from '../measure/observation-file.ts';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

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

const tagOrNull = (raw: string | undefined): string | null =>
  raw === undefined || raw === 'none' || raw === '' ? null : raw;

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
async function runEvidence(
  runDir: string,
  contract: Contract,
): Promise<{
  evidence: RevocationEvidence;
  byId: ReadonlyMap<number, Observation>;
  result: CheckResult;
  runId: string;
  windowSeconds: number;
  span: readonly [number, number];
}> {
  const unfit = (why: string) => new UsageError(`k6 ingest --revocation ${runDir}: ${why}`);
  if (!(await exists(join(runDir, 'results.json'))))
    throw unfit(
      'not a run folder (it has no results.json): give the folder a tiergate run wrote, e.g. reports/<run-id>',
    );
  const results = await loadResults(join(runDir, 'results.json'));
  if (results.checks.some((c) => c.id === 'REVOKE-LATENCY' && c.variant === 'vantages'))
    throw unfit("that folder is itself a merge of vantage points; give the run's own folder");
  const result = results.checks.find((c) => c.id === 'REVOKE-LATENCY');
  if (!result) throw unfit('the run has no REVOKE-LATENCY result; give the folder of a run that ran revocation trials');
  const problems: string[] = [];
  const read = await readJudgements(join(runDir, JUDGEMENTS_FILE), problems);
  if (read === null)
    throw unfit(`no ${JUDGEMENTS_FILE} (a run of tiergate before it kept its judgements): run the trials again`);
  const { records } = withSharedArgs(read);
  const record = records.find(
    (r) =>
      r.fn === 'revokeLatencyVerdict' &&
      r.link?.check === 'REVOKE-LATENCY' &&
      r.link.tier === result.tier &&
      r.link.org === result.org,
  );
  if (!record?.args) {
    throw unfit(
      `its REVOKE-LATENCY was ${result.verdict} without trials to judge (${result.actual}); give the folder of a run whose trials ran`,
    );
  }
  if (!(await exists(join(runDir, OBSERVATIONS_FILE))))
    throw unfit(`no ${OBSERVATIONS_FILE}: the trials' probes are missing from the folder`);
  const source = await readObservations(join(runDir, OBSERVATIONS_FILE), referenced(record.args));
  let evidence: RevocationEvidence;
  try {
    [evidence] = decodeArgs(record.args, source, contract) as [RevocationEvidence];
  } catch (error) {
    if (error instanceof MissingObservation)
      throw unfit(`${error.message}: the folder is not as the run wrote it (tiergate verify names what changed)`);
    throw error;
  }
  return {
    evidence,
    byId: source.byId,
    result,
    runId: results.runId,
    windowSeconds: results.windowSeconds,
    span: [Date.parse(results.startedAt), Date.parse(results.finishedAt)],
  };
}

export async function ingestRevocation(options: RevocationIngestOptions): Promise<RevocationIngest> {
  const contract = options.contract ?? recruitingApi;
  const { evidence, byId, result, runId, windowSeconds, span } = await runEvidence(options.runDir, contract);
  const runProbes = evidence.runs.flatMap((run) => run.probes.map((p) => byId.get(p.id)!)).sort((a, b) => a.id - b.id);
  let nextId = runProbes.reduce((max, o) => Math.max(max, o.id), 0) + 1;
  // A vantage is a name in one file: two machines sharing a name (k6-operator runners, say) keep clocks of their own.
  const byVantage = new Map<string, { readonly name: string; readonly file: number; readonly probes: Observation[] }>();
  const perFile = options.files.map(() => 0);
  const stats = await readK6Points(options.files, (p) => {
    if (p.metric !== REVOCATION_PROBE_METRIC) return;
    const name = p.tags.vantage || `file ${p.file + 1}`;
    const key = `${p.file}\u0000${name}`;
    const own = byVantage.get(key) ?? { name, file: p.file, probes: [] };
    own.probes.push(vantageObservation(p, nextId++));
    byVantage.set(key, own);
    perFile[p.file]! += 1;
  });
  const empty = options.files.filter((_, i) => perFile[i] === 0);
  if (empty.length > 0) {
    throw new UsageError(
      `k6 ingest --revocation: ${empty.join(', ')} hold${empty.length === 1 ? 's' : ''} no ${REVOCATION_PROBE_METRIC} sample: give the k6 --out json of the revocation script (tiergate k6 export --revocation) only`,
    );
  }
  const groups = [...byVantage.values()];
  const shared = (name: string) => groups.filter((g) => g.name === name).length > 1;
  const points: VantagePoint[] = groups
    .map((g) => ({
      name: shared(g.name) ? `${g.name} (${basename(options.files[g.file]!)})` : g.name,
      probes: g.probes,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  if (points.some((p) => p.name === RUN_VANTAGE))
    throw new UsageError(
      `k6 ingest --revocation: a vantage is named "${RUN_VANTAGE}", the run's own name: give it another (-e VANTAGE=...)`,
    );
  const probes = perFile.reduce((a, b) => a + b, 0);
  const merged: RevocationEvidence = {
    ...evidence,
    vantages: { run: RUN_VANTAGE, runProbes, points, dateLagMs: options.dateLagMs },
  };
  const judgements = new JudgementLog(contract);
  const finding = judgements.judge('revokeLatencyVerdict', merged);
  // Walls of the run's own probes (its clock): a vantage's are on clocks of their own. A loop: hundreds of thousands of probes overflow a spread.
  let [startedWall, finishedWall] = span;
  for (const o of runProbes) {
    startedWall = Math.min(startedWall, o.sentWall);
    finishedWall = Math.max(finishedWall, o.sentWall);
  }
  const check = checkResult('REVOKE-LATENCY', finding, {
    tier: result.tier,
    org: result.org,
    variant: 'vantages',
    startedWall,
    durationMs: finishedWall - startedWall,
  });
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
