/** Verdicts and check results: what checks produce and reports render. */
import type { AssumptionId, TierName } from '../contract/types.ts';
import { CHECK_IDS } from './check-ids.ts';
import type { Reason } from './reasons/index.ts';

export const VERDICTS = ['pass', 'fail', 'inconclusive', 'skipped'] as const;
export type Verdict = (typeof VERDICTS)[number];

export { CHECK_IDS };
/** A check's stable ID: one module per check in src/checks/ declares it. */
export type CheckId = (typeof CHECK_IDS)[number];

/**
 * The variants a check is measured in (QUOTA-READ sequentially and as a burst, QUOTA-INGEST with
 * single and bulk uploads, HDR-LIMIT per quota class), or judged from (LOAD-THRESHOLDS by k6's own
 * aggregates, REVOKE-LATENCY merged over vantage points); '' for a check measured one way only.
 */
export const CHECK_VARIANTS = [
  '',
  'sequential',
  'burst',
  'single',
  'bulk',
  'read',
  'ingest',
  'k6',
  'vantages',
] as const;
export type CheckVariant = (typeof CHECK_VARIANTS)[number];

/** Check-specific figures for charts and tables (kept JSON-serialisable); each verdict exports its shape. */
export type FindingData = Readonly<Record<string, unknown>>;

/** What a pure verdict function returns. */
export interface Finding<Data extends FindingData = FindingData> {
  readonly verdict: Verdict;
  /** What the spec (or assumption) requires, concretely for this case: "429 at request 61". */
  readonly expected: string;
  /** What was observed: "429 at request 62". */
  readonly actual: string;
  /** Ids of the observations that decide the verdict. */
  readonly evidence: readonly number[];
  /** Caveats a reader needs beside the reasons. */
  readonly notes: readonly string[];
  /**
   * Why the result is not a plain pass (fail, inconclusive, skipped), or what a pass rests on: stable
   * codes with the figures behind them (catalogue/reasons). Empty for a plain pass.
   */
  readonly reasons?: readonly Reason[];
  readonly data?: Data;
  /**
   * Inconclusive because the measurement was spoiled (a window boundary fell in it, a request got no
   * answer, an extra request went at the wrong moment), not for anything the server did, and where
   * the same measurement may decide it: again in this window, or in the next. The run's, not the
   * result's: never written to results.json.
   */
  readonly measureAgain?: MeasureAgain;
}

/** Where a spoiled measurement is made again. */
export type MeasureAgain = 'this-window' | 'next-window';

export interface CheckResult<Data extends FindingData = FindingData> extends Omit<Finding<Data>, 'reasons'> {
  /** Why the result is not a plain pass, or what a pass rests on; empty for a plain pass. */
  readonly reasons: readonly Reason[];
  readonly id: CheckId;
  /** Variant within a check, e.g. 'sequential' or 'burst' for QUOTA-READ; '' when none. */
  readonly variant: CheckVariant;
  readonly tier: TierName | null;
  readonly org: string | null;
  readonly title: string;
  readonly spec: string;
  readonly requirement: string;
  readonly basis: 'spec' | 'assumption';
  readonly assumptions: readonly AssumptionId[];
  /** Wall clock, ISO 8601. */
  readonly startedAt: string;
  readonly durationMs: number;
}

/**
 * The run's verdict: any fail fails; else any inconclusive is inconclusive; skipped never fails.
 * Nothing decided (no verdict, or only skipped) is inconclusive: a gate never passes on no evidence.
 */
export function overallVerdict(verdicts: Iterable<Verdict>): Exclude<Verdict, 'skipped'> {
  let sawInconclusive = false;
  let sawPass = false;
  for (const v of verdicts) {
    if (v === 'fail') return 'fail';
    if (v === 'inconclusive') sawInconclusive = true;
    if (v === 'pass') sawPass = true;
  }
  return sawInconclusive || !sawPass ? 'inconclusive' : 'pass';
}

export function countVerdicts(verdicts: Iterable<Verdict>): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, inconclusive: 0, skipped: 0 };
  for (const v of verdicts) counts[v] += 1;
  return counts;
}
