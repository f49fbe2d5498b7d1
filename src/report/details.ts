/**
 * Each check's detail as the report shows it: the requirement and its basis, then per tier and
 * variant the verdict, expected vs actual, notes, figures, charts and the deciding observations.
 */
import type { FindingData, Verdict } from '../catalogue/types.ts';
import type { Assumption } from '../contract/types.ts';
import type { CheckResult } from '../catalogue/types.ts';
import { concurrencyChartData, concurrencyTimelineChart } from './charts/concurrency.ts';
import { quotaChart, quotaChartData } from './charts/quota.ts';
import { revocationCdfChart, revocationChartData, revocationTrialsChart } from './charts/revocation.ts';
import { formatMs, type Svg } from './charts/svg.ts';
import { checkAnchor, resultAnchor, VERDICT_SEVERITY, worstVerdict } from './matrix.ts';
import type { EvidenceRow, ObservationDigest } from './observation-digest.ts';
import { statusClass } from './observation-digest.ts';
import { VERDICT_LABEL, VERDICT_SYMBOL } from './palette.ts';
import { whyLines } from '../catalogue/reasons/index.ts';

/** Evidence lists longer than this show their first and last halves. */
export const EVIDENCE_SHOWN = 40;

/** The evidence ids a report shows for one result (the first and last EVIDENCE_SHOWN / 2 when long). */
export function shownEvidence(evidence: readonly number[]): readonly number[] {
  if (evidence.length <= EVIDENCE_SHOWN) return evidence;
  const half = EVIDENCE_SHOWN / 2;
  return [...evidence.slice(0, half), ...evidence.slice(-half)];
}

export interface VerdictView {
  readonly verdict: Verdict;
  readonly label: string;
  readonly symbol: string;
}

export const verdictView = (verdict: Verdict): VerdictView => ({
  verdict,
  label: VERDICT_LABEL[verdict],
  symbol: VERDICT_SYMBOL[verdict],
});

export interface EvidenceRowView {
  readonly id: number;
  readonly gap: number | null;
  readonly time: string;
  readonly offset: string;
  readonly edge: string;
  readonly request: string;
  readonly phase: string;
  readonly status: string;
  readonly statusClass: string;
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
  readonly retryAfter: string;
  readonly missing: boolean;
}

/** The deciding observations of a check result or of a limiter profile's answer, as the report shows them. */
export interface EvidenceView {
  /** Rows from the observations file ("not in the observations file" for an id it lacks); empty when the file was not there. */
  readonly evidence: readonly EvidenceRowView[];
  readonly evidenceCount: number;
  /** When the observations file was not there: the ids, listed. */
  readonly evidenceNote: string | null;
}

export interface ResultView extends EvidenceView {
  readonly anchor: string;
  readonly tier: string;
  readonly variant: string;
  readonly org: string | null;
  readonly verdict: VerdictView;
  readonly expected: string;
  readonly actual: string;
  readonly notes: readonly string[];
  readonly figures: readonly { readonly name: string; readonly value: string }[];
  readonly charts: readonly { readonly caption: string; readonly svg: Svg }[];
  readonly startedAt: string;
  readonly duration: string;
}

export interface CheckGroupView {
  readonly id: string;
  readonly anchor: string;
  readonly title: string;
  readonly spec: string;
  readonly requirement: string;
  readonly basis: 'spec' | 'assumption';
  readonly assumptions: readonly { readonly id: string; readonly statement: string; readonly anchor: string }[];
  readonly verdict: VerdictView;
  readonly open: boolean;
  readonly results: readonly ResultView[];
}

const dash = (v: string | null): string => (v === null ? '—' : v);

function timeOfDay(wall: number | null): string {
  if (wall === null) return '';
  return new Date(wall).toISOString().slice(11, 23);
}

function evidenceRowView(row: EvidenceRow, gap: number | null): EvidenceRowView {
  const edge = row.edgeNode && row.edgeNode !== row.edge ? `${row.edge} (${row.edgeNode})` : row.edge;
  return {
    id: row.id,
    gap,
    time: timeOfDay(row.sentWall),
    offset: `+${(row.sentAt / 1000).toFixed(3)} s`,
    edge,
    request: `${row.method} ${row.path}`,
    phase: row.phase,
    status: row.status === null ? (row.error ?? 'no response') : String(row.status),
    statusClass: statusClass(row.status),
    limit: dash(row.limit),
    remaining: dash(row.remaining),
    reset: dash(row.reset),
    retryAfter: dash(row.retryAfter),
    missing: false,
  };
}

function missingRow(id: number, gap: number | null): EvidenceRowView {
  return {
    id,
    gap,
    time: '',
    offset: '',
    edge: '',
    request: 'not in the observations file',
    phase: '',
    status: '',
    statusClass: 'missing',
    limit: '',
    remaining: '',
    reset: '',
    retryAfter: '',
    missing: true,
  };
}

export function evidenceView(evidence: readonly number[], digest: ObservationDigest): EvidenceView {
  const ids = shownEvidence(evidence);
  const omitted = evidence.length - ids.length;
  const rows = ids.map((id, i) => {
    const gap = omitted > 0 && i === EVIDENCE_SHOWN / 2 ? omitted : null;
    const row = digest.evidence.get(id);
    return row ? evidenceRowView(row, gap) : missingRow(id, gap);
  });
  let note: string | null = null;
  if (evidence.length > 0 && !digest.available) {
    const listed = evidence.slice(0, 20).join(', ');
    note = `the observations file was not available when this report was rendered; the deciding observations are ids ${listed}${evidence.length > 20 ? ', …' : ''}.`;
  }
  return { evidence: digest.available ? rows : [], evidenceCount: evidence.length, evidenceNote: note };
}

/** Names of the scalar figures checks commonly report, as a reader would say them. */
const FIGURE_NAMES: Readonly<Record<string, string>> = {
  limit: 'Limit',
  first429: 'first 429 at request',
  slaMs: 'SLA',
};

/** `firstRejectedMs` → "first rejected"; a figure ending in Ms is shown as a duration. */
function figure(name: string, value: unknown): { name: string; value: string } {
  const isMs = /[a-z]Ms$/.test(name) && typeof value === 'number';
  const label =
    FIGURE_NAMES[name] ?? (isMs ? name.slice(0, -2) : name).replace(/([a-z])([A-Z0-9])/g, '$1 $2').toLowerCase();
  const shown = value === null ? '—' : isMs ? formatMs(value as number) : String(value);
  return { name: label, value: shown };
}

/** Scalar entries of `data` (the charts draw the arrays). */
function figures(data: FindingData | undefined): ResultView['figures'] {
  if (!data) return [];
  return Object.entries(data)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .map(([name, v]) => figure(name, v));
}

/** `2026-03-02 10:00:21 UTC` (the raw text when it is not a date). */
const utcTime = (iso: string): string =>
  Number.isNaN(Date.parse(iso)) ? iso : `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

function charts(result: CheckResult, label: string): ResultView['charts'] {
  const out: { caption: string; svg: Svg }[] = [];
  const quota = quotaChartData(result);
  if (quota) {
    const expected = quota.limit + 1;
    out.push({
      caption: `X-RateLimit-Remaining per request. The first 429 should be request #${expected}; it was ${quota.first429 === null ? 'never seen' : `#${quota.first429}`}.`,
      svg: quotaChart(quota, `${label}: Remaining against request number`),
    });
  }
  const held = concurrencyChartData(result);
  if (held) {
    out.push({
      caption:
        'The measurement, request by request: a bar from each request’s send to its answer; the band is when the extra had to leave to meet every held upload on the server (the notes give the inequalities and their figures). The extra should not be served beside the held uploads: refused while they are all in service, or answered only as the first of them finishes; the control, with one fewer held, is answered at once.',
      svg: concurrencyTimelineChart(held, `${label}: the held uploads, the control and the extra`),
    });
  }
  const revocation = revocationChartData(result);
  if (revocation) {
    const uppers = revocation.trials.map((t) => t.upperMs);
    const worst = uppers.some((u) => u === null) ? null : Math.max(...(uppers as number[]));
    out.push({
      caption: `When each edge began rejecting the revoked key, per trial: the bar spans the last admitted probe's send time to the first rejected probe's receive time; the mark is the upper bound. Worst upper bound: ${worst === null ? 'an edge never rejected' : formatMs(worst)}.`,
      svg: revocationTrialsChart(revocation, `${label}: revocation bounds per trial and edge`),
    });
    out.push({
      caption:
        'Distribution of the upper bounds per edge (empirical CDF): the curve should reach 100 % left of the SLA line.',
      svg: revocationCdfChart(revocation, `${label}: distribution of the upper bounds`),
    });
  }
  return out;
}

function resultView(result: CheckResult, digest: ObservationDigest): ResultView {
  const tier = result.tier ?? 'all tiers';
  return {
    anchor: resultAnchor(result),
    tier,
    variant: result.variant,
    org: result.org,
    verdict: verdictView(result.verdict),
    expected: result.expected,
    actual: result.actual,
    notes: whyLines(result),
    figures: figures(result.data),
    charts: charts(result, `${result.id} [${tier}]${result.variant ? ` ${result.variant}` : ''}`),
    ...evidenceView(result.evidence, digest),
    startedAt: utcTime(result.startedAt),
    duration: formatMs(result.durationMs),
  };
}

export function checkGroups(
  ids: readonly string[],
  checks: readonly CheckResult[],
  assumptions: readonly Assumption[],
  digest: ObservationDigest,
  tierOrder: readonly string[],
): CheckGroupView[] {
  const assumptionById = new Map(assumptions.map((a) => [a.id, a]));
  const tierIndex = (r: CheckResult) => (r.tier === null ? tierOrder.length : tierOrder.indexOf(r.tier));
  return ids.map((id) => {
    const mine = checks
      .filter((r) => r.id === id)
      .sort((a, b) => tierIndex(a) - tierIndex(b) || a.variant.localeCompare(b.variant));
    const first = mine[0]!;
    const verdict = worstVerdict(mine.map((r) => r.verdict)) ?? 'skipped';
    return {
      id,
      anchor: checkAnchor(id),
      title: first.title,
      spec: first.spec,
      requirement: first.requirement,
      basis: first.basis,
      assumptions: first.assumptions.map((a) => ({
        id: a,
        statement: assumptionById.get(a)?.statement ?? 'not described in these results',
        anchor: `assumption-${a}`,
      })),
      verdict: verdictView(verdict),
      open: VERDICT_SEVERITY[verdict] >= VERDICT_SEVERITY.inconclusive,
      results: mine.map((r) => resultView(r, digest)),
    };
  });
}
