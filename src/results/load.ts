/**
 * Reading and checking results.json against the one schema (schema.ts): `loadResults` for saved runs
 * (`tiergate report`), `assertValidResults` before a run's results are written.
 */
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { messageOf, UsageError } from '../util/errors.ts';
import { resultsSchema } from './schema.ts';
import { RESULTS_SCHEMA, type RunResults, type ValidResults } from './types.ts';

const SHOWN_ISSUES = 5;

/** `checks[3].verdict: Invalid option …; tool.version: …`: every problem by path, a few at most. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, SHOWN_ISSUES).map((issue) => {
    const path = issue.path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
      .join('');
    return `${path || '(top level)'}: ${issue.message}`;
  });
  const more = issues.length > SHOWN_ISSUES ? `; and ${issues.length - SHOWN_ISSUES} more` : '';
  return `${lines.join('; ')}${more}`;
}

const resultsFileError = (file: string, problem: string): UsageError =>
  new UsageError(
    `${file}: ${problem}; pass the results.json a run wrote, e.g. reports/latest/results.json`,
    'TG_RESULTS_FILE',
  );

/** Reads and validates a saved results.json. Every problem is a UsageError (TG_RESULTS_FILE) naming the file. */
export async function loadResults(file: string): Promise<ValidResults> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory, not a results.json'
          : `cannot be read (${code ?? String(error)})`;
    throw resultsFileError(file, problem);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw resultsFileError(file, `not JSON (${messageOf(error)})`);
  }
  const declared = json !== null && typeof json === 'object' ? (json as { schema?: unknown }).schema : undefined;
  if (typeof declared === 'string' && declared !== RESULTS_SCHEMA) {
    throw resultsFileError(file, `written in format ${declared}; this tiergate reads ${RESULTS_SCHEMA}`);
  }
  const parsed = resultsSchema.safeParse(json);
  if (!parsed.success)
    throw resultsFileError(file, `not a valid ${RESULTS_SCHEMA} file (${describeIssues(parsed.error.issues)})`);
  return parsed.data;
}

/**
 * Results about to be written must match their own schema: a mismatch is a tiergate bug, reported as
 * such (not as the user's mistake). Returns the parsed value, exactly what a later `loadResults` reads.
 */
export function assertValidResults(results: RunResults): ValidResults {
  const parsed = resultsSchema.safeParse(results);
  if (!parsed.success)
    throw new Error(`results do not match the ${RESULTS_SCHEMA} schema: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}
