/**
 * Every task kind, declared once in its own module under tasks/ and listed in task-list.ts (written
 * by `npm run generate`). The plan lays a tier's lane tasks out in that order, a task whose last
 * request opens a window (read-sequential) first, so another can follow it.
 */
import type { CheckId } from '../catalogue/types.ts';
import type { TaskKind } from '../catalogue/task-kinds.ts';
import { declaredChecks, type RegisteredTask } from '../suite/task.ts';
import { TASK_LIST } from './task-list.ts';

/** The list's kinds and catalogue/task-kinds.ts (both generated from the modules) agree, or this does not compile. */
type ListedKind = (typeof TASK_LIST)[number]['kind'];
type UnmatchedKind = Exclude<ListedKind, TaskKind> | Exclude<TaskKind, ListedKind>;
const _kindsMatchTheModules: [UnmatchedKind] extends [never] ? true : UnmatchedKind = true;
void _kindsMatchTheModules;

/** The task of each kind: each one a registered task (a task of any other shape does not compile here). */
const registered: readonly RegisteredTask[] = TASK_LIST;

export const TASKS = Object.fromEntries(registered.map((task) => [task.kind, task])) as {
  readonly [K in TaskKind]: RegisteredTask<K>;
};

/** The task kinds that decide a check (a check may be decided by several: QUOTA-READ by two). */
export function kindsDeciding(id: CheckId): readonly TaskKind[] {
  return Object.values(TASKS)
    .filter((t) => declaredChecks(t).includes(id))
    .map((t) => t.kind);
}
