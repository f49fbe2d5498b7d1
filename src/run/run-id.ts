/** A run's identity: a sortable id, and the tool version and git revision it ran with. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PACKAGE_ROOT } from '../util/own-files.ts';

/** `20261123-104500-3f9a`: sorts by start time, unique across runs started in the same second. */
export function newRunId(wallMs: number): string {
  const stamp = new Date(wallMs).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** Version from package.json; revision from .git when tiergate runs from a checkout (null otherwise). */
export async function toolInfo(): Promise<{ name: 'tiergate'; version: string; revision: string | null }> {
  const pkg = JSON.parse(await readFile(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version?: string };
  return { name: 'tiergate', version: pkg.version ?? '0.0.0', revision: await gitRevision() };
}

async function gitRevision(): Promise<string | null> {
  try {
    const head = (await readFile(new URL('.git/HEAD', PACKAGE_ROOT), 'utf8')).trim();
    if (!head.startsWith('ref: ')) return head.slice(0, 12);
    const ref = head.slice(5);
    try {
      return (await readFile(new URL(`.git/${ref}`, PACKAGE_ROOT), 'utf8')).trim().slice(0, 12);
    } catch {
      const packed = await readFile(new URL('.git/packed-refs', PACKAGE_ROOT), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      return line ? line.slice(0, 12) : null;
    }
  } catch {
    return null;
  }
}
