/**
 * The check catalogue (README "The checks"): stable IDs, the spec section each enforces, its
 * requirement, verdict and report, one module per check in src/checks/.
 */
import { CHECK_MODULES } from './registry.ts';
import type { CheckDeclaration } from './define.ts';
import type { CheckId } from '../catalogue/types.ts';

/** A check as the catalogue holds it: its module's declaration, literal types kept. */
export type CheckDefinition = (typeof CHECK_MODULES)[number];

/** The modules' IDs and catalogue/check-ids.ts (both generated from the modules) agree, or this does not compile. */
type UnmatchedId = Exclude<CheckDefinition['id'], CheckId> | Exclude<CheckId, CheckDefinition['id']>;
const _idsMatchTheModules: [UnmatchedId] extends [never] ? true : UnmatchedId = true;
void _idsMatchTheModules;

const definitions: readonly CheckDefinition[] = CHECK_MODULES;

export const catalogue: ReadonlyMap<CheckId, CheckDefinition> = new Map(definitions.map((d) => [d.id, d]));

export function checkDefinition(id: CheckId): CheckDefinition {
  const definition = catalogue.get(id);
  if (!definition) throw new Error(`no check ${id} in the catalogue`);
  return definition;
}

export function allChecks(): readonly CheckDefinition[] {
  return definitions;
}

/** What the report shows for a check besides its verdict (its module's `report`). */
export function reportOf(id: CheckId): CheckDeclaration['report'] {
  return checkDefinition(id).report;
}
