/** The plan over a run's organizations, the same for the dry run and the run itself. */
import type { TierName } from '../contract/types.ts';
import type { Scenario } from '../scenario/define.ts';
import { orgLabels } from '../provision/provision.ts';
import { revocationOverrides, type RunOptions } from './options.ts';
import { trialShape } from '../revocation/task.ts';
import type { BulkPolicy, RevocationShape } from '../scenario/define.ts';
import { buildPlan, type Plan, type PlannedTask } from './plan.ts';
import { isLoopbackUrl } from '../util/loopback.ts';

/** The scenarios of the tiers the run selected. */
export function selectedScenarios(options: RunOptions): Scenario[] {
  return options.scenarios.filter((s) => options.tiers.includes(s.tier));
}

/** The embedded target's organization for a tier's limiter profile, beside its lanes. */
export function embeddedProfileOrg(tier: TierName): string {
  return `${tier}-profile`;
}

/**
 * The plan a run follows, from the options alone (the dry run's, and the run's before any socket
 * opens): organization labels as the run provisions or the config names them. The revocation
 * organization gets no lane of its own: its probes run beside every lane, and on a shared org they
 * would crowd the concurrency cap.
 */
export function plannedRun(options: RunOptions): Plan {
  const scenarios = selectedScenarios(options);
  const target = options.target;
  const labels = (tier: TierName, count: number) =>
    target.kind === 'external'
      ? target.orgs.filter((o) => o.tier === tier).map((o) => o.label)
      : orgLabels(tier, count);
  const revocationOrg =
    target.kind === 'external'
      ? (target.orgs.find((o) => o.label === target.config.revocation?.org) ?? null)
      : scenarios[0]
        ? { tier: scenarios[0].tier, label: `${scenarios[0].tier}-revocation` }
        : null;
  const profileOrgs: Partial<Record<TierName, string>> =
    target.kind === 'external' ? {} : Object.fromEntries(scenarios.map((s) => [s.tier, embeddedProfileOrg(s.tier)]));
  const own = new Set(Object.values(profileOrgs));
  const lanes = (s: Scenario) =>
    labels(s.tier, s.orgs).filter((label) => label !== revocationOrg?.label && !own.has(label));
  return buildPlan({
    scenarios,
    orgs: Object.fromEntries(scenarios.map((s) => [s.tier, lanes(s)])),
    checks: options.checks,
    revocationOrg: revocationOrg ? { tier: revocationOrg.tier, label: revocationOrg.label } : null,
    profileOrgs,
    // The embedded target listens on loopback only.
    farEdges: target.kind === 'external' ? target.config.target.edges.filter((url) => !isLoopbackUrl(url)) : [],
  });
}

/** Where a revocation setting came from, in the order they take precedence. */
export type RevocationSource = 'flag' | 'config' | 'scenario';

/** The revocation task's shape as the run will use it, and where its confidence target came from (null: none). */
export interface ResolvedRevocation {
  readonly shape: Required<RevocationShape>;
  readonly confidenceFrom: RevocationSource | null;
}

/**
 * The revocation shape, resolved once: each setting from the flags, else the config file, else the
 * first selected scenario (whose tier the revocation task runs on), else the defaults; the trials
 * raised to what a confidence target takes. Null where no scenario is selected.
 */
export function resolvedRevocation(options: RunOptions): ResolvedRevocation | null {
  const scenario = selectedScenarios(options)[0];
  if (!scenario) return null;
  const overrides = revocationOverrides(options);
  const confidenceFrom: RevocationSource | null = options.revocation.confidence
    ? 'flag'
    : overrides.confidence
      ? 'config'
      : scenario.revocation.confidence
        ? 'scenario'
        : null;
  return { shape: trialShape(scenario.revocation, overrides), confidenceFrom };
}

/** How a planned task's read series is shaped: its tier's scenario's quota.bulk (auto where none says). */
export function bulkPolicyOf(options: RunOptions): (task: PlannedTask) => BulkPolicy {
  const scenarios = selectedScenarios(options);
  return (task) => scenarios.find((s) => s.tier === task.tier)?.quota.bulk ?? 'auto';
}
