/**
 * The plan's uploads: for each ingest task, whether its uploads fit one window at the target's upload
 * time (suite/upload-fit.ts), said before any quota is spent, in the dry run and when the run
 * starts. Where the upload time is not known yet (a deployment), the longest it may be.
 */
import type { Contract, OrgLimits } from '../contract/types.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { TASKS } from '../tasks/registry.ts';
import { underCap } from '../suite/batches.ts';
import { uploadFit, uploadFitText, type UploadFit } from '../suite/upload-fit.ts';
import { formatDurationMs } from '../util/duration.ts';
import type { Plan, PlannedTask } from './plan.ts';

export interface PlannedUploads {
  readonly task: PlannedTask;
  /** null where the upload time is not known before the run measures it. */
  readonly fit: UploadFit | null;
  /** One line: the task, and what its uploads need. */
  readonly line: string;
}

/**
 * `limitsOf`: the figures an organization of the plan declares (config `orgs[].limits`), where it does;
 * the task is planned by the first organization's figures, as it runs.
 */
export function plannedUploads(
  plan: Plan,
  contract: Contract,
  windowMs: number,
  uploadMs: number | null,
  limitsOf: (org: string) => Partial<OrgLimits> | undefined = () => undefined,
): PlannedUploads[] {
  const tasks = plan.tiers
    .flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()])
    .filter((t) => t.consumes === 'ingest');
  return tasks.map((task) => {
    const figures = figuresOf(contract, { tier: task.tier, limits: limitsOf(task.orgs[0] ?? '') });
    // An ingest task's rounds are its batches: no round trip or window changes them.
    const planning = { roundTripMs: uploadMs ?? 0, windowMs, bulk: 'auto' } as const;
    const rounds = (TASKS[task.kind].rounds ?? (() => 0))(
      figures.ingest.value,
      underCap(figures.concurrency.value),
      planning,
    );
    const what = `${task.kind} [${task.orgs.join(', ')}] (${task.checks.join(', ')})`;
    if (uploadMs === null) {
      const longest = uploadFit(rounds, 0, windowMs);
      return {
        task,
        fit: null,
        line: `${what}: ${longest.uploadTimes} upload times one after another; fits a ${formatDurationMs(windowMs)} window while an upload takes at most ${formatDurationMs(longest.maxUploadMs)}`,
      };
    }
    const fit = uploadFit(rounds, uploadMs, windowMs);
    return { task, fit, line: `${what}${fit.fits ? '' : ' cannot be run'}: ${uploadFitText(fit, uploadMs, windowMs)}` };
  });
}
