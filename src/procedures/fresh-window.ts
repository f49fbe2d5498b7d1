/**
 * Quota checks start in a fresh window of the quota class they measure and must finish inside it
 * (README "How it measures"). This wraps a task's traffic: wait for a fresh window on its
 * organizations (scheduled from the limiter profile, procedures/windows.ts), begin, run; if no fresh
 * window could be had, every check of the task is inconclusive with the reason.
 */
import type { QuotaClass } from '../contract/types.ts';
import type { WindowContext } from '../measure/window.ts';
import type { CheckId, Finding } from '../catalogue/types.ts';
import type { SuiteContext } from './context.ts';
import { inconclusiveFinding, type Decisions, type TaskRun } from './task.ts';
import { underCap } from './batches.ts';

/**
 * How many of a check's requests go one after another (a batch counts once), at the tier's Limit of
 * the class and the batch size its concurrency cap allows: a window under way is taken only with
 * time enough left for them.
 */
export type RoundTrips = (limit: number, batch: number) => number;

export async function inFreshWindow<C extends CheckId>(
  context: SuiteContext,
  task: TaskRun<C>,
  quotaClass: QuotaClass,
  body: (window: WindowContext) => Promise<Decisions<C>>,
  roundTrips: RoundTrips = () => 0,
): Promise<Decisions<C>> {
  context.emit({ type: 'task-waiting', task: task.identity, untilEpochS: null });
  const tier = task.orgs[0]!.tier;
  const limit = context.profileOf(tier)?.[quotaClass].limit ?? context.contract.tiers[tier][quotaClass].value;
  const sync = await context.windows.fresh(task.orgs, quotaClass, roundTrips(limit, underCap(context.contract.tiers[tier].concurrency.value)));
  if (!sync.ok) {
    const finding = inconclusiveFinding('a fresh quota window to start in', sync.reason, sync.polls.slice(-2).map((o) => o.id), [
      'No fresh quota window could be had (no boundary shown by X-RateLimit-Reset, Remaining or Date); nothing was measured.',
    ]);
    const undecided: Partial<Record<CheckId, Finding>> = {};
    for (const id of task.checks) undecided[id] = finding;
    return undecided as Decisions<C>;
  }
  task.begin();
  return body(sync.window);
}
