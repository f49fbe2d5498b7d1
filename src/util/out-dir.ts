/**
 * Creates an output directory the user named, or says in one line why it cannot. Level by level
 * rather than `mkdir -p`: Node's recursive mkdir loops forever under /proc.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './errors.ts';

export async function ensureOutDir(dir: string, input: string): Promise<string> {
  const target = resolve(dir);
  const missing: string[] = [];
  let probe = target;
  for (;;) {
    try {
      if (!(await stat(probe)).isDirectory())
        throw new UsageError(`${input}: ${probe} is not a directory; choose another output directory`);
      break;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || dirname(probe) === probe)
        throw new UsageError(`${input}: cannot use ${probe} (${code ?? 'error'}); choose another output directory`);
      missing.unshift(probe);
      probe = dirname(probe);
    }
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST')
        throw new UsageError(`${input}: cannot create ${level} (${code ?? 'error'}); choose another output directory`);
    }
  }
  return target;
}
