/** results.json: the run's record, from which every report is rendered. Versioned by `schema`. */
import type { Assumption, LimitField, OrgLimits, TierName } from '../contract/types.ts';
import type { RateLimitDialectName } from '../contract/rate-limit-names.ts';
import type { CheckResult, Verdict } from '../catalogue/types.ts';
import type { ChartKind } from '../checks/define.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { ClockEstimate } from '../measure/server-clock.ts';
import type { NetworkFigures, NetworkMargins } from '../measure/network.ts';
import type { RemainingData } from '../verdicts/hdr-remaining.ts';
import type { QuotaData } from '../verdicts/quota-read-ingest.ts';
import type { LatencyData, LatencyRow } from '../verdicts/revoke-latency.ts';
import type { ConcurrencyCapData } from '../verdicts/concurrency-cap.ts';

export const RESULTS_SCHEMA = 'tiergate/results@2' as const;

export type { ClockEstimate } from '../measure/server-clock.ts';

/** The round trips a run measured (every one sent into a quiet edge) and the margins they called for (src/measure/network.ts). */
export interface NetworkPolicy {
  readonly figures: NetworkFigures;
  readonly margins: NetworkMargins;
}
import type { PlannedAndDone, WrittenRow } from '../measure/write-tally.ts';
export { FOOTPRINT_KINDS, type FootprintKind, type PlannedAndDone, type PlannedWrite } from '../measure/write-tally.ts';
import type { WritePolicy } from '../contract/writes.ts';
import type { FaultName } from '../reference-server/faults.ts';
import type { VariantName } from '../reference-server/variants.ts';

export interface TargetInfo {
  readonly kind: 'embedded' | 'external';
  /** Edge base URLs, in edge order. */
  readonly edges: readonly string[];
  /** Faults injected into the embedded target. */
  readonly faults: readonly FaultName[];
  /** Conformant variants the embedded target showed; absent: none. */
  readonly variants?: readonly VariantName[];
}

/** An organization's own figures, as the config declared them (`orgs[].limits`): its contract, judged exactly. */
export interface DeclaredLimits {
  /** Organization label within the run (its name in the config). */
  readonly org: string;
  readonly tier: TierName;
  readonly limits: Partial<OrgLimits>;
}

/**
 * The rate-limit header dialect the run judged: §8's (`spec`) unless one was declared (config
 * `headers`, `run --declare-headers`), the owner's explicit acceptance of that departure from §8.
 */
export interface HeaderDialects {
  /** The dialect declared, and judged; null: none declared, §8's was judged. */
  readonly declared: RateLimitDialectName | null;
  /** The dialect §8 specifies: X-RateLimit-Limit, -Remaining and -Reset (epoch seconds). */
  readonly spec: 'x-ratelimit';
  /** The policy each quota class goes by, by name, where the declaration names one; {} where none. */
  readonly policies: Readonly<Partial<Record<LimitField, string>>>;
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
  /** The network to the deployment as the run measured it, and the margins in force at its end; absent in older results and k6 runs. */
  readonly network?: NetworkPolicy;
  /** Quota windows the plan needed at minimum, and the windows the run took. */
  readonly windows: { readonly needed: number; readonly used: number };
  readonly interrupted: boolean;
  readonly verdict: Exclude<Verdict, 'skipped'>;
  readonly counts: Readonly<Record<Verdict, number>>;
  readonly checks: readonly CheckResult[];
  /** How the server limits, one profile per tier, learned before the checks judged it; [] when none was learned. */
  readonly profiles: readonly LimiterProfile[];
  /** The organizations of the run's tiers whose own figures the config declared; [] when none did. */
  readonly declaredLimits: readonly DeclaredLimits[];
  /** The rate-limit header dialect judged, declared or §8's; absent in older results, k6 ingests and merged vantage points. */
  readonly headers?: HeaderDialects;
  readonly assumptions: readonly Assumption[];
  /** Methodology notes shown in reports: how each figure was measured, and its error bound. */
  readonly methodology: readonly { readonly topic: string; readonly text: string }[];
  /** `bodies`: what observations keep of data reads' bodies (shape only unless `--keep-bodies`); absent in older results. */
  readonly observations: { readonly file: string; readonly count: number; readonly bodies?: 'shape' | 'kept' };
  /** The k6 that drove the load (`run --engine k6`), as `k6 version` named it; absent for the harness. */
  readonly k6?: { readonly version: string };
  /** What the run wrote to the deployment (README "What a run sends, writes and keeps"); absent in older results and k6 runs. */
  readonly footprint?: Footprint;
}

/** Something the run created on the deployment, and whether the cleanup removed it (archived a job). */
export interface CreatedResource {
  readonly kind: 'job' | 'webhook';
  readonly tier: TierName;
  readonly org: string;
  /** The id the deployment gave it, where its answer named one. */
  readonly id: string | null;
  /** Archived (a job) by the cleanup; false: left behind. */
  readonly cleanedUp: boolean;
}

export interface Footprint {
  /** The config's `writes` policy (`own` against the embedded target). */
  readonly writes: WritePolicy;
  /** Per tier and endpoint, the writes sent and admitted, from the observations. */
  readonly written: readonly WrittenRow[];
  /** Per organization and kind, what the plan announced beside what the observations show admitted. */
  readonly announced: readonly PlannedAndDone[];
  readonly created: readonly CreatedResource[];
  /** Keys the revocation trials had the hook provision, and revoke. */
  readonly keys: { readonly provisioned: number; readonly revoked: number };
}

/** What the report reads of a quota check's data: the series it charts, the Limit judged by, the first 429. */
export type QuotaSeries = Pick<QuotaData, 'series' | 'limit' | 'first429'>;

/** What the report reads of REVOKE-LATENCY's data: every bracket, against the SLA. */
export type RevocationBrackets = Pick<LatencyData, 'slaMs'> & {
  readonly trials: readonly Pick<LatencyRow, 'trial' | 'edge' | 'lowerMs' | 'upperMs'>[];
};

/** What the report reads of CONCURRENCY-CAP's data: its measurement, request by request, and when the extra had to leave (absent in results written before it was recorded). */
export type HeldTimeline = Pick<ConcurrencyCapData, 'timeline'> & Partial<Pick<ConcurrencyCapData, 'extraWindow'>>;

/** What the report reads of HDR-REMAINING's data: the series it charts. */
export type RemainingSeries = Pick<RemainingData, 'series'>;

/** The part of a check's data the report reads, by what its module says the report draws from it. */
export interface ChartData {
  readonly 'quota-series': QuotaSeries;
  readonly 'remaining-series': RemainingSeries;
  readonly 'held-timeline': HeldTimeline;
  readonly 'revocation-brackets': RevocationBrackets;
}

/** A check's charted data, with what it draws. */
export type ChartedData = { readonly [K in ChartKind]: { readonly kind: K; readonly data: ChartData[K] } }[ChartKind];

/**
 * Results checked against the schema, as written or read back: what the reports render. Where a
 * check's module says the report draws its data, that part was checked against its chart's type
 * (results/schema.ts; read it with `chartedData`).
 */
export interface ValidResults extends Omit<RunResults, 'checks'> {
  readonly checks: readonly CheckResult[];
}
