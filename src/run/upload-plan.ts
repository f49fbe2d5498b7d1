/**
 * The plan's uploads: for each ingest task, whether its uploads fit one window at the target's upload
 * time (procedures/upload-fit.ts), said before any quota is spent, in the dry run and when the run
 * starts. Where the upload time is not known yet (a deployment), the longest it may be.
 */
import type { Contract } from '../contract/types.ts';
import { TASKS } from '../procedures/registry.ts';
import { underCap } from '../procedures/batches.ts';
import { uploadFit, uploadFitText, type UploadFit } from '../procedures/upload-fit.ts';
import { formatDurationMs } from '../util/duration.ts';
import type { Plan, PlannedTask } from './plan.ts';

export interface PlannedUploads {
  readonly task: PlannedTask;
  /** null where the upload time is not known before the run measures it. */
  readonly fit: UploadFit | null;
  /** One line: the task, and what its uploads need. */
  readonly line: string;
}

export function plannedUploads(plan: Plan, contract: Contract, windowMs: number, uploadMs: number | null): PlannedUploads[] {
  const tasks = plan.tiers.flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()]).filter((t) => t.consumes === 'ingest');
  return tasks.map((task) => {
    const figures = contract.tiers[task.tier];
    const rounds = (TASKS[task.kind].rounds ?? (() => 0))(figures.ingest.value, underCap(figures.concurrency.value));
    const what = `${task.kind} [${task.orgs.join(', ')}] (${task.checks.join(', ')})`;
    if (uploadMs === null) {
      const longest = uploadFit(rounds, 0, windowMs);
      return { task, fit: null, line: `${what}: ${longest.uploadTimes} upload times one after another; fits a ${formatDurationMs(windowMs)} window while an upload takes at most ${formatDurationMs(longest.maxUploadMs)}` };
    }
    const fit = uploadFit(rounds, uploadMs, windowMs);
    return { task, fit, line: `${what}${fit.fits ? '' : ' cannot be run'}: ${uploadFitText(fit, uploadMs, windowMs)}` };
  });
}
