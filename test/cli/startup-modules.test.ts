/**
 * What the built CLI loads: --help, list and a command's --help load yargs and the flag declarations,
 * never a command's library (its packages, the reference server, the suite). A command that runs
 * loads its own. Module names, not times: the start-up time is a bench figure (bench/startup.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/tiergate.js', import.meta.url));
const HOOKS = new URL('../helpers/module-log-hooks.mjs', import.meta.url).href;
const REGISTER = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`;

/** The packages and modules only a running command needs. */
const HEAVY = [
  ...[
    'undici',
    'autocannon',
    'handlebars',
    'zod',
    'esbuild',
    'hdr-histogram-js',
    'log-update',
    'tsx',
    'yaml',
    'busboy',
    '@peculiar/x509',
    'reflect-metadata',
  ].map((name) => `/node_modules/${name}/`),
  '/dist/reference-server/server.js',
  '/dist/run/run.js',
];

/** Runs the built CLI and returns its exit code and every module URL it loaded. */
function loadedBy(args: readonly string[]): Promise<{ code: number; modules: string[] }> {
  const log = join(mkdtempSync(join(tmpdir(), 'tiergate-modules-')), 'modules.txt');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', REGISTER, BIN, ...args],
      { env: { ...process.env, TIERGATE_MODULE_LOG: log }, timeout: 20_000 },
      (error) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({
          code: typeof error?.code === 'number' ? error.code : 0,
          modules: readFileSync(log, 'utf8').trim().split('\n'),
        });
      },
    );
  });
}

const heavyIn = (modules: readonly string[]) => modules.filter((url) => HEAVY.some((part) => url.includes(part)));

describe('start-up: what each command loads', () => {
  it.each([
    [['--help']],
    [['list']],
    [['run', '--help']],
    [['profile', '--help']],
    [['serve', '--help']],
    [['serve', '--list-faults']],
    [['report', '--help']],
    [['k6', 'export', '--help']],
    [['k6', 'ingest', '--help']],
    [['init', '--help']],
    [['doctor', '--help']],
  ])("tiergate %j loads yargs and no command's library", async (args) => {
    const { code, modules } = await loadedBy(args);
    expect(code).toBe(0);
    expect(modules.some((url) => url.includes('/node_modules/yargs/'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
  });

  it('a command that runs loads its library: report loads the renderer (handlebars)', async () => {
    const { code, modules } = await loadedBy(['report', 'nowhere.json']);
    expect(code).toBe(2);
    expect(heavyIn(modules).some((url) => url.includes('/node_modules/handlebars/'))).toBe(true);
  });
});
