/**
 * Every task kind, declared once in its own module. The plan lays a tier's lane tasks out in this
 * order, a task whose last request opens a window (read-sequential) first, so another can follow it.
 */
import type { CheckId } from '../catalogue/types.ts';
import type { TaskKind } from '../catalogue/task-kinds.ts';
import { access } from './access.ts';
import { isolation } from './isolation.ts';
import { concurrency } from './concurrency.ts';
import { ingestBulk, ingestSingle } from './ingest.ts';
import { readBurst } from './read-burst.ts';
import { readSequential } from './read-sequential.ts';
import { revocationTask } from '../revocation/task.ts';
import { load } from './load.ts';
import { declaredChecks, type RegisteredTask } from '../suite/task.ts';

export const TASKS: { readonly [K in TaskKind]: RegisteredTask<K> } = {
  access,
  isolation,
  concurrency,
  'ingest-single': ingestSingle,
  'read-burst': readBurst,
  'ingest-bulk': ingestBulk,
  'read-sequential': readSequential,
  revocation: revocationTask(),
  load,
};

/** The task kinds that decide a check (a check may be decided by several: QUOTA-READ by two). */
export function kindsDeciding(id: CheckId): readonly TaskKind[] {
  return Object.values(TASKS)
    .filter((t) => declaredChecks(t).includes(id))
    .map((t) => t.kind);
}
