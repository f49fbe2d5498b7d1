/**
 * `tiergate k6 ingest`: reads the `--out json` output of one or many k6 runners and computes the
 * LOAD-THRESHOLDS verdict over all of them together, per tier: per org per window, admitted ≤ Limit
 * and 429 only at Remaining 0 (windows are the server's, named by X-RateLimit-Reset, so runners'
 * requests into one org's window add up), and the scenario's thresholds over every runner's samples
 * merged, which k6 itself cannot do (its thresholds are judged per instance).
 *
 * What is read: `http_req_duration` (latency and status, per phase), `dropped_iterations`, and the
 * scripts' own `tiergate_remaining` (status and rate-limit headers per response, scenarios/k6/lib).
 * Each `tiergate_remaining` sample becomes an Observation (ids in read order, deterministic), folded
 * into the same LoadAggregator the harness uses; `writeEvidence` re-reads the files for the few
 * observations a verdict cites, so reports can show them.
 */
import { checkResult } from '../checks/result.ts';
import { loadThresholdsVerdict, type LoadThresholdsData } from '../verdicts/load-thresholds.ts';
import { countOf } from '../util/phrases.ts';
import type { CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { TIER_NAMES, type Contract, type TierName } from '../contract/types.ts';
import { LoadAggregator, type LoadSummary, type PhaseSummary } from '../measure/aggregate.ts';
import { LatencyHistogram } from '../measure/histogram.ts';
import { LATENCY_POLICY } from '../measure/outcome.ts';
import { bucketTags, evaluateThresholds, type MetricBucket } from '../verdicts/support/threshold-eval.ts';
import type { Threshold } from '../config/thresholds.ts';
import { headerValue, NO_HEADER, type Observation, type RateLimitHeaders } from '../measure/observation.ts';
import { isRateLimitDialectName } from '../contract/rate-limit-dialects.ts';
import { rateLimitHeadersOf } from '../measure/rate-limit-reading.ts';
import type { HeaderNames } from '../contract/types.ts';
import { loadPhaseName, type LoadPhaseName } from '../measure/tags.ts';
import { readK6Points, type K6Point, type K6ReadStats } from './ndjson.ts';
import { observationSink } from '../measure/observation-file.ts';
import { REVOCATION_PROBE_METRIC } from './revocation-watch.ts';
import { UsageError } from '../util/errors.ts';

/** The scripts' per-response metric (scenarios/k6/lib/metrics.ts). */
export const REMAINING_METRIC = 'tiergate_remaining';
/** The tag prefix of a declared dialect's field as received (scenarios/k6/lib/metrics.ts FIELD_TAG_PREFIX). */
export const FIELD_TAG_PREFIX = 'field:';

export interface K6IngestOptions {
  readonly files: readonly string[];
  /** Quota window length the run used, seconds: bounds a plausible X-RateLimit-Reset. */
  readonly windowS: number;
  /** Each tier scenario's thresholds (a tier without any is judged on its windows alone). */
  readonly thresholds: Readonly<Partial<Record<TierName, readonly Threshold[]>>>;
  readonly contract?: Contract;
}

export interface K6Ingest {
  readonly checks: readonly CheckResult[];
  readonly tiers: readonly TierName[];
  readonly stats: K6ReadStats & { readonly runners: number; readonly responses: number };
  /** Epoch ms of the first and last sample. */
  readonly startedWall: number;
  readonly finishedWall: number;
  /** Windows seen on the busiest org. */
  readonly windowsUsed: number;
}

interface PhaseFold {
  readonly orgs: Set<string>;
  count: number;
  firstMs: number;
  lastMs: number;
  readonly statuses: Map<string, { status: number | null; count: number; latency: LatencyHistogram }>;
}

interface TierFold {
  readonly tier: TierName | null;
  readonly aggregator: LoadAggregator;
  readonly phases: Map<string, PhaseFold>;
  readonly dropped: Map<string, number>;
}

const tierOf = (tags: Readonly<Record<string, string>>): TierName | null =>
  (TIER_NAMES as readonly string[]).includes(tags.tier ?? '') ? (tags.tier as TierName) : null;
const phaseOf = (tags: Readonly<Record<string, string>>): LoadPhaseName =>
  loadPhaseName(tags.phase ?? tags.scenario ?? 'default');
/** k6 reports status 0 when no response came. */
const statusOf = (raw: string | undefined): number | null => {
  const n = raw === undefined ? 0 : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : null;
};
const tagOrNull = (raw: string | undefined): string | null =>
  raw === undefined || raw === 'none' || raw === '' ? null : raw;

/**
 * A sample's rate-limit fields. Under §8's X-RateLimit-* the tags are the headers (Remaining the
 * value); under the dialect a sample names (`dialect`), its fields as received (`field:<name>`) are
 * read by the contract's parser as every Observation's are (rateLimitHeadersOf), the policy read
 * the one the script was told (`policy`), so the k6 figures are only the live metric's.
 */
export function k6RateLimit(p: K6Point, names: HeaderNames): RateLimitHeaders {
  const dialect = p.tags.dialect;
  if (dialect !== undefined && isRateLimitDialectName(dialect) && dialect !== 'x-ratelimit') {
    const fields: Record<string, string> = {};
    for (const [tag, value] of Object.entries(p.tags))
      if (tag.startsWith(FIELD_TAG_PREFIX)) fields[tag.slice(FIELD_TAG_PREFIX.length)] = value;
    return rateLimitHeadersOf(fields, names, { dialect, policies: p.tags.policy ? { read: p.tags.policy } : {} });
  }
  return {
    limit: headerValue(tagOrNull(p.tags.limit)),
    remaining: p.value >= 0 && Number.isInteger(p.value) ? headerValue(String(p.value)) : NO_HEADER,
    reset: headerValue(tagOrNull(p.tags.window)),
    retryAfter: NO_HEADER,
  };
}

/** Turns `tiergate_remaining` samples into Observations, ids in read order from 1. */
export class K6Observations {
  #nextId = 1;
  #t0: number | null = null;

  constructor(private readonly names: HeaderNames = recruitingApi.headers) {}

  fromPoint(p: K6Point): Observation | null {
    if (p.metric !== REMAINING_METRIC) return null;
    this.#t0 ??= p.timeMs;
    const at = p.timeMs - this.#t0;
    const status = statusOf(p.tags.status);
    return {
      id: this.#nextId++,
      check: 'LOAD-THRESHOLDS',
      phase: phaseOf(p.tags),
      tier: tierOf(p.tags),
      org: p.tags.org ?? null,
      key: null,
      edge: p.tags.instance_id !== undefined ? `k6-runner-${p.tags.instance_id}` : `k6-file-${p.file + 1}`,
      method: 'GET',
      path: p.tags.name ?? '',
      intendedAt: null,
      sentAt: at,
      headersAt: status === null ? null : at,
      doneAt: at,
      sentWall: p.timeMs,
      status,
      rateLimit: k6RateLimit(p, this.names),
      date: tagOrNull(p.tags.date),
      edgeNode: null,
      contentType: null,
      bodyBytes: 0,
      bodyExcerpt: '',
      body: null,
      error:
        status === null
          ? { code: p.tags.error_code ? `K6_${p.tags.error_code}` : 'NO_RESPONSE', message: 'k6 recorded no response' }
          : null,
    };
  }
}

export async function ingestK6(options: K6IngestOptions): Promise<K6Ingest> {
  const contract = options.contract ?? recruitingApi;
  const folds = new Map<TierName | null, TierFold>();
  const runners = new Set<string>();
  const factory = new K6Observations(contract.headers);
  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = Number.NEGATIVE_INFINITY;
  const fold = (tier: TierName | null): TierFold => {
    let f = folds.get(tier);
    if (!f) {
      f = { tier, aggregator: new LoadAggregator(options.windowS), phases: new Map(), dropped: new Map() };
      folds.set(tier, f);
    }
    return f;
  };
  let remainingSamples = 0;
  let revocationSamples = 0;
  const stats = await readK6Points(options.files, (p) => {
    if (p.metric === REVOCATION_PROBE_METRIC) revocationSamples += 1;
    if (p.metric === REMAINING_METRIC) remainingSamples += 1;
    runners.add(`${p.file}:${p.tags.instance_id ?? ''}`);
    firstMs = Math.min(firstMs, p.timeMs);
    lastMs = Math.max(lastMs, p.timeMs);
    if (p.metric === 'http_req_duration') {
      foldRequestDuration(fold(tierOf(p.tags)).phases, p);
    } else if (p.metric === 'dropped_iterations') {
      const dropped = fold(tierOf(p.tags)).dropped;
      dropped.set(phaseOf(p.tags), (dropped.get(phaseOf(p.tags)) ?? 0) + p.value);
    } else {
      const o = factory.fromPoint(p);
      if (o) fold(o.tier).aggregator.add(o);
    }
  });
  if (revocationSamples > 0 && remainingSamples === 0) {
    throw new UsageError(
      `k6 ingest: ${options.files.join(', ')} ${options.files.length === 1 ? 'is' : 'are'} the output of the revocation vantage script (revocation.js): judge it with the run it watched, k6 ingest --revocation RUN-DIR FILE...`,
    );
  }
  const checks: CheckResult[] = [];
  let responses = 0;
  let windowsUsed = 0;
  const judged: JudgedRun = { options, contract, runners: runners.size, stats, firstMs };
  for (const f of folds.values()) {
    const summary = k6Summary(f, options.windowS, firstMs);
    responses += summary.phases.reduce((n, p) => n + p.count, 0);
    const perOrg = new Map<string, number>();
    for (const w of summary.windows) perOrg.set(w.org, (perOrg.get(w.org) ?? 0) + 1);
    windowsUsed = Math.max(windowsUsed, ...perOrg.values());
    checks.push(tierCheck(f, summary, judged));
  }
  const tiers = TIER_NAMES.filter((t) => folds.has(t));
  const order = (c: CheckResult) => (c.tier === null ? TIER_NAMES.length : TIER_NAMES.indexOf(c.tier));
  return {
    checks: checks.sort((a, b) => order(a) - order(b)),
    tiers,
    stats: { ...stats, runners: runners.size, responses },
    startedWall: Number.isFinite(firstMs) ? firstMs : 0,
    finishedWall: Number.isFinite(lastMs) ? lastMs : 0,
    windowsUsed,
  };
}

/** One `http_req_duration` sample, counted in its phase: the phase's span, orgs, and status buckets. */
function foldRequestDuration(phases: Map<string, PhaseFold>, p: K6Point): void {
  const name = phaseOf(p.tags);
  let phase = phases.get(name);
  if (!phase) {
    phase = { orgs: new Set(), count: 0, firstMs: p.timeMs, lastMs: p.timeMs, statuses: new Map() };
    phases.set(name, phase);
  }
  phase.count += 1;
  phase.firstMs = Math.min(phase.firstMs, p.timeMs - p.value);
  phase.lastMs = Math.max(phase.lastMs, p.timeMs);
  if (p.tags.org) phase.orgs.add(p.tags.org);
  const status = statusOf(p.tags.status);
  const key = String(status ?? '');
  let bucket = phase.statuses.get(key);
  if (!bucket) {
    bucket = { status, count: 0, latency: new LatencyHistogram() };
    phase.statuses.set(key, bucket);
  }
  bucket.count += 1;
  bucket.latency.record(p.value);
}

/** What every tier's verdict is judged with: the options, the contract, and what the files held. */
interface JudgedRun {
  readonly options: K6IngestOptions;
  readonly contract: Contract;
  readonly runners: number;
  readonly stats: K6ReadStats;
  /** Epoch ms of the first sample (+Infinity when there was none). */
  readonly firstMs: number;
}

/** What a k6 result was judged across: the runners and files read, and the lines in them that were not k6's. */
export interface K6Sources {
  readonly runners: number;
  readonly files: number;
  readonly skippedLines: number;
  readonly malformedLines: number;
}

/** `data` of a LOAD-THRESHOLDS result judged from k6 output: the verdict's, and what it was read from. */
export type K6LoadThresholdsData = LoadThresholdsData & { readonly sources: K6Sources };

/** How the sources were judged together, as the result's notes. */
function sourcesNotes(s: K6Sources): string[] {
  return [
    `Judged across ${countOf(s.runners, 'k6 runner')} together (${countOf(s.files, 'file')}): windows add up every runner's requests to an org, and thresholds are over all samples merged.`,
    ...(s.skippedLines + s.malformedLines > 0
      ? [`${s.skippedLines} non-k6 line(s) skipped and ${s.malformedLines} malformed line(s) ignored`]
      : []),
  ];
}

/** A tier's LOAD-THRESHOLDS result: its windows, and its scenario's thresholds over every runner's samples. */
function tierCheck(f: TierFold, summary: LoadSummary, run: JudgedRun): CheckResult {
  const { options, contract, runners, stats, firstMs } = run;
  const buckets: MetricBucket[] = summary.phases.flatMap((p) =>
    p.buckets.map((b) => ({ tags: bucketTags(f.tier, p.phase, b.status), count: b.count, latency: b.latency })),
  );
  const starts = summary.phases.map((p) => p.startedAt);
  const ends = summary.phases.map((p) => p.endedAt);
  const durationS = starts.length > 0 ? Math.max(0, Math.max(...ends) - Math.min(...starts)) / 1000 : 0;
  const dropped = [...f.dropped.entries()].map(([phase, count]) => ({ tags: { tier: f.tier ?? '', phase }, count }));
  const thresholds = f.tier ? (options.thresholds[f.tier] ?? []) : [];
  const sources: K6Sources = {
    runners,
    files: options.files.length,
    skippedLines: stats.skipped,
    malformedLines: stats.malformed,
  };
  const finding = loadThresholdsVerdict({
    summary,
    thresholds: evaluateThresholds(thresholds, { buckets, dropped, durationS }),
    figures: f.tier ? { [f.tier]: contract.tiers[f.tier].read } : {},
    dropped: dropped.reduce((n, d) => n + d.count, 0),
    notes: [LATENCY_POLICY.k6, ...sourcesNotes(sources)],
  });
  const data: K6LoadThresholdsData = { ...finding.data!, sources };
  return checkResult(
    'LOAD-THRESHOLDS',
    { ...finding, data },
    {
      tier: f.tier,
      org: null,
      variant: 'k6',
      startedWall: Number.isFinite(firstMs) ? firstMs : 0,
      durationMs: durationS * 1000,
    },
  );
}

/** The aggregator's windows, with phases (latency, statuses) from k6's own request durations. */
function k6Summary(f: TierFold, windowS: number, t0: number): LoadSummary {
  const base = f.aggregator.summary();
  const unattributed = new Map(base.phases.map((p) => [p.phase, p]));
  const phases: PhaseSummary[] = [...f.phases.entries()].map(([phase, p]) => ({
    tier: f.tier,
    phase,
    orgs: p.orgs.size,
    count: p.count,
    startedAt: p.firstMs - t0,
    endedAt: p.lastMs - t0,
    startedWall: p.firstMs,
    buckets: [...p.statuses.values()],
    latencyBasis: { intended: 0, sent: p.count },
    unattributed: unattributed.get(phase)?.unattributed ?? 0,
    unattributedIds: unattributed.get(phase)?.unattributedIds ?? [],
  }));
  return { windowS, phases, windows: base.windows };
}

/** Re-reads the files and writes the observations with the given ids as NDJSON (gzip where `outFile` ends in .gz); returns how many. */
export async function writeEvidence(
  files: readonly string[],
  ids: ReadonlySet<number>,
  outFile: string,
): Promise<number> {
  const out = observationSink(outFile);
  const factory = new K6Observations();
  let written = 0;
  await readK6Points(files, (p) => {
    const o = factory.fromPoint(p);
    if (o && ids.has(o.id)) {
      out.write(`${JSON.stringify(o)}\n`);
      written += 1;
    }
  });
  await out.end();
  return written;
}
