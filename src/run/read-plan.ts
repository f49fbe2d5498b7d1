/**
 * The plan's read tasks: how many round trips one after another each takes, and the longest round
 * trip at which it still fits one window (suite/read-fit.ts), in the dry run; once the run has
 * measured its round trips, the tasks that cannot fit are named before any quota is spent.
 */
import type { Contract, OrgLimits } from '../contract/types.ts';
import type { BulkPolicy } from '../scenario/define.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { TASKS } from '../tasks/registry.ts';
import { underCap } from '../suite/batches.ts';
import { longestRoundTripMs, readFit, readFitText, type ReadFit, type RoundsAt } from '../suite/read-fit.ts';
import { formatDurationMs } from '../util/duration.ts';
import type { Plan, PlannedTask } from './plan.ts';

export interface PlannedReads {
  readonly task: PlannedTask;
  /** At the round trip measured; null before any was. */
  readonly fit: ReadFit | null;
  readonly line: string;
}

export interface ReadPlanInput {
  readonly contract: Contract;
  readonly windowMs: number;
  /** The round trip measured on this run (the median), ms; null before any was measured. */
  readonly roundTripMs: number | null;
  readonly bulkOf: (task: PlannedTask) => BulkPolicy;
  readonly limitsOf?: (org: string) => Partial<OrgLimits> | undefined;
}

/** Each read task of the plan, its round trips and whether they fit. */
export function plannedReads(plan: Plan, input: ReadPlanInput): PlannedReads[] {
  const tasks = plan.tiers
    .flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()])
    .filter((t) => t.consumes === 'read');
  return tasks.map((task) => {
    const rounds = roundsOf(task, input);
    const what = `${task.kind} [${task.orgs.join(', ')}] (${task.checks.join(', ')})`;
    const longest = `fits a ${formatDurationMs(input.windowMs)} window up to ${formatDurationMs(Math.round(longestRoundTripMs(rounds, input.windowMs)))} round trips`;
    if (input.roundTripMs === null) return { task, fit: null, line: `${what}: ${longest}` };
    const fit = readFit(rounds, input.roundTripMs, input.windowMs);
    return { task, fit, line: `${what}${fit.fits ? '' : ' cannot be run'}: ${readFitText(fit, input.windowMs)}` };
  });
}

function roundsOf(task: PlannedTask, input: ReadPlanInput): RoundsAt {
  const figures = figuresOf(input.contract, { tier: task.tier, limits: input.limitsOf?.(task.orgs[0] ?? '') });
  const rounds = TASKS[task.kind].rounds ?? (() => 0);
  const planning = { windowMs: input.windowMs, bulk: input.bulkOf(task) };
  return (roundTripMs) => rounds(figures.read.value, underCap(figures.concurrency.value), { ...planning, roundTripMs });
}
