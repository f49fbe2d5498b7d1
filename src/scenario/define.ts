/**
 * Scenario files (scenarios/*.ts) say which checks run for a tier, with what traffic shape and
 * parameters. `defineScenario` only types and freezes them; defaults live in `SCENARIO_DEFAULTS`.
 */
import type { EndpointId, TierName } from '../contract/types.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { ConfidenceTarget } from '../config/confidence-target.ts';

export interface QuotaShape {
  /** 'sequential' sends Limit+1 one at a time (its bulk together where it cannot fit a window so); 'burst' releases 2 × Limit at once in batches ≤ the cap. */
  readonly variants: readonly ('sequential' | 'burst')[];
  /**
   * The sequential series: one at a time where it fits a quarter of a window at the measured round
   * trip, else its bulk together and a tail one at a time ('auto', the default); or always the bulk
   * together at the cap with the shortest tail ('always').
   */
  readonly bulk?: BulkPolicy;
}

export const BULK_POLICIES = ['auto', 'always'] as const;
export type BulkPolicy = (typeof BULK_POLICIES)[number];

export interface RevocationShape {
  readonly trials: number;
  readonly intervalMs: number;
  readonly settleMs: number;
  /**
   * Trials at most at once, each on a rotation chain of its own (default 7); fewer where the
   * organization's concurrency cap or a list of disposable keys allows fewer.
   */
  readonly parallel?: number;
  /**
   * What the trials are to prove (README "Revocation confidence"): the share of revocations in effect
   * on every edge within the SLA, at a confidence level. The trials rise to what proving it takes,
   * none slower; REVOKE-LATENCY passes only once it is proven. null: no target.
   */
  readonly confidence?: ConfidenceTarget | null;
}

/** One phase of sustained load at a constant arrival rate. */
export interface LoadPhase {
  readonly name: string;
  /** Arrival rate as a multiple of the tier's read quota per window (1 = at quota, 2 = twice). */
  readonly rateMultiple: number;
  /** How many quota windows the phase lasts. */
  readonly windows: number;
  /** Organizations driven at once (a fleet phase when > 1). */
  readonly orgs: number;
}

export interface LoadShape {
  readonly endpoint: EndpointId;
  readonly phases: readonly LoadPhase[];
  /** k6 threshold syntax: metric (optionally with {tag:value}) -> expressions like 'p(95)<300', 'rate<0.01'. */
  readonly thresholds: Readonly<Record<string, readonly string[]>>;
}

export interface Scenario {
  readonly tier: TierName;
  readonly description: string;
  /** Organizations to provision on the embedded target (ORG-ISOLATED needs two; three lanes shorten the run). */
  readonly orgs: number;
  /** Checks to run; the default is every check the tier can run. */
  readonly checks: readonly CheckId[] | 'all';
  readonly quota: QuotaShape;
  readonly revocation: RevocationShape;
  /** Sustained load; runs only when LOAD-THRESHOLDS is selected. */
  readonly load: LoadShape | null;
}

export type ScenarioInput = { readonly tier: TierName } & Partial<Omit<Scenario, 'tier'>>;

export const SCENARIO_DEFAULTS = {
  orgs: 3,
  checks: 'all',
  quota: { variants: ['sequential', 'burst'] },
  revocation: { trials: 20, intervalMs: 10, settleMs: 2000, parallel: 7, confidence: null },
  load: null,
} as const satisfies Omit<Scenario, 'tier' | 'description'>;

export function defineScenario(input: ScenarioInput): Scenario {
  return Object.freeze({
    description: `${input.tier} tier`,
    ...SCENARIO_DEFAULTS,
    ...input,
  });
}

/**
 * The standard sustained-load shape: at quota, at twice the quota, then a fleet of orgs at quota,
 * two windows each, with k6-syntax thresholds. A 429 at or above quota is expected, not a failure.
 */
export function sustainedLoad(options: { readonly fleetOrgs: number; readonly p95Ms?: number }): LoadShape {
  return {
    endpoint: 'jobs-list',
    phases: [
      { name: 'at-quota', rateMultiple: 1, windows: 2, orgs: 1 },
      { name: 'over-quota', rateMultiple: 2, windows: 2, orgs: 1 },
      { name: 'fleet', rateMultiple: 1, windows: 2, orgs: options.fleetOrgs },
    ],
    thresholds: {
      'http_req_duration{expected_response:true}': [`p(95)<${options.p95Ms ?? 300}`],
      'http_req_duration{status:429}': ['p(95)<100'],
      http_req_failed: ['rate<0.01'],
    },
  };
}

/**
 * A task's revocation shape: the run's overrides (flags, then config) where given, then the
 * scenario's, then the defaults for a field the scenario leaves out (`parallel`).
 */
export function resolveRevocationShape(
  scenario: RevocationShape,
  overrides: Partial<RevocationShape>,
): Required<RevocationShape> {
  return { ...SCENARIO_DEFAULTS.revocation, ...definedOnly(scenario), ...definedOnly(overrides) };
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
