/** A planned task that cannot run here: every check it decides is reported skipped, with the reason. */
import { skipped } from '../verdicts/support/result.ts';
import type { Task } from '../procedures/context.ts';
import type { PlannedTask } from './plan.ts';

export function skippedTask(planned: PlannedTask, reason: string): Task {
  return {
    name: `${planned.kind} ${planned.orgs.join('+')}`,
    tier: planned.tier,
    org: planned.orgs[0] ?? null,
    consumes: 'none',
    run: async (context) =>
      planned.checks.map((id) => skipped(id, reason, { tier: planned.tier, org: planned.orgs[0] ?? null, startedWall: context.io.clock.now() })),
  };
}
