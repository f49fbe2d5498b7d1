/** The task list and the kinds the lower layers use are written from the task modules, and a stale one fails here. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TASK_KINDS } from '../../src/catalogue/task-kinds.ts';
import { TASKS } from '../../src/tasks/registry.ts';
import { taskKindsSource, taskListSource, tasksInOrder } from '../../src/tasks/task-list-source.ts';
import { keptOrder, listedNames, moduleExports } from '../../src/util/generated-list.ts';

const tasksDir = new URL('../../src/tasks/', import.meta.url);
const read = (url: URL) => readFileSync(url, 'utf8');
const list = read(new URL('task-list.ts', tasksDir));

describe('the task list', () => {
  it('is the one the task modules write (if this fails: npm run generate)', async () => {
    const tasks = tasksInOrder(await moduleExports(tasksDir), list);
    expect(taskListSource(tasks)).toBe(list);
    expect(taskKindsSource(tasks)).toBe(read(new URL('../catalogue/task-kinds.ts', tasksDir)));
  });

  it("holds every task the modules export, once, keyed by its kind in the plan's order", async () => {
    const tasks = tasksInOrder(await moduleExports(tasksDir), list);
    expect(tasks.map((t) => t.literal)).toEqual([...TASK_KINDS]);
    expect(Object.keys(TASKS)).toEqual([...TASK_KINDS]);
    expect(tasks.find((t) => t.literal === 'revocation')).toMatchObject({ file: 'revocation.ts', name: 'revocation' });
    expect(listedNames(list)).toHaveLength(TASK_KINDS.length);
  });

  it('keeps the order it had: a new task goes last, a removed one goes', () => {
    const entry = (name: string) => ({ file: `${name}.ts`, name, literal: name });
    const previous = '  second,\n  first,\n';
    expect(keptOrder([entry('first'), entry('third'), entry('second')], previous).map((t) => t.name)).toEqual([
      'second',
      'first',
      'third',
    ]);
    expect(keptOrder([entry('first')], previous).map((t) => t.name)).toEqual(['first']);
  });
});
