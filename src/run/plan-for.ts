/** The plan over a run's organizations, the same for the dry run and the run itself. */
import type { TierName } from '../contract/types.ts';
import type { Scenario } from '../scenario/define.ts';
import { orgLabels } from '../provision/provision.ts';
import type { RunOptions } from './options.ts';
import { buildPlan, type Plan } from './plan.ts';

/** The scenarios of the tiers the run selected. */
export function selectedScenarios(options: RunOptions): Scenario[] {
  return options.scenarios.filter((s) => options.tiers.includes(s.tier));
}

/**
 * The revocation organization gets no lane of its own: its probes run beside every lane, and on a
 * shared org they would crowd the concurrency cap.
 */
export function planFor(
  scenarios: readonly Scenario[],
  labelsOf: (tier: TierName, count: number) => readonly string[],
  revocationOrg: { readonly tier: TierName; readonly label: string } | null,
  checks: RunOptions['checks'],
  profileOrgs: Readonly<Partial<Record<TierName, string>>> = {},
): Plan {
  const own = new Set(Object.values(profileOrgs));
  const lanes = (s: Scenario) =>
    labelsOf(s.tier, s.orgs).filter((label) => label !== revocationOrg?.label && !own.has(label));
  return buildPlan({
    scenarios,
    orgs: Object.fromEntries(scenarios.map((s) => [s.tier, lanes(s)])),
    checks,
    revocationOrg: revocationOrg ? { tier: revocationOrg.tier, label: revocationOrg.label } : null,
    profileOrgs,
  });
}

/** The embedded target's organization for a tier's limiter profile, beside its lanes. */
export function embeddedProfileOrg(tier: TierName): string {
  return `${tier}-profile`;
}

/** The plan a run would follow, from the options alone: org labels as the run would provision them. */
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
  const profileOrgs =
    target.kind === 'external' ? {} : Object.fromEntries(scenarios.map((s) => [s.tier, embeddedProfileOrg(s.tier)]));
  return planFor(scenarios, labels, revocationOrg, options.checks, profileOrgs);
}
