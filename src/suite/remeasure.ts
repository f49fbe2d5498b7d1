/**
 * The run's budget for measuring again (suite/fresh-window.ts): a check a window boundary or the
 * network spoiled is measured once more in a later window, but each lane (the organization a task
 * runs on) may spend at most `windowsPerLane` windows so, whatever its tasks meet. A run's length is
 * then its plan's windows, plus at most that many per lane: it knows when to stop. The plan states it.
 */
import { because, type Reason } from '../catalogue/reasons/index.ts';

export interface RemeasureBudget {
  /** Takes a window for measuring again on `lane`: null where the budget allows it, else why not. */
  take(lane: string): Reason | null;
  readonly windowsPerLane: number;
}

/**
 * Two windows more per lane: a lane holds a few quota tasks one after another, and two of them may meet
 * a spoiled window (a loaded machine's) in one run; the run then ends at most two windows later than
 * its plan.
 */
export const REMEASURE_WINDOWS_PER_LANE = 2;

export function remeasureBudget(windowsPerLane = REMEASURE_WINDOWS_PER_LANE): RemeasureBudget {
  const spent = new Map<string, number>();
  return {
    windowsPerLane,
    take: (lane) => {
      const used = spent.get(lane) ?? 0;
      if (used >= windowsPerLane) return because('remeasure-budget-spent', { windowsPerLane, lane });
      spent.set(lane, used + 1);
      return null;
    },
  };
}

/** "measuring again: at most 2 windows more per organization's lane, when a window boundary or the network spoiled a check (then …)" */
export function remeasureText(budget: Pick<RemeasureBudget, 'windowsPerLane'>): string {
  const windows = budget.windowsPerLane === 1 ? 'one window' : `${budget.windowsPerLane} windows`;
  return `measuring again: at most ${windows} more per organization's lane, when a window boundary or the network spoiled a check (then the run ends at most that much later than planned)`;
}
