/** `tiergate profile`: flags → ProfileOptions, and every flag mistake one line, exit 2, no stack trace. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfileOptions } from '../../src/cli/profile.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';

/** A config with one starter organization, its keys in XH_ACME_KEY / XH_ACME_NOSCOPE. */
function starterConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-profile-'));
  writeFileSync(
    join(dir, 'ok.json'),
    JSON.stringify({
      target: { edges: ['http://127.0.0.1:9'] },
      orgs: [
        {
          name: 'acme',
          tier: 'starter',
          keys: { primary: { env: 'XH_ACME_KEY' }, unscoped: { env: 'XH_ACME_NOSCOPE' } },
        },
      ],
    }),
  );
  return dir;
}
const KEYS = { XH_ACME_KEY: `xh_test_${'a'.repeat(32)}`, XH_ACME_NOSCOPE: `xh_test_${'b'.repeat(32)}` };

const defaults = { window: '60s', timeout: '5s', 'target-fault': [], 'target-variant': [], json: false } as const;

describe('tiergate profile: flag errors', () => {
  it.each([
    [['profile', '--window', 'banana'], /--window banana: expected a duration/],
    [['profile', '--window', '1500ms'], /--window 1500ms: windows are whole seconds/],
    [['profile', '--timeout', '0'], /--timeout 0: expected a duration/],
    [['profile', '--tiers', 'gold'], /--tiers gold: unknown gold; choose from starter, professional, enterprise/],
    [['profile', '--target-fault', 'made-up'], /--target-fault made-up: unknown made-up/],
    [
      ['profile', '--target-variant', 'made-up'],
      /--target-variant made-up: unknown made-up; choose from first-request-windows/,
    ],
    [
      ['profile', '--config', 'any.json', '--target-fault', 'quota-off-by-one'],
      /--target-fault applies to the embedded target only/,
    ],
    [
      ['profile', '--config', 'any.json', '--target-variant', 'head-counts'],
      /--target-variant applies to the embedded target only/,
    ],
    [['profile', '--config', 'missing.json'], /--config missing.json: cannot read the file \(ENOENT\)/],
    [['profile', '--checks', 'QUOTA-READ'], /Unknown argument: checks/],
  ])('%j', async (argv, mentions) => {
    expectUsageError(await runCli(argv), mentions);
  });

  it('names a missing environment variable holding a key', async () => {
    const result = await runCli(['profile', '--config', 'ok.json'], {}, starterConfig());
    expectUsageError(result, /orgs\.0\.keys\.primary: environment variable XH_ACME_KEY is not set/);
  });

  it('refuses a tier the config has no organization to learn on', async () => {
    const result = await runCli(
      ['profile', '--config', 'ok.json', '--tiers', 'starter,enterprise'],
      KEYS,
      starterConfig(),
    );
    expectUsageError(result, /--tiers starter,enterprise: ok\.json has no organization of tier enterprise to learn on/);
    expect(result.stderr).not.toContain(KEYS.XH_ACME_KEY);
  });

  it('lists its flags in --help', async () => {
    const result = await runCli(['profile', '--help']);
    expect(result.code).toBe(0);
    for (const flag of [
      '--config',
      '--window',
      '--tiers',
      '--target-fault',
      '--target-variant',
      '--headers',
      '--timeout',
      '--json',
    ])
      expect(result.stdout).toContain(flag);
  });
});

describe('resolveProfileOptions', () => {
  it('builds the embedded target from the flags: window, tiers, timeout, faults and variants', async () => {
    const { io } = captureIo();
    const options = await resolveProfileOptions(
      {
        ...defaults,
        window: '3s',
        timeout: '2s',
        tiers: 'starter,enterprise',
        'target-fault': ['quota-off-by-one'],
        'target-variant': ['head-counts', 'counts-rejected'],
      },
      io,
    );
    expect(options).toMatchObject({ windowMs: 3000, timeoutMs: 2000, tiers: ['starter', 'enterprise'] });
    expect(options.target).toMatchObject({
      kind: 'embedded',
      edges: 3,
      faults: ['quota-off-by-one'],
      variants: ['head-counts', 'counts-rejected'],
    });
  });

  it('takes window, timeout and tiers from a config', async () => {
    const { io } = captureIo({ env: KEYS, cwd: starterConfig() });
    const options = await resolveProfileOptions({ ...defaults, config: 'ok.json' }, io);
    expect(options).toMatchObject({ windowMs: 60_000, tiers: ['starter'] });
    expect(options.target.kind).toBe('external');
  });
});
