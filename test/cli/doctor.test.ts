/**
 * `tiergate doctor` against the reference target (two edges): exit 0 with one ok line per input on
 * the config `tiergate init` writes; each broken input reported on a line of its own naming it and
 * the fix, exit 1; mistakes in the flags, the file or the environment one line, exit 2. Never a
 * full key.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unissuedKey } from '../../src/contract/keys.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';
import { closedEdge, CONFIG_FILE, initDeployment, variableOf, type Deployment } from '../helpers/deployment.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { useTarget, type TestTarget } from '../helpers/target.ts';

const target = useTarget({ edges: 2, clock: new ManualClock() });

const FULL_KEY = /xh_(test|live)_[A-Za-z0-9]{32}/;
const doctor = (d: Deployment, env = d.env) => runCli(['doctor', '--config', CONFIG_FILE], env, d.dir);
const problems = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('problem'));

describe('tiergate doctor', () => {
  it('passes the config tiergate init writes, once its keys are exported: one ok line per input', async () => {
    const d = await initDeployment(target());
    const { code, stdout, stderr } = await doctor(d);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(
      /^ok {7}target\.edges\.1 http:\/\/127\.0\.0\.1:\d+: answers \(401 to HEAD \/recruiter\/bootstrap without a key, in \d+ ms, node edge-1\)$/m,
    );
    expect(stdout).toMatch(
      /^ok {7}orgs\.0\.keys\.primary \(XH_STARTER_A_KEY: xh_test_…\w{4}\): accepted; holds every scope/m,
    );
    expect(stdout).toMatch(
      /^ok {7}orgs\.1\.keys\.unscoped \(XH_STARTER_B_KEY_NOSCOPE: xh_test_…\w{4}\): accepted, holds no scope \(403 on GET \/recruiter\/jobs/m,
    );
    expect(stdout).toMatch(/^ok {7}server clock: \+[\d.]+ s ± \d+ ms from ours/m);
    expect(stdout).toMatch(/^all 10 checks ok \(20 requests\)$/m);
    expect(stdout).not.toMatch(FULL_KEY);
  });

  type Break = (d: Deployment, t: TestTarget) => Promise<Record<string, string>>;
  const withKey = (d: Deployment, variable: string, key: string) => ({ ...d.env, [variable]: key });
  it.each<[string, Break | 'unreachable', RegExp]>([
    [
      'an unreachable edge',
      'unreachable',
      /^problem {2}target\.edges\.2 http:\/\/127\.0\.0\.1:\d+: no answer: the connection was refused \(ECONNREFUSED\); check the URL and that the edge is up$/,
    ],
    [
      'an unknown key',
      async (d) => withKey(d, variableOf(d, 'starter-b', 'secondary'), unissuedKey('xh_test_')),
      /^problem {2}orgs\.1\.keys\.secondary \(XH_STARTER_B_KEY_2: xh_test_…\w{4}\): refused with 401 on GET \/recruiter\/jobs: the key is unknown, revoked or malformed; export a current key of starter-b in XH_STARTER_B_KEY_2$/,
    ],
    [
      'a primary key missing a scope',
      async (d, t) =>
        withKey(
          d,
          variableOf(d, 'starter-a', 'primary'),
          (
            await t.admin.createKey(
              d.orgIds['starter-a']!,
              SCOPE_NAMES.filter((s) => s !== 'webhook.manage'),
              'test',
            )
          ).key,
        ),
      /^problem {2}orgs\.0\.keys\.primary \(XH_STARTER_A_KEY: xh_test_…\w{4}\): lacks webhook\.manage \(403 on POST \/recruiter\/webhooks\); a primary key holds every scope: grant it, or export such a key of starter-a in XH_STARTER_A_KEY$/,
    ],
    [
      'an unscoped key holding a scope',
      async (d, t) =>
        withKey(
          d,
          variableOf(d, 'starter-b', 'unscoped'),
          (await t.admin.createKey(d.orgIds['starter-b']!, ['jobs.read'], 'test')).key,
        ),
      /^problem {2}orgs\.1\.keys\.unscoped \(XH_STARTER_B_KEY_NOSCOPE: xh_test_…\w{4}\): admitted on GET \/recruiter\/jobs \(200\): this key holds jobs\.read; SCOPE-ENFORCED needs a key of starter-b holding no scope: export one in XH_STARTER_B_KEY_NOSCOPE$/,
    ],
    [
      "another organization's key",
      async (d) => withKey(d, variableOf(d, 'starter-b', 'primary'), d.env[variableOf(d, 'starter-a', 'primary')]!),
      /^problem {2}orgs\.1\.keys\.primary \(XH_STARTER_B_KEY: xh_test_…\w{4}\): the same key as orgs\.0\.keys\.primary \(XH_STARTER_A_KEY\); each organization needs keys of its own/,
    ],
  ])('reports %s on one line naming it and the fix, exit 1', async (_what, broken, line) => {
    const t = target();
    const d = await initDeployment(t, broken === 'unreachable' ? [await closedEdge()] : []);
    const { code, stdout, stderr } = await doctor(d, broken === 'unreachable' ? d.env : await broken(d, t));
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    expect(problems(stdout)).toHaveLength(1);
    expect(problems(stdout)[0]).toMatch(line);
    expect(stdout).toMatch(/^1 problem in \d+ checks \(\d+ requests\): fix it and run tiergate doctor again$/m);
    expect(stdout).not.toMatch(FULL_KEY);
  });

  it('names every unset variable at once, as tiergate run does: exit 2', async () => {
    const d = await initDeployment(target());
    const result = await doctor(d, {});
    expectUsageError(
      result,
      /^tiergate: orgs\.0\.keys\.primary: environment variable XH_STARTER_A_KEY is not set; export it with the key;/,
    );
    expect([...result.stderr.matchAll(/environment variable (\w+) is not set/g)].map((m) => m[1])).toEqual(
      d.keys.map((k) => k.env),
    );
    expect(result.stdout).toBe('');
  });

  it('exit 2 for a mistake in the flags or the file: one line naming it', async () => {
    const d = await initDeployment(target());
    expectUsageError(
      await runCli(['doctor'], d.env, join(d.dir, 'elsewhere')),
      /^tiergate: --config tiergate\.config\.json: cannot read the file \(ENOENT\); check the path/,
    );
    expectUsageError(
      await runCli(['doctor', '--config', CONFIG_FILE, '--tiers', 'starter'], d.env, d.dir),
      /Unknown argument: tiers/,
    );
    writeFileSync(
      join(d.dir, 'remote.json'),
      JSON.stringify({
        target: { edges: ['https://api.example.com'] },
        orgs: [{ name: 'a', tier: 'starter', keys: { primary: { env: 'K' } } }],
      }),
    );
    expectUsageError(
      await runCli(['doctor', '--config', 'remote.json'], { K: 'xh_test_k' }, d.dir),
      /^tiergate: remote\.json: .*https:\/\/api\.example\.com.* is not a loopback address; to test it, set target\.allowNonLoopback to true in the file/,
    );
    writeFileSync(
      join(d.dir, 'bad.json'),
      JSON.stringify({ target: { edges: ['http://127.0.0.1:8080/v1'] }, orgs: [] }),
    );
    expectUsageError(
      await runCli(['doctor', '--config', 'bad.json'], {}, d.dir),
      /^tiergate: bad\.json: target\.edges\.0: expected an origin .*; orgs: /,
    );
  });
});
