/** Which checks a fault's run needs, as the fault matrix and `bench/matrix-load.ts` run it. */
import type { CheckId } from '../../src/catalogue/types.ts';
import type { TaskKind } from '../../src/catalogue/task-kinds.ts';
import type { FaultDefinition } from '../../src/reference-server/faults.ts';
import { TASKS, kindsDeciding } from '../../src/tasks/registry.ts';
import { declaredChecks } from '../../src/suite/task.ts';

/** The task kinds a fault's run needs: those deciding a check it breaks; null: every kind (HDR-PRESENT is judged over every response). */
export function kindsFor(fault: FaultDefinition): TaskKind[] | null {
  if (fault.breaks.includes('HDR-PRESENT')) return null;
  return [...new Set(fault.breaks.flatMap(kindsDeciding))];
}

/** The checks of those task kinds, every one judged; null: every check. */
export function checksFor(fault: FaultDefinition): CheckId[] | null {
  const kinds = kindsFor(fault);
  return kinds && kinds.flatMap((k) => declaredChecks(TASKS[k]));
}
