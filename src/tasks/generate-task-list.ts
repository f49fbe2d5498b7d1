/**
 * Rewrites tasks/task-list.ts and catalogue/task-kinds.ts from the task modules in src/tasks/
 * (`npm run generate` runs it with the other generators). A test fails when either is stale.
 */
import { writeLists } from '../util/generated-list.ts';
import { taskKindsSource, taskListSource, tasksInOrder } from './task-list-source.ts';

await writeLists(
  new URL('./', import.meta.url),
  { list: './task-list.ts', literals: '../catalogue/task-kinds.ts' },
  { order: tasksInOrder, list: taskListSource, literals: taskKindsSource },
);
