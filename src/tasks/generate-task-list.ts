/**
 * Rewrites tasks/task-list.ts and catalogue/task-kinds.ts from the task modules in src/tasks/
 * (`npm run generate` runs it with the other generators). A test fails when either is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { moduleExports } from '../util/generated-list.ts';
import { taskKindsSource, taskListSource, tasksInOrder } from './task-list-source.ts';

const here = new URL('./', import.meta.url);
const listUrl = new URL('./task-list.ts', here);
const kindsUrl = new URL('../catalogue/task-kinds.ts', here);
const tasks = tasksInOrder(await moduleExports(here), await readFile(listUrl, 'utf8').catch(() => ''));
await writeFile(listUrl, taskListSource(tasks));
await writeFile(kindsUrl, taskKindsSource(tasks));
process.stdout.write(`wrote ${listUrl.pathname} and ${kindsUrl.pathname}\n`);
