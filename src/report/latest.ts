/**
 * `<out>/latest`: points at the newest run directory, so `reports/latest/index.html` is always the
 * last report. A relative symlink (the reports directory stays movable), swapped in atomically by
 * rename; where symlinks are not allowed (Windows without the privilege, some mounted filesystems),
 * a copy of the run's files instead.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, rename, rm, symlink as fsSymlink } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface LatestPointer {
  /** `<outDir>/latest`. */
  readonly path: string;
  readonly kind: 'symlink' | 'copy';
}

export interface PointLatestOptions {
  /** Injected by tests to exercise the copy fallback. */
  readonly symlink?: (target: string, path: string, type: 'dir') => Promise<void>;
}

export async function pointLatest(
  outDir: string,
  runDir: string,
  options: PointLatestOptions = {},
): Promise<LatestPointer> {
  const link = join(outDir, 'latest');
  const makeLink = options.symlink ?? fsSymlink;
  await mkdir(outDir, { recursive: true });
  const temp = join(outDir, `.latest-${randomBytes(4).toString('hex')}`);
  try {
    await makeLink(relative(outDir, runDir) || '.', temp, 'dir');
    try {
      // rename() replaces an old symlink atomically; an old copy (a real directory) must go first.
      await rename(temp, link);
    } catch {
      await rm(link, { recursive: true, force: true });
      await rename(temp, link);
    }
    return { path: link, kind: 'symlink' };
  } catch {
    await rm(temp, { recursive: true, force: true });
  }
  // rm() on a symlink removes the link, never what it points at.
  await rm(link, { recursive: true, force: true });
  await cp(runDir, link, { recursive: true });
  return { path: link, kind: 'copy' };
}
