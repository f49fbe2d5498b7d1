/**
 * Runs a plan: first the tasks it refused for the run's edges (their checks skipped, nothing sent);
 * then tiers in parallel; within a tier, the limiter profile learned beside the lanes (or first on its
 * lane), the joint tasks first on their lanes while the other lanes start; each lane's tasks one after
 * another. Results come back in the order tasks finish.
 */
import type { CheckResult } from '../catalogue/types.ts';
import type { TierName } from '../contract/types.ts';
import type { PlannedTask, Plan, TierPlan } from './plan.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { defineScenario, type Scenario } from '../scenario/define.ts';
import { TASKS } from '../tasks/registry.ts';
import { runTask, type TaskInstance } from '../suite/task.ts';
import { asInterrupted } from './publish.ts';

/** What the plan's labels stand for in this run: the provisioned organizations and each tier's scenario. */
export interface PlanBinding {
  readonly orgs: ReadonlyMap<string, OrgHandle>;
  readonly scenarios: readonly Scenario[];
}

/** Learns a tier's limiter profile, on the organization the plan gives it; never throws. */
export type LearnTier = (tier: TierPlan) => Promise<void>;

export async function executePlan(
  plan: Plan,
  context: SuiteContext,
  binding: PlanBinding,
  onResults: (results: readonly CheckResult[]) => void,
  learnTier: LearnTier = async () => {},
): Promise<void> {
  const runPlanned = async (planned: PlannedTask) => {
    if (context.signal.aborted) return;
    const results = await runTask(TASKS[planned.kind], context, instanceOf(planned, binding));
    // A task cut short by Ctrl-C judged partial traffic: report what it found, never as a verdict.
    onResults(context.signal.aborted ? results.map(asInterrupted) : results);
  };
  const runLane = async (tasks: readonly PlannedTask[]) => {
    for (const planned of tasks) await runPlanned(planned);
  };
  const runTier = async (tier: TierPlan) => {
    const learned = learnTier(tier);
    // What runs on the organization a discovery holds waits for it (all of the tier, where it runs before
    // the tier); the other lanes start at once.
    const heldBy = (orgs: readonly string[]) =>
      tier.profile?.runs === 'before-tier' ||
      (tier.profile?.runs === 'first-on-lane' && orgs.includes(tier.profile.org))
        ? learned
        : undefined;
    const laneOf = async (org: string) => {
      await heldBy([org]);
      await runLane(tier.lanes[org] ?? []);
    };
    const jointOrgs = new Set(tier.joint.flatMap((t) => t.orgs));
    const free = tier.orgs.filter((o) => !jointOrgs.has(o));
    const joined = (async () => {
      await heldBy([...jointOrgs]);
      for (const planned of tier.joint) await runPlanned(planned);
      await Promise.all([...jointOrgs].map((o) => runLane(tier.lanes[o] ?? [])));
    })();
    await Promise.all([learned, joined, ...free.map(laneOf)]);
  };
  // Refused for the run's edges: sends nothing, its checks reported skipped with the reason.
  for (const refused of plan.refused) {
    const instance = {
      tier: refused.tier,
      orgs: [],
      scenario: scenarioOf(refused.tier, binding),
      checks: refused.checks,
    };
    onResults(await runTask(TASKS[refused.kind], context, { ...instance, refused: refused.reason }));
  }
  await Promise.all([...plan.tiers.map(runTier), plan.revocation ? runPlanned(plan.revocation) : Promise.resolve()]);
  // Sustained load last: on two cores it would disturb the exact-count checks running beside it.
  for (const planned of plan.load) await runPlanned(planned);
}

function instanceOf(planned: PlannedTask, binding: PlanBinding): TaskInstance {
  const orgs = planned.orgs.map((label) => {
    const org = binding.orgs.get(label);
    if (!org) throw new Error(`plan names organization ${label}, which was not provisioned`);
    return org;
  });
  return { tier: planned.tier, orgs, scenario: scenarioOf(planned.tier, binding), checks: planned.checks };
}

/** A tier's scenario; the revocation organization's tier may have none selected: its defaults then. */
function scenarioOf(tier: TierName, binding: PlanBinding): Scenario {
  return binding.scenarios.find((s) => s.tier === tier) ?? defineScenario({ tier });
}
