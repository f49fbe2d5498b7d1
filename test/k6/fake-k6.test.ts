/**
 * The stand-in k6 the tests run is held to real k6 releases: `k6 version` as k6 prints it, and `k6 run`
 * refusing the flags and --summary-mode values a release does not define (from k6's own flag
 * definitions at each tag: fixtures/k6-run-flags.json). What tiergate hands k6 is checked against
 * every release it supports.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { K6_RUNNER_ARGUMENTS } from '../../src/k6/operator.ts';
import { NO_SUMMARY_FLAG, OLDEST_K6, k6Supported, parseK6Version } from '../../src/k6/version.ts';

const FAKE = fileURLToPath(new URL('./fixtures/fake-k6.mjs', import.meta.url));
const TABLE = JSON.parse(readFileSync(new URL('./fixtures/k6-run-flags.json', import.meta.url), 'utf8')) as {
  versions: Record<string, { flags: string[]; summaryModes: string[] | null }>;
};

function k6(version: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [FAKE, ...args], {
    env: { ...process.env, FAKE_K6_VERSION: version },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

describe('the stand-in k6', () => {
  it('prints its version as k6 does, which tiergate reads', () => {
    const { code, out } = k6('1.8.1', 'version');
    expect(code).toBe(0);
    expect(parseK6Version(out)).toMatchObject({ major: 1, minor: 8, patch: 1, text: '1.8.1' });
  });

  it('refuses what k6 v2 removed, and takes what each release defines', () => {
    expect(k6('2.0.0', 'run', '--quiet', '--no-summary', '--out', 'json=x.json', 's.js')).toMatchObject({
      code: 255,
      err: 'Error: unknown flag: --no-summary\n',
    });
    expect(k6('2.2.0', 'run', '--summary-mode=legacy', 's.js').code).toBe(255);
    expect(k6('1.2.0', 'run', '--summary-mode=disabled', 's.js').code).toBe(255);
    // Past the flags it wants --out json=FILE (exit 2 here): the flags themselves were taken.
    expect(k6('1.8.1', 'run', '-q', '--no-summary', 's.js').code).toBe(2);
  });
});

describe('what tiergate hands k6', () => {
  const supported = Object.keys(TABLE.versions).filter((v) => k6Supported(parseK6Version(`k6 v${v}`)!));

  it('is defined by every k6 release it supports, from the oldest on', () => {
    expect(supported[0]).toBe(OLDEST_K6);
    expect(supported).toEqual(expect.arrayContaining(['1.3.0', '1.8.1', '2.0.0', '2.1.0', '2.2.0']));
    const runFlags = ['--quiet', NO_SUMMARY_FLAG, '--out'];
    const operatorFlags = K6_RUNNER_ARGUMENTS.split(/\s+/).filter((t) => t.startsWith('--'));
    for (const version of supported) {
      const { flags, summaryModes } = TABLE.versions[version]!;
      for (const arg of [...runFlags, ...operatorFlags])
        expect({ version, arg, defined: flags.includes(arg.split('=')[0]!) }).toEqual({ version, arg, defined: true });
      expect({ version, disabled: summaryModes?.includes('disabled') }).toEqual({ version, disabled: true });
    }
  });

  it('reads versions as k6 prints them, and supports none older than the oldest', () => {
    expect(parseK6Version('k6 v2.2.0 (commit/0123456789, go1.26.1, linux/amd64)\nExtensions:\n  x')).toMatchObject({
      text: '2.2.0',
    });
    expect(parseK6Version('k6 v1.3.0 (go1.25.1, linux/amd64)')).toMatchObject({ text: '1.3.0' });
    expect(parseK6Version('k6 (devel)')).toBeNull();
    expect(['1.2.9', '1.3.0-rc1', '0.57.0'].map((v) => k6Supported(parseK6Version(`k6 v${v}`)!))).toEqual([
      false,
      false,
      false,
    ]);
    expect(['1.3.0', '1.10.0', '2.0.0'].map((v) => k6Supported(parseK6Version(`k6 v${v}`)!))).toEqual([
      true,
      true,
      true,
    ]);
  });
});
