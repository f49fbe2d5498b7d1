/** results.json: the run's record, from which every report is rendered. Versioned by `schema`. */
import type { Assumption, TierName } from '../contract/types.ts';
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { ClockEstimate } from '../measure/server-clock.ts';

export const RESULTS_SCHEMA = 'tiergate/results@1' as const;

export type { ClockEstimate } from '../measure/server-clock.ts';

export interface TargetInfo {
  readonly kind: 'embedded' | 'external';
  /** Edge base URLs, in edge order. */
  readonly edges: readonly string[];
  /** Faults injected into the embedded target. */
  readonly faults: readonly string[];
  /** Conformant variants the embedded target showed; absent: none. */
  readonly variants?: readonly string[];
}

export interface RunResults {
  readonly schema: typeof RESULTS_SCHEMA;
  readonly runId: string;
  readonly tool: { readonly name: 'tiergate'; readonly version: string; readonly revision: string | null };
  readonly contract: { readonly name: string; readonly version: string };
  readonly target: TargetInfo;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly windowSeconds: number;
  readonly tiers: readonly TierName[];
  readonly clock: ClockEstimate | null;
  /** Quota windows the plan needed at minimum, and the windows the run took. */
  readonly windows: { readonly needed: number; readonly used: number };
  readonly interrupted: boolean;
  readonly verdict: Exclude<Verdict, 'skipped'>;
  readonly counts: Readonly<Record<Verdict, number>>;
  readonly checks: readonly CheckResult[];
  /** How the server limits, one profile per tier, learned before the checks judged it; [] when none was learned. */
  readonly profiles: readonly LimiterProfile[];
  readonly assumptions: readonly Assumption[];
  /** Methodology notes shown in reports: how each figure was measured, and its error bound. */
  readonly methodology: readonly { readonly topic: string; readonly text: string }[];
  readonly observations: { readonly file: string; readonly count: number };
}
