/**
 * LOAD-THRESHOLDS (§7.1, §8 under sustained load): at and above quota, per organization and per
 * quota window, admitted requests never exceed Limit and a 429 comes only once Remaining reached 0
 * (a 429 at or above quota is the expected answer, not an error); and the scenario's k6-syntax
 * thresholds hold over the whole run. Judged alike for the harness's own driver and for k6 output
 * read back from any number of runners. Pure.
 */
import type { Figure, TierName } from '../contract/types.ts';
import type { LatencyStats } from '../measure/histogram.ts';
import type { LoadSummary, WindowTally } from '../measure/aggregate.ts';
import type { ThresholdOutcome } from './support/threshold-eval.ts';
import { exactLimitBasis } from './support/quota-window.ts';
import { countOf, listSome, worst, type JudgedVerdict, judgedFinding } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

export interface LoadThresholdsInput {
  readonly summary: LoadSummary;
  readonly thresholds: readonly ThresholdOutcome[];
  /** The read figure per tier: published (exact, or a minimum for Enterprise), or the organizations' own declared one (exact). */
  readonly figures: Readonly<Partial<Record<TierName, Figure>>>;
  /** Requests scheduled but never sent. */
  readonly dropped: number;
  /** Caveats from the run (the latency policy, runners read). */
  readonly notes?: readonly string[];
  /** What the run's result rests on beside its windows and thresholds (a skipped fleet phase). */
  readonly restsOn?: readonly Reason[];
}

/** Windows listed in the result's data, for charts and tables; the verdict covers all of them. */
const WINDOWS_IN_DATA = 200;
/** Broken windows a result gives as reasons (the data lists them all): enough to see the pattern. */
const WINDOWS_IN_REASONS = 3;

export interface WindowJudgement {
  readonly org: string;
  readonly tier: TierName | null;
  readonly endS: number;
  readonly phases: readonly string[];
  readonly admitted: number;
  readonly rejected: number;
  readonly other: number;
  readonly limit: number | null;
  readonly problem: string | null;
}

/** `data` of LOAD-THRESHOLDS: the windows judged (the first WINDOWS_IN_DATA), the thresholds, and each load phase's statuses and latency. */
export type LoadThresholdsData = {
  readonly responses: number;
  readonly dropped: number;
  readonly windows: readonly WindowJudgement[];
  readonly windowsTotal: number;
  readonly thresholds: readonly ThresholdOutcome[];
  readonly phases: readonly {
    readonly tier: TierName | null;
    readonly phase: string;
    readonly orgs: number;
    readonly count: number;
    readonly durationMs: number;
    readonly statuses: readonly {
      readonly status: number | null;
      readonly count: number;
      readonly latency: LatencyStats;
    }[];
    readonly latencyBasis: { readonly intended: number; readonly sent: number };
  }[];
};

/**
 * The Limit a window is held to: the figure when exact (published or declared), else what the server
 * announced; why an exact figure holds it (declared in the config, or published where the server
 * announced another: a reason), or that the announced Limit is below the published minimum (a note).
 */
function windowLimit(
  w: WindowTally,
  figure: Figure | undefined,
): { limit: number | null; basis: Reason | null; note: string | null } {
  if (figure && !figure.atLeast)
    return { limit: figure.value, basis: exactLimitBasis(figure, w.limitHeader), note: null };
  if (w.limitHeader === null) return { limit: null, basis: null, note: null };
  const note =
    figure && w.limitHeader < figure.value
      ? `announced Limit ${w.limitHeader} is below the published minimum ${figure.value}`
      : null;
  return { limit: w.limitHeader, basis: null, note };
}

export function judgeWindow(
  w: WindowTally,
  figure: Figure | undefined,
): WindowJudgement & { evidence: readonly number[]; note: string | null; reason: Reason | null; basis: Reason | null } {
  const { limit, basis, note } = windowLimit(w, figure);
  const where = { org: w.org, windowEnd: new Date(w.endS * 1000).toISOString() };
  let reason: Reason | null = null;
  let evidence: readonly number[] = [];
  if (limit !== null && w.admitted > limit) {
    reason = because('window-over-limit', { ...where, admitted: w.admitted, limit });
    evidence = w.lastAdmittedIds;
  } else if (w.rejectedWithRemaining > 0) {
    reason = because('refused-with-remaining', { ...where, refused: w.rejectedWithRemaining });
    evidence = w.firstRejectedIds;
  } else if (
    w.rejected > 0 &&
    w.admitted > 0 &&
    (w.minRemainingAdmitted ?? (limit === null ? 0 : limit - w.admitted)) > 0
  ) {
    reason = because('refused-before-quota-used', {
      ...where,
      admitted: w.admitted,
      limit,
      lowestRemaining: w.minRemainingAdmitted,
    });
    evidence = [...w.lastAdmittedIds.slice(-1), ...w.firstRejectedIds.slice(0, 1)];
  }
  return {
    org: w.org,
    tier: w.tier,
    endS: w.endS,
    phases: w.phases,
    admitted: w.admitted,
    rejected: w.rejected,
    other: w.other,
    limit,
    problem: reason && reasonText(reason),
    evidence,
    note,
    reason,
    basis,
  };
}

/** The windows' side of the verdict in words: those that broke the quota, else how full the fullest came. */
function windowActual(judged: readonly WindowJudgement[], problems: readonly WindowJudgement[]): string {
  const orgs = new Set(judged.map((j) => j.org)).size;
  const maxShare = judged.reduce<{ admitted: number; limit: number | null }>(
    (m, j) =>
      j.limit !== null && (m.limit === null || j.admitted / j.limit > m.admitted / m.limit)
        ? { admitted: j.admitted, limit: j.limit }
        : m,
    { admitted: 0, limit: null },
  );
  const rejected = judged.reduce((n, j) => n + j.rejected, 0);
  return problems.length > 0
    ? `${countOf(problems.length, 'window')} broke the quota: ${listSome(
        problems.map((p) => p.problem!),
        2,
      )}`
    : `${countOf(judged.length, 'window')} over ${countOf(orgs, 'org')}: at most ${maxShare.admitted} admitted of Limit ${maxShare.limit ?? '—'}, ${countOf(rejected, '429')} all at Remaining 0`;
}

/** The thresholds' side of the verdict in words: those that failed, else how many passed. */
function thresholdActual(
  thresholds: readonly ThresholdOutcome[],
  failedThresholds: readonly ThresholdOutcome[],
): string {
  return thresholds.length === 0
    ? 'no thresholds'
    : failedThresholds.length > 0
      ? `threshold failed: ${listSome(
          failedThresholds.map((t) => `${t.threshold} (${t.detail})`),
          2,
        )}`
      : `thresholds: ${thresholds.filter((t) => t.verdict === 'pass').length} of ${thresholds.length} pass (${listSome(
          thresholds.map((t) => t.detail),
          3,
          ', ',
        )})`;
}

/** Each load phase's statuses and latency, as the result's data lists them. */
function phaseData(phases: LoadSummary['phases']): LoadThresholdsData['phases'] {
  return phases.map((p) => ({
    tier: p.tier,
    phase: p.phase,
    orgs: p.orgs,
    count: p.count,
    durationMs: Math.max(0, p.endedAt - p.startedAt),
    statuses: p.buckets.map((b) => ({ status: b.status, count: b.count, latency: b.latency.stats() })),
    latencyBasis: p.latencyBasis,
  }));
}

export function loadThresholdsVerdict(input: LoadThresholdsInput): Finding<LoadThresholdsData> {
  const { summary, thresholds } = input;
  const notes = [...(input.notes ?? [])];
  const judged = summary.windows.map((w) => judgeWindow(w, w.tier ? input.figures[w.tier] : undefined));
  const problems = judged.filter((j) => j.problem !== null);
  const unjudged = judged.filter((j) => j.limit === null);
  const windowNotes = [...new Set(judged.map((j) => j.note).filter((n): n is string => n !== null))];
  notes.push(...windowNotes.slice(0, 3));
  // Why the windows are held to an exact figure rather than the announced Limit: each distinct reason, a few.
  const bases = new Map(judged.flatMap((j) => (j.basis ? [[JSON.stringify(j.basis), j.basis] as const] : [])));
  const unattributed = summary.phases.reduce((n, p) => n + p.unattributed, 0);
  const responses = summary.phases.reduce((n, p) => n + p.count, 0);
  const verdicts: JudgedVerdict[] = [];
  const reasons: Reason[] = problems.slice(0, WINDOWS_IN_REASONS).map((p) => p.reason!);

  // Per org per window.
  if (problems.length > 0) verdicts.push('fail');
  else if (judged.length === 0) {
    verdicts.push('inconclusive');
    reasons.push(responses === 0 ? because('no-load-responses', {}) : because('no-window-placement', { responses }));
  } else if (unjudged.length > 0) {
    verdicts.push('inconclusive');
    reasons.push(because('window-without-limit', { windows: unjudged.length }));
  }
  if (unattributed > 0) {
    reasons.push(because('responses-unplaced', { unplaced: unattributed }));
    if (problems.length === 0) verdicts.push('inconclusive');
  }

  // Thresholds over the whole run.
  const failedThresholds = thresholds.filter((t) => t.verdict === 'fail');
  const noData = thresholds.filter((t) => t.verdict === 'no-data');
  if (failedThresholds.length > 0) verdicts.push('fail');
  for (const t of failedThresholds) {
    reasons.push(because('threshold-failed', { threshold: t.threshold, observed: t.observed!, samples: t.samples }));
  }
  if (noData.length > 0) {
    verdicts.push('inconclusive');
    reasons.push(because('threshold-no-data', { thresholds: noData.map((t) => t.threshold) }));
  }
  reasons.push(...[...bases.values()].slice(0, WINDOWS_IN_REASONS));
  reasons.push(...(input.restsOn ?? []));
  if (input.dropped > 0)
    notes.push(`${countOf(input.dropped, 'scheduled request')} could not be sent in time (dropped)`);

  const expected =
    'per org per window: admitted ≤ Limit, and 429 only once Remaining reached 0; thresholds: ' +
    (thresholds.length > 0 ? thresholds.map((t) => t.threshold).join(', ') : 'none');
  return judgedFinding(worst(verdicts), {
    expected,
    actual: `${windowActual(judged, problems)}; ${thresholdActual(thresholds, failedThresholds)}`,
    evidence: [...problems.flatMap((p) => p.evidence)].slice(0, 12),
    notes,
    reasons,
    data: {
      responses,
      dropped: input.dropped,
      windows: judged.slice(0, WINDOWS_IN_DATA).map(({ evidence: _e, note: _n, reason: _r, basis: _b, ...w }) => w),
      windowsTotal: judged.length,
      thresholds,
      phases: phaseData(summary.phases),
    },
  });
}
