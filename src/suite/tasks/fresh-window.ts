/**
 * Quota checks start just after a window opens and must finish inside it (DESIGN "Measuring
 * honestly"). This wraps a task's traffic: wait for the server's next window, run, and if the
 * boundary could not be learned, report every check of the task inconclusive with the reason.
 */
import { awaitFreshWindow } from '../../drivers/window-sync.ts';
import type { WindowContext } from '../../checks/window.ts';
import { checkResult } from '../../checks/result.ts';
import type { CheckId, CheckResult } from '../../checks/types.ts';
import type { OrgHandle, SuiteContext } from '../context.ts';

export interface PlannedCheck {
  readonly id: CheckId;
  readonly variant?: string;
}

export async function inFreshWindow(
  context: SuiteContext,
  org: OrgHandle,
  task: { name: string; checks: readonly PlannedCheck[] },
  body: (window: WindowContext) => Promise<readonly CheckResult[]>,
): Promise<readonly CheckResult[]> {
  const startedWall = context.io.clock.now();
  const edge = context.prober.edges[0]!;
  context.emit({ type: 'task-waiting', task: task.name, untilEpochS: null });
  const sync = await awaitFreshWindow(
    context.prober,
    edge,
    org.primary.key,
    { check: 'WINDOW-SYNC', tier: org.tier, org: org.label },
    { windowMs: context.windowMs, clockOffsetMs: context.clockOffsetMs(), densePollMs: 10, signal: context.signal },
  );
  if (!sync.ok) {
    return task.checks.map(({ id, variant }) =>
      checkResult(
        id,
        {
          verdict: 'inconclusive',
          expected: 'a fresh quota window to start in',
          actual: sync.reason,
          evidence: sync.polls.slice(-2).map((o) => o.id),
          notes: ['The window boundary could not be learned from X-RateLimit-Reset or Date; nothing was measured.'],
        },
        { tier: org.tier, org: org.label, variant: variant ?? '', startedWall, durationMs: 0 },
      ),
    );
  }
  context.emit({ type: 'task-start', task: task.name });
  return body(sync.window);
}
