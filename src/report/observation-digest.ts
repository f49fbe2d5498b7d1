/**
 * One streaming pass over the observations file: keeps only the observations a report shows as
 * evidence, plus bounded aggregates (responses over time by status class, latency histograms per
 * check, the Limits announced to the organizations asked about). Memory stays bounded however long
 * the run was.
 */
import { access } from 'node:fs/promises';
import * as hdr from 'hdr-histogram-js';
import { quotaClassOfPath } from '../contract/lookup.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { TOO_MANY_REQUESTS, type QuotaClass } from '../contract/types.ts';
import { isAdmittedStatus } from '../measure/observation.ts';
import { observationLines } from '../measure/observation-file.ts';

export const STATUS_CLASSES = [
  'ok',
  'redirect',
  'unauthorized',
  'forbidden',
  'rate-limited',
  'client-error',
  'server-error',
  'no-response',
] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

export const STATUS_CLASS_LABEL: Readonly<Record<StatusClass, string>> = {
  ok: '2xx',
  redirect: '3xx',
  unauthorized: '401',
  forbidden: '403',
  'rate-limited': '429',
  'client-error': 'other 4xx',
  'server-error': '5xx',
  'no-response': 'no response',
};

export function statusClass(status: number | null): StatusClass {
  if (status === null) return 'no-response';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === TOO_MANY_REQUESTS) return 'rate-limited';
  if (status >= 500) return 'server-error';
  if (status >= 400) return 'client-error';
  if (status >= 300) return 'redirect';
  return 'ok';
}

/** An observation as the evidence tables show it: raw header values, as received. */
export interface EvidenceRow {
  readonly id: number;
  readonly check: string;
  readonly phase: string;
  readonly edge: string;
  readonly edgeNode: string | null;
  readonly method: string;
  readonly path: string;
  /** Monotonic ms since the run's epoch. */
  readonly sentAt: number;
  readonly headersAt: number | null;
  /** Client wall clock at send, epoch ms. */
  readonly sentWall: number | null;
  readonly status: number | null;
  readonly limit: string | null;
  readonly remaining: string | null;
  readonly reset: string | null;
  readonly retryAfter: string | null;
  readonly error: string | null;
}

export interface TimelineBucket {
  /** Bucket start, ms since the run's epoch. */
  readonly startMs: number;
  readonly counts: Readonly<Record<StatusClass, number>>;
}

/** Latency = headersAt − (intendedAt ?? sentAt), ms, from an HDR histogram (3 significant digits). */
export interface LatencySummary {
  readonly check: string;
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** An X-RateLimit-Limit value announced to an organization for a quota class, and on how many of its answers. */
export interface AnnouncedLimit {
  readonly org: string;
  readonly quotaClass: QuotaClass;
  readonly limit: number;
  readonly count: number;
}

export interface ObservationDigest {
  /** False when the file was not there (results copied without their observations). */
  readonly available: boolean;
  readonly count: number;
  readonly malformedLines: number;
  readonly evidence: ReadonlyMap<number, EvidenceRow>;
  readonly bucketMs: number;
  readonly timeline: readonly TimelineBucket[];
  readonly latency: readonly LatencySummary[];
  /** The Limits announced to the organizations asked about, on their admitted and 429 answers (the organization's own quota). */
  readonly announced: readonly AnnouncedLimit[];
}

const BUCKET_STEPS_MS = [
  10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
];
const TARGET_BUCKETS = 80;
/** Distinct Limit values kept per organization and class: a Limit that varies more is shown by its first ones. */
const LIMIT_VALUES_KEPT = 16;
/** Latencies are recorded in microseconds, up to an hour. */
const MAX_LATENCY_US = 3_600_000_000;

/** The smallest step that covers `durationMs` in at most about TARGET_BUCKETS bars. */
export function chooseBucketMs(durationMs: number): number {
  for (const step of BUCKET_STEPS_MS) if (durationMs / step <= TARGET_BUCKETS) return step;
  return Math.ceil(durationMs / TARGET_BUCKETS / 600_000) * 600_000;
}

export function emptyDigest(bucketMs: number): ObservationDigest {
  return {
    available: false,
    count: 0,
    malformedLines: 0,
    evidence: new Map(),
    bucketMs,
    timeline: [],
    latency: [],
    announced: [],
  };
}

function emptyCounts(): Record<StatusClass, number> {
  return Object.fromEntries(STATUS_CLASSES.map((c) => [c, 0])) as Record<StatusClass, number>;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};
const rawHeader = (headers: Record<string, unknown>, name: string): string | null => str(obj(headers[name]).raw);

function evidenceRow(o: Record<string, unknown>, id: number): EvidenceRow {
  const rl = obj(o.rateLimit);
  const error = o.error === null || o.error === undefined ? null : obj(o.error);
  return {
    id,
    check: str(o.check) ?? '',
    phase: str(o.phase) ?? '',
    edge: str(o.edge) ?? '',
    edgeNode: str(o.edgeNode),
    method: str(o.method) ?? '',
    path: str(o.path) ?? '',
    sentAt: num(o.sentAt) ?? 0,
    headersAt: num(o.headersAt),
    sentWall: num(o.sentWall),
    status: num(o.status),
    limit: rawHeader(rl, 'limit'),
    remaining: rawHeader(rl, 'remaining'),
    reset: rawHeader(rl, 'reset'),
    retryAfter: rawHeader(rl, 'retryAfter'),
    error: error ? `${str(error.code) ?? 'ERROR'}: ${str(error.message) ?? ''}` : null,
  };
}

/**
 * Streams `file` once. `wanted` are the observation ids the report shows as evidence;
 * `runDurationMs` sizes the timeline's buckets; `announcedTo` names the organizations whose announced
 * Limits to gather.
 */
export async function digestObservations(
  file: string,
  wanted: ReadonlySet<number>,
  runDurationMs: number,
  announcedTo: ReadonlySet<string> = new Set(),
): Promise<ObservationDigest> {
  const bucketMs = chooseBucketMs(Math.max(runDurationMs, 1));
  try {
    await access(file);
  } catch {
    return emptyDigest(bucketMs);
  }
  const evidence = new Map<number, EvidenceRow>();
  const buckets = new Map<number, Record<StatusClass, number>>();
  const histograms = new Map<string, hdr.Histogram>();
  const announced = new Map<string, Map<number, AnnouncedLimit>>();
  let count = 0;
  let malformedLines = 0;

  for await (const line of observationLines(file)) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      malformedLines += 1;
      continue;
    }
    const o = obj(parsed);
    const id = num(o.id);
    const sentAt = num(o.sentAt);
    if (id === null || sentAt === null) {
      malformedLines += 1;
      continue;
    }
    count += 1;
    if (wanted.has(id)) evidence.set(id, evidenceRow(o, id));

    const status = num(o.status);
    const org = str(o.org);
    if (org !== null && announcedTo.has(org)) countAnnounced(announced, org, o, status);
    const index = Math.max(0, Math.floor(sentAt / bucketMs));
    let counts = buckets.get(index);
    if (!counts) buckets.set(index, (counts = emptyCounts()));
    counts[statusClass(status)] += 1;

    recordLatency(histograms, o, sentAt);
  }

  const timeline = toTimeline(buckets, bucketMs);

  const latency = latencySummaries(histograms);
  return {
    available: true,
    count,
    malformedLines,
    evidence,
    bucketMs: timeline.bucketMs,
    timeline: timeline.buckets,
    latency,
    announced: [...announced.values()].flatMap((values) => [...values.values()]),
  };
}

/** An answer's latency (headersAt − (intendedAt ?? sentAt)), into its check's histogram; none without headers. */
function recordLatency(histograms: Map<string, hdr.Histogram>, o: Record<string, unknown>, sentAt: number): void {
  const headersAt = num(o.headersAt);
  if (headersAt === null) return;
  const from = num(o.intendedAt) ?? sentAt;
  const check = str(o.check) ?? '?';
  let histogram = histograms.get(check);
  if (!histogram) {
    histogram = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: MAX_LATENCY_US,
      numberOfSignificantValueDigits: 3,
    });
    histograms.set(check, histogram);
  }
  histogram.recordValue(Math.min(MAX_LATENCY_US, Math.max(1, Math.round((headersAt - from) * 1000))));
}

/** Each check's latency percentiles, in milliseconds; destroys the histograms it reads. */
function latencySummaries(histograms: ReadonlyMap<string, hdr.Histogram>): LatencySummary[] {
  const latency: LatencySummary[] = [];
  for (const [check, h] of histograms) {
    // HDR percentiles are the top of their bucket, which may lie above the exact maximum: clamp, so
    // a table never shows p99 > max.
    const at = (p: number) => Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000;
    latency.push({ check, count: h.totalCount, p50: at(50), p90: at(90), p99: at(99), max: h.maxValue / 1000 });
    h.destroy();
  }
  return latency;
}

/**
 * One answer's Limit, counted for its organization and class. Only admitted and 429 answers: a
 * 401's Limit is the anonymous bucket's (assumption limit-header-class), not the organization's.
 */
function countAnnounced(
  announced: Map<string, Map<number, AnnouncedLimit>>,
  org: string,
  o: Record<string, unknown>,
  status: number | null,
): void {
  const limit = num(obj(obj(o.rateLimit).limit).value);
  if (limit === null || !(isAdmittedStatus(status) || status === TOO_MANY_REQUESTS)) return;
  const quotaClass = quotaClassOfPath(recruitingApi, str(o.path) ?? '');
  const key = `${org}\u0000${quotaClass}`;
  let values = announced.get(key);
  if (!values) announced.set(key, (values = new Map()));
  const seen = values.get(limit);
  if (seen) values.set(limit, { ...seen, count: seen.count + 1 });
  else if (values.size < LIMIT_VALUES_KEPT) values.set(limit, { org, quotaClass, limit, count: 1 });
}

/** Contiguous buckets from 0; re-bucketed coarser when the run outlasted the duration it was sized for. */
function toTimeline(
  buckets: ReadonlyMap<number, Record<StatusClass, number>>,
  bucketMs: number,
): { bucketMs: number; buckets: TimelineBucket[] } {
  let last = -1;
  for (const index of buckets.keys()) last = Math.max(last, index);
  let width = bucketMs;
  let merged = buckets;
  if (last + 1 > 2 * TARGET_BUCKETS) {
    width = chooseBucketMs((last + 1) * bucketMs);
    const coarse = new Map<number, Record<StatusClass, number>>();
    for (const [index, counts] of buckets) {
      const to = Math.floor((index * bucketMs) / width);
      let target = coarse.get(to);
      if (!target) coarse.set(to, (target = emptyCounts()));
      for (const c of STATUS_CLASSES) target[c] += counts[c];
    }
    merged = coarse;
    last = Math.floor((last * bucketMs) / width);
  }
  const out: TimelineBucket[] = [];
  for (let i = 0; i <= last; i += 1) out.push({ startMs: i * width, counts: merged.get(i) ?? emptyCounts() });
  return { bucketMs: width, buckets: out };
}
