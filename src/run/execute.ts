/**
 * Runs a plan: tiers in parallel; within a tier, the joint tasks first on their lanes while the other
 * lanes start; each lane's tasks one after another. Results come back in the order tasks finish.
 */
import type { CheckResult } from '../catalogue/types.ts';
import { checkResult } from '../verdicts/support/result.ts';
import type { PlannedTask, Plan, TierPlan } from './plan.ts';
import type { SuiteContext, Task } from '../procedures/context.ts';
import { messageOf } from '../util/errors.ts';

export type BindTask = (planned: PlannedTask) => Task;

/** Learns what a tier's tasks need before they start (the limiter profile); never throws. */
export type PrepareTier = (tier: TierPlan) => Promise<void>;

export async function executePlan(
  plan: Plan,
  context: SuiteContext,
  bind: BindTask,
  onResults: (results: readonly CheckResult[]) => void,
  prepareTier: PrepareTier = async () => {},
): Promise<void> {
  const runTask = async (planned: PlannedTask) => {
    if (context.signal.aborted) return;
    const name = `${planned.kind} ${planned.orgs.join('+')}`;
    try {
      const results = await bind(planned).run(context);
      // A task cut short by Ctrl-C judged partial traffic: report what it found, never as a verdict.
      onResults(context.signal.aborted ? results.map(interrupted) : results);
    } catch (error) {
      // A task failing is a harness bug or an unexpected target answer: say so, keep the others going,
      // and report its checks inconclusive: a check that did not run must never vanish into a pass.
      const why = `task ${name} stopped: ${messageOf(error)}`;
      context.emit({ type: 'warning', message: why });
      onResults(planned.checks.map((id) => checkResult(id, { verdict: 'inconclusive', expected: 'the check to run', actual: why, evidence: [], notes: [] }, { tier: planned.tier, org: planned.orgs[0] ?? null, startedWall: context.io.clock.now(), durationMs: 0 })));
    }
  };
  const runLane = async (tasks: readonly PlannedTask[]) => {
    for (const planned of tasks) await runTask(planned);
  };
  const runTier = async (tier: TierPlan) => {
    await prepareTier(tier);
    if (context.signal.aborted) return;
    const jointOrgs = new Set(tier.joint.flatMap((t) => t.orgs));
    const free = tier.orgs.filter((o) => !jointOrgs.has(o));
    const joined = (async () => {
      for (const planned of tier.joint) await runTask(planned);
      await Promise.all([...jointOrgs].map((o) => runLane(tier.lanes[o] ?? [])));
    })();
    await Promise.all([joined, ...free.map((o) => runLane(tier.lanes[o] ?? []))]);
  };
  await Promise.all([...plan.tiers.map(runTier), plan.revocation ? runTask(plan.revocation) : Promise.resolve()]);
  // Sustained load last: on two cores it would disturb the exact-count checks running beside it.
  for (const planned of plan.load) await runTask(planned);
}

function interrupted(result: CheckResult): CheckResult {
  if (result.verdict === 'skipped' || result.verdict === 'inconclusive') return result;
  return { ...result, verdict: 'inconclusive', notes: [...result.notes, `the run was interrupted while this check ran; it would otherwise have been ${result.verdict}`] };
}
