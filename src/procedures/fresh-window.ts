/**
 * Quota checks start in a fresh window of the quota class they measure and must finish inside it
 * (README "How it measures"). This wraps a task's traffic: wait for a fresh window on its
 * organizations (scheduled from the limiter profile, procedures/windows.ts), run, and if no fresh window
 * could be had, report every check of the task inconclusive with the reason.
 */
import type { QuotaClass } from '../contract/types.ts';
import type { WindowContext } from '../measure/window.ts';
import { checkResult } from '../verdicts/support/result.ts';
import type { CheckId, CheckResult } from '../catalogue/types.ts';
import type { SuiteContext } from './context.ts';
import type { OrgHandle } from './handles.ts';

export interface PlannedCheck {
  readonly id: CheckId;
  readonly variant?: string;
}

export async function inFreshWindow(
  context: SuiteContext,
  org: OrgHandle,
  task: { name: string; checks: readonly PlannedCheck[]; quotaClass: QuotaClass; alsoFresh?: readonly OrgHandle[] },
  body: (window: WindowContext) => Promise<readonly CheckResult[]>,
): Promise<readonly CheckResult[]> {
  const startedWall = context.io.clock.now();
  context.emit({ type: 'task-waiting', task: task.name, untilEpochS: null });
  const sync = await context.windows.fresh([org, ...(task.alsoFresh ?? [])], task.quotaClass);
  if (!sync.ok) {
    return task.checks.map(({ id, variant }) =>
      checkResult(
        id,
        {
          verdict: 'inconclusive',
          expected: 'a fresh quota window to start in',
          actual: sync.reason,
          evidence: sync.polls.slice(-2).map((o) => o.id),
          notes: ['No fresh quota window could be had (no boundary shown by X-RateLimit-Reset, Remaining or Date); nothing was measured.'],
        },
        { tier: org.tier, org: org.label, variant: variant ?? '', startedWall, durationMs: 0 },
      ),
    );
  }
  context.emit({ type: 'task-start', task: task.name });
  return body(sync.window);
}
