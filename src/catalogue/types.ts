/** Verdicts and check results: what checks produce and reports render. */
import type { AssumptionId, TierName } from '../contract/types.ts';
import { CHECK_IDS } from './check-ids.ts';

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
  /** Why a verdict is inconclusive or skipped, or other caveats a reader needs. */
  readonly notes: readonly string[];
  readonly data?: Data;
  /**
   * Inconclusive because the measurement was spoiled (a window boundary fell in it, a request got no
   * answer), not for anything the server did: the same measurement in another window may decide it.
   * The run's, not the result's: never written to results.json.
   */
  readonly measureAgain?: boolean;
}

export interface CheckResult<Data extends FindingData = FindingData> extends Finding<Data> {
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
