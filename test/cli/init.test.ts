/**
 * `tiergate init`: the file it writes loads with `tiergate run --config` once the variables it
 * printed are set, and until then run names exactly those variables, all at once; it never
 * overwrites without --force; its flag mistakes are one line, exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CONFIG_SCHEMA_URL } from '../../src/config/json-schema.ts';
import { loadConfig } from '../../src/config/load.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-init-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The variables init printed: the first word of each indented line. */
const printedVariables = (stdout: string) => [...stdout.matchAll(/^ {2}(XH_\w+) /gm)].map((m) => m[1]!);

describe('tiergate init', () => {
  it('writes a config that run loads once the printed variables are set, with the editor schema beside it', async () => {
    const dir = tempDir();
    const init = await runCli(
      [
        'init',
        '--edge',
        'http://127.0.0.1:8080',
        '--edge',
        'http://[::1]:8081/',
        '--tiers',
        'starter,enterprise',
        '--orgs',
        '2',
      ],
      {},
      dir,
    );
    expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: '' });
    expect(init.stdout).toMatch(/^wrote tiergate\.config\.json: 2 edges, 4 organizations, 12 keys$/m);
    expect(init.stdout).toContain('tiergate doctor --config tiergate.config.json');
    const variables = printedVariables(init.stdout);
    expect(variables.slice(0, 3)).toEqual(['XH_STARTER_A_KEY', 'XH_STARTER_A_KEY_2', 'XH_STARTER_A_KEY_NOSCOPE']);
    expect(new Set(variables).size).toBe(12);

    const file = join(dir, 'tiergate.config.json');
    const json = JSON.parse(readFileSync(file, 'utf8')) as { $schema: string };
    expect(resolve(dirname(file), json.$schema)).toBe(fileURLToPath(CONFIG_SCHEMA_URL));
    const config = await loadConfig('tiergate.config.json', dir);
    expect(config.target).toEqual({
      edges: ['http://127.0.0.1:8080', 'http://[::1]:8081'],
      edgeHeader: 'x-edge-node',
      allowNonLoopback: false,
    });
    expect(config.orgs.map((o) => `${o.tier}:${o.name}`)).toEqual([
      'starter:starter-a',
      'starter:starter-b',
      'enterprise:enterprise-a',
      'enterprise:enterprise-b',
    ]);
    expect(config.revocation).toBeUndefined();

    const env = Object.fromEntries(variables.map((name, i) => [name, `xh_test_${String(i).padStart(32, 'k')}`]));
    const run = await runCli(['run', '--config', 'tiergate.config.json', '--dry-run'], env, dir);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toContain('starter: organizations starter-a, starter-b');
    expect(run.stdout).toContain('enterprise: organizations enterprise-a, enterprise-b');
  });

  it("prints the variables run names when they are missing: the same ones, all in run's one line", async () => {
    const dir = tempDir();
    const init = await runCli(['init', '--edge', 'http://127.0.0.1:8080', '--tiers', 'professional'], {}, dir);
    expect(init.code).toBe(0);
    const printed = printedVariables(init.stdout);
    expect(printed).toHaveLength(9);
    const run = await runCli(
      ['run', '--config', 'tiergate.config.json', '--dry-run'],
      { [printed[4]!]: `xh_test_${'k'.repeat(32)}` },
      dir,
    );
    expectUsageError(run, /environment variable XH_PROFESSIONAL_A_KEY is not set/);
    const named = [...run.stderr.matchAll(/environment variable (\w+) is not set/g)].map((m) => m[1]!);
    expect(named).toEqual(printed.filter((_, i) => i !== 4));
  });

  it('refuses to overwrite a file unless --force', async () => {
    const dir = tempDir();
    const file = join(dir, 'mine.json');
    writeFileSync(file, '{"hand": "written"}\n');
    const refused = await runCli(['init', '--edge', 'http://127.0.0.1:8080', '--config', 'mine.json'], {}, dir);
    expectUsageError(
      refused,
      /^tiergate: --config mine\.json: .*mine\.json already exists; pass --force to overwrite it/,
    );
    expect(refused.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe('{"hand": "written"}\n');

    const forced = await runCli(
      ['init', '--edge', 'http://127.0.0.1:8080', '--config', 'mine.json', '--force', '--tiers', 'starter'],
      {},
      dir,
    );
    expect(forced.code).toBe(0);
    expect((await loadConfig('mine.json', dir)).orgs).toHaveLength(3);
  });

  it('writes allowNonLoopback only when told to, for a non-loopback edge', async () => {
    const dir = tempDir();
    expectUsageError(
      await runCli(['init', '--edge', 'https://api.example.com'], {}, dir),
      /--edge https:\/\/api\.example\.com: not a loopback address; .*add --allow-non-loopback/,
    );
    const allowed = await runCli(
      ['init', '--edge', 'https://api.example.com', '--allow-non-loopback', '--tiers', 'starter'],
      {},
      dir,
    );
    expect(allowed.code).toBe(0);
    expect((await loadConfig('tiergate.config.json', dir)).target).toMatchObject({
      edges: ['https://api.example.com'],
      allowNonLoopback: true,
    });
  });

  it('writes --limits on the Enterprise organizations only, as the config declares them', async () => {
    const dir = tempDir();
    const init = await runCli(
      [
        'init',
        '--edge',
        'http://127.0.0.1:8080',
        '--tiers',
        'starter,enterprise',
        '--orgs',
        '2',
        '--limits',
        'read=10000, concurrency=250',
      ],
      {},
      dir,
    );
    expect({ code: init.code, stderr: init.stderr }).toEqual({ code: 0, stderr: '' });
    expect(init.stdout).toContain(
      "The Enterprise organizations declare their contract's figures (read=10000, concurrency=250): the checks hold them to exactly these.",
    );
    const config = await loadConfig('tiergate.config.json', dir);
    expect(config.orgs.map((o) => [o.name, o.limits])).toEqual([
      ['starter-a', undefined],
      ['starter-b', undefined],
      ['enterprise-a', { read: 10_000, concurrency: 250 }],
      ['enterprise-b', { read: 10_000, concurrency: 250 }],
    ]);
  });

  it.each([
    [
      ['--limits', 'read=2000'],
      /^tiergate: --limits read=2000: read must be at least 2500 for Enterprise \/ Custom \(the published minimum\): write the contracted figure$/m,
    ],
    [
      ['--limits', 'read=10000', '--tiers', 'starter'],
      /--limits read=10000: these are an Enterprise contract's figures, and the file gets no Enterprise organization \(--tiers starter\); add enterprise to --tiers/,
    ],
    [
      ['--limits', 'reads=10000'],
      /--limits reads=10000: expected figures named read, ingest, concurrency \(e\.g\. --limits read=10000,ingest=2000,concurrency=250\)/,
    ],
    [['--limits', 'read=1e4'], /--limits read=1e4: read 1e4 is not a whole number above 0/],
    [['--limits', 'read=0'], /--limits read=0: read 0 is not a whole number above 0/],
    [['--limits', 'read=3000,read=4000'], /--limits read=3000,read=4000: read given twice/],
    [['--limits', ''], /--limits \(empty\): expected figures named/],
  ])('refuses --limits %j, writing nothing', async (flags, mentions) => {
    const dir = tempDir();
    expectUsageError(await runCli(['init', '--edge', 'http://127.0.0.1:8080', ...flags], {}, dir), mentions);
    expect(() => readFileSync(join(dir, 'tiergate.config.json'))).toThrow();
  });

  it.each([
    [['init'], /^tiergate: init: name the deployment's edges with --edge URL/],
    [['init', '--edge', 'ftp://127.0.0.1'], /--edge ftp:\/\/127\.0\.0\.1: expected an http\(s\) origin/],
    [['init', '--edge', 'http://127.0.0.1:8080/v1'], /--edge http:\/\/127\.0\.0\.1:8080\/v1: .*without a path/],
    [
      ['init', '--edge', 'http://127.0.0.1:8080', '--edge', 'http://127.0.0.1:8080/'],
      /--edge http:\/\/127\.0\.0\.1:8080: given twice/,
    ],
    [['init', '--edge', 'http://127.0.0.1:8080', '--tiers', 'gold'], /--tiers gold: unknown gold/],
    [['init', '--edge', 'http://127.0.0.1:8080', '--orgs', '27'], /--orgs 27: expected a whole number from 1 to 26/],
  ])('%j', async (argv, mentions) => {
    const dir = tempDir();
    expectUsageError(await runCli(argv, {}, dir), mentions);
  });
});
