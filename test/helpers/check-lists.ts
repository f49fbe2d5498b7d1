/** Check lists the whole-suite tests expect, derived from the task registry (never written out by hand). */
import { CHECK_IDS, type CheckId } from '../../src/catalogue/types.ts';
import { kindsDeciding } from '../../src/tasks/registry.ts';

/** Every check a tier's own lanes decide: all but revocation's and the opt-in load. */
export const TIER_CHECKS: readonly CheckId[] = CHECK_IDS.filter(
  (id) => !kindsDeciding(id).some((kind) => kind === 'revocation' || kind === 'load'),
);

/** The checks the revocation task decides. */
export const REVOCATION_CHECKS: readonly CheckId[] = CHECK_IDS.filter((id) => kindsDeciding(id).includes('revocation'));
