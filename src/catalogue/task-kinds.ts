/**
 * The kinds of task a run schedules, by name. What each decides, spends and sends is declared once,
 * in its module under tasks/ (`defineTask`); the registry there is keyed by these names, so a
 * name here without a definition, or a definition without a name, does not compile.
 */
export const TASK_KINDS = [
  'access',
  'isolation',
  'concurrency',
  'ingest-single',
  'read-burst',
  'ingest-bulk',
  'read-sequential',
  'revocation',
  'load',
] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
