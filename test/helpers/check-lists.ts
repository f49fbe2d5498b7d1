/** Check lists the whole-suite tests expect, derived from the task registry (never written out by hand). */
import { CHECK_IDS, type CheckId } from '../../src/catalogue/types.ts';
import { kindsDeciding, TASKS } from '../../src/tasks/registry.ts';

/** Every check a tier's own lanes decide: all but revocation's and the opt-in load. */
export const TIER_CHECKS: readonly CheckId[] = CHECK_IDS.filter(
  (id) => !kindsDeciding(id).some((kind) => kind === 'revocation' || kind === 'load'),
);

/** The checks the revocation task decides. */
export const REVOCATION_CHECKS: readonly CheckId[] = CHECK_IDS.filter((id) => kindsDeciding(id).includes('revocation'));

/**
 * Each result a tier run reports, as `ID` or `ID/variant`: every variant the tasks deciding it
 * declare; a check no task decides (HDR-PRESENT, judged over the whole run) once, without one.
 */
export const TIER_RESULTS: readonly string[] = TIER_CHECKS.flatMap((id) => {
  const variants = new Set(Object.values(TASKS).flatMap((task) => (id in task.decides ? [task.decides[id]] : [])));
  return variants.size === 0 ? [id] : [...variants].map((variant) => (variant ? `${id}/${variant}` : id));
});
