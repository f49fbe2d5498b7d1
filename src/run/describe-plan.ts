/** `tiergate run --dry-run`: the plan as text, before any socket opens. */
import { formatDurationMs } from '../util/duration.ts';
import type { Plan, PlannedTask } from './plan.ts';
import { TASKS } from '../procedures/registry.ts';

/** The task's line, and under it what it sends (from its declaration). */
const taskLine = (t: PlannedTask, indent = '') =>
  `${t.kind} [${t.orgs.join(', ')}]${t.consumes === 'none' ? '' : ` (${t.consumes === "ingest" ? "an" : "a"} ${t.consumes} window)`}: ${t.checks.join(', ')}\n${indent}  ${TASKS[t.kind].describe}`;

export function describePlan(plan: Plan, windowMs: number): string {
  const lines: string[] = [];
  for (const tier of plan.tiers) {
    lines.push(`${tier.tier}: organizations ${tier.orgs.join(', ')}`);
    // runSuite learns the limiter before a tier's quota tasks (procedures/discover.ts).
    const quota = [...tier.joint, ...Object.values(tier.lanes).flat()].some((t) => t.consumes !== 'none');
    if (quota && tier.orgs[0]) lines.push(`  before all: learn how the server limits, on ${tier.orgs[0]} (about two windows)`);
    for (const joint of tier.joint) lines.push(`  first, together: ${taskLine(joint, '  ')}`);
    for (const org of tier.orgs) {
      const lane = tier.lanes[org] ?? [];
      lines.push(`  lane ${org}:${lane.length === 0 ? ' (no task of its own)' : ''}`);
      for (const task of lane) lines.push(`    ${taskLine(task, '    ')}`);
    }
    if (tier.collected.length > 0) lines.push(`  over every response: ${tier.collected.join(', ')}`);
  }
  if (plan.revocation) lines.push(`revocation: ${taskLine(plan.revocation)}`);
  for (const load of plan.load) lines.push(`load: ${taskLine(load)}`);
  lines.push(`checks: ${plan.checks.length}; quota windows needed: ${plan.windowsNeeded} (window ${formatDurationMs(windowMs)})`);
  return `${lines.join('\n')}\n`;
}
