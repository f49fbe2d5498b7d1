import { lstat, mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pointLatest } from '../../src/report/render.ts';

describe('pointLatest', () => {
  let out: string;
  const runDir = async (id: string) => {
    const dir = join(out, id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'index.html'), `<p>${id}</p>`);
    return dir;
  };
  beforeEach(async () => {
    out = await mkdtemp(join(tmpdir(), 'tiergate-latest-'));
  });
  afterEach(() => rm(out, { recursive: true, force: true }));

  it('makes <out>/latest a relative symlink to the run, and moves it to the next run', async () => {
    const first = await runDir('run-1');
    expect(await pointLatest(out, first)).toEqual({ path: join(out, 'latest'), kind: 'symlink' });
    expect(await readlink(join(out, 'latest'))).toBe('run-1');
    await pointLatest(out, await runDir('run-2'));
    expect(await readlink(join(out, 'latest'))).toBe('run-2');
    expect(await readFile(join(out, 'latest', 'index.html'), 'utf8')).toBe('<p>run-2</p>');
    // The earlier run is untouched.
    expect(await readFile(join(first, 'index.html'), 'utf8')).toBe('<p>run-1</p>');
  });

  it('copies the run when symlinks fail, and replaces a copy with a symlink later', async () => {
    const refuse = async () => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    };
    expect(await pointLatest(out, await runDir('run-1'), { symlink: refuse })).toEqual({
      path: join(out, 'latest'),
      kind: 'copy',
    });
    expect((await lstat(join(out, 'latest'))).isDirectory()).toBe(true);
    expect(await readFile(join(out, 'latest', 'index.html'), 'utf8')).toBe('<p>run-1</p>');

    await pointLatest(out, await runDir('run-2'), { symlink: refuse });
    expect(await readFile(join(out, 'latest', 'index.html'), 'utf8')).toBe('<p>run-2</p>');

    expect((await pointLatest(out, await runDir('run-3'))).kind).toBe('symlink');
    expect(await readlink(join(out, 'latest'))).toBe('run-3');
  });
});
