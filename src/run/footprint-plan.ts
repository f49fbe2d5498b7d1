/**
 * The run's footprint, said before it starts (the dry run, and the run's first lines): what it will
 * write to the deployment per tier, under the config's `writes` policy. Uploads are the plan's for a
 * clean run; a window measured again, an opener or a lost upload made up adds a few.
 */
import type { Contract, OrgLimits } from '../contract/types.ts';
import type { WritePolicy } from '../contract/writes.ts';
import { figuresOf } from '../contract/org-limits.ts';
import type { Plan, PlannedTask } from './plan.ts';

/** Uploads a task sends in a clean run, by the first organization's figures: its series past the Limit, or the cap held and one more. */
function uploadsOf(task: PlannedTask, contract: Contract, limitsOf: (org: string) => Partial<OrgLimits> | undefined): string | null {
  const figures = figuresOf(contract, { tier: task.tier, limits: limitsOf(task.orgs[0] ?? '') });
  switch (task.kind) {
    case 'ingest-single':
      return `${figures.ingest.value + 1} single uploads`;
    case 'ingest-bulk':
      return `${figures.ingest.value + 1} resumes in bulk uploads`;
    case 'concurrency':
      return `${figures.concurrency.value} single uploads held at once (twice where measured again)`;
    default:
      return null;
  }
}

export function plannedWrites(plan: Plan, policy: WritePolicy, contract: Contract, limitsOf: (org: string) => Partial<OrgLimits> | undefined = () => undefined): string[] {
  if (policy === 'none') {
    const none = 'writes: none (config): nothing is created or changed; the ingest and concurrency checks are skipped, and the scope checks send writes a body the deployment refuses after its scope check';
    return plan.revocation ? [none, `  revocation on ${plan.revocation.orgs.join(', ')}: keys provisioned and revoked through your revocation hook, as configured`] : [none];
  }
  const lines = ['writes: own: what the checks need, named tiergate and the run id'];
  for (const tier of plan.tiers) {
    const tasks = [...tier.joint, ...Object.values(tier.lanes).flat()];
    const scoped = tasks.filter((t) => t.checks.includes('SCOPE-ENFORCED')).map((t) => t.orgs[0]!);
    const parts: string[] = [];
    if (scoped.length > 0) {
      parts.push(
        `on ${scoped.join(', ')} (SCOPE-ENFORCED): a job created, updated, then archived; a webhook subscription (left behind: the spec has no call to remove one); a single upload and a bulk upload of one resume`,
      );
    }
    for (const task of tasks) {
      const uploads = uploadsOf(task, contract, limitsOf);
      if (uploads) parts.push(`${task.kind} on ${task.orgs[0]}: about ${uploads}`);
    }
    if (tier.profile) parts.push(`the limiter profile on ${tier.profile.org}: one or two single uploads`);
    if (parts.length > 0) lines.push(`  ${tier.tier}: ${parts.join('; ')}`);
  }
  // Revocation writes keys whatever the policy: its hooks are the user's own.
  if (plan.revocation) lines.push(`  revocation on ${plan.revocation.orgs.join(', ')}: keys provisioned through the revocation hook, one per trial and one per chain of trials at once, and each trial's key revoked`);
  return lines;
}
