/** User mistakes on `tiergate run` / `list`: one line naming the input and the fix, exit 2, no stack trace; the defaults in help and docs/cli.md; k6 subcommands. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRunOptions } from '../../src/cli/run.ts';
import { serveOptions } from '../../src/cli/serve.ts';
import { DEFAULTS, PARSE_MS } from '../../src/config/defaults.ts';
import { resolveTargetOptions, TARGET_DEFAULTS } from '../../src/reference-server/options.ts';
import { formatDurationMs } from '../../src/util/duration.ts';
import { makeCertificates } from '../../src/reference-server/certificates.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';

describe('tiergate run: flag errors', () => {
  it.each([
    [['run', '--window', 'banana'], /--window banana: expected a duration/],
    [['run', '--window', '1500ms'], /--window 1500ms: windows are whole seconds/],
    [['run', '--tiers', 'gold'], /--tiers gold: unknown gold; choose from starter, professional, enterprise/],
    [['run', '--checks', 'QUOTA-READ,NOPE'], /--checks QUOTA-READ,NOPE: unknown NOPE/],
    [['run', '--target-fault', 'made-up'], /--target-fault made-up: unknown made-up/],
    [['run', '--edges', '0'], /--edges 0: expected a whole number from 1 to 32/],
    [['run', '--scenario', 'nowhere.ts'], /--scenario nowhere.ts: cannot load it \(file not found\)/],
    [['run', '--config', 'missing.json'], /--config missing.json: cannot read the file \(ENOENT\)/],
    [['run', '--no-such-flag'], /Unknown argument/],
    [['bogus'], /Unknown argument: bogus/],
  ])('%j', async (argv, mentions) => {
    expectUsageError(await runCli(argv), mentions);
  });

  it('reports every invalid config field by path in one message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-config-'));
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({
        target: { edges: ['not a url'] },
        window: 'soon',
        orgs: [{ name: 'Acme!', tier: 'gold', keys: { primary: 'xh_test_literal' } }],
        extra: 1,
      }),
    );
    const result = await runCli(['run', '--config', 'bad.json'], {}, dir);
    expectUsageError(result, /target\.edges\.0/);
    for (const path of ['window', 'orgs.0.name', 'orgs.0.tier', 'orgs.0.keys.primary', 'extra'])
      expect(result.stderr).toContain(path);
    expect(result.stderr).toContain('{"env": "VARIABLE"}');
  });

  it('names a missing environment variable holding a key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-config-'));
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
    const result = await runCli(['run', '--config', 'ok.json', '--dry-run'], {}, dir);
    expectUsageError(result, /orgs\.0\.keys\.primary: environment variable XH_ACME_KEY is not set/);
    expect(result.stderr).toMatch(/orgs\.0\.keys\.unscoped: environment variable XH_ACME_NOSCOPE is not set/);
  });
});

describe('tiergate run --dry-run against a deployment', () => {
  it('says LOAD-THRESHOLDS is refused, and why, where an edge is not a loopback address', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-far-'));
    writeFileSync(
      join(dir, 'far.json'),
      JSON.stringify({
        target: { edges: ['https://api.example.com'], allowNonLoopback: true },
        orgs: [{ name: 'starter-a', tier: 'starter', keys: { primary: { env: 'XH_A_KEY' } } }],
      }),
    );
    const result = await runCli(
      ['run', '--config', 'far.json', '--dry-run', '--checks', 'LOAD-THRESHOLDS'],
      { XH_A_KEY: 'unused' },
      dir,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^refused: load \(starter\): LOAD-THRESHOLDS skipped: https:\/\/api\.example\.com is not a loopback address: latencies measured from here would include the distance to the deployment/m,
    );
    expect(result.stdout).not.toMatch(/^load: /m);
  });
});

describe('tiergate run --dry-run and tiergate list', () => {
  it('prints the plan without sending anything', async () => {
    const result = await runCli(['run', '--dry-run', '--window', '3s']);
    expect(result.code).toBe(0);
    for (const tier of ['starter', 'professional', 'enterprise'])
      expect(result.stdout).toContain(`${tier}: organizations ${tier}-a, ${tier}-b, ${tier}-c`);
    expect(result.stdout).toMatch(/quota windows needed: 3 \(window 3s\)/);
    expect(result.stdout).toContain('revocation: revocation');
    expect(result.stdout).toContain(
      'beside the lanes: learn how the server limits (two to four windows), on starter-profile',
    );
    expect(result.stdout).toContain("headers: x-ratelimit judged: §8's X-RateLimit-* names");
  });

  it('states a declared header dialect before anything is sent', async () => {
    const result = await runCli(['run', '--dry-run', '--tiers', 'starter', '--declare-headers', 'ietf']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      "headers: ietf judged: the deployment departs from §8's X-RateLimit-* header names by declaration",
    );
  });

  it('lists every check with its spec section and basis', async () => {
    const result = await runCli(['list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/QUOTA-READ\s+§7\.1, §8\s+Exactly Limit read requests succeed/);
    expect(result.stdout).toContain('[spec]');
    expect(result.stdout).toContain('assumes auth-status');
  });
});

describe('defaults: one owner, the same in every command, its help and the documents', () => {
  const runArgs = {
    scenario: [],
    'dry-run': true,
    'keep-bodies': false,
    engine: 'harness',
    'target-fault': [],
    'target-variant': [],
  } as const;

  it("run's embedded target and serve's start alike, the parse time following the window", async () => {
    const { io } = captureIo();
    const long = await resolveRunOptions({ ...runArgs, tiers: 'starter' }, io, []);
    expect(long).toMatchObject({
      windowMs: DEFAULTS.windowMs,
      timeoutMs: DEFAULTS.timeoutMs,
      outDir: DEFAULTS.reportsDir,
    });
    expect(long.target).toMatchObject({
      edges: DEFAULTS.edges,
      revocationDelayMs: DEFAULTS.revocationDelayMs,
      parseMs: PARSE_MS.longWindows,
    });
    const short = await resolveRunOptions({ ...runArgs, tiers: 'starter', window: '3s' }, io, []);
    expect(short.target).toMatchObject({ parseMs: PARSE_MS.shortWindows });
    for (const run of [long, short]) {
      const served = resolveTargetOptions(
        serveOptions({ fault: [], variant: [], window: `${run.windowMs / 1000}s` }).target,
      );
      expect(run.target).toMatchObject({
        edges: served.edges,
        revocationDelayMs: served.revocationDelayMs,
        revocationJitterMs: served.revocationJitterMs,
        parseMs: served.parseMs,
      });
    }
  });

  it("run's embedded target takes serve's --tls, --latency and --jitter, plain and next door by default", async () => {
    const { io } = captureIo();
    const plain = await resolveRunOptions({ ...runArgs, tiers: 'starter' }, io, []);
    expect(plain.target).toMatchObject({ tls: false, latencyMs: 0, jitterMs: 0 });
    const far = await resolveRunOptions(
      { ...runArgs, tiers: 'starter', tls: true, latency: '80ms', jitter: '10ms' },
      io,
      [],
    );
    expect(far.target).toMatchObject({ tls: true, latencyMs: 80, jitterMs: 10 });
    await expect(
      resolveRunOptions({ ...runArgs, tiers: 'starter', latency: '10ms', jitter: '20ms' }, io, []),
    ).rejects.toThrow(/^--jitter 20ms: at most the latency \(--latency 10ms\)/);
  });

  it("run's embedded target takes serve's --headers, x-ratelimit by default", async () => {
    const { io } = captureIo();
    expect((await resolveRunOptions({ ...runArgs, tiers: 'starter' }, io, [])).target).toMatchObject({
      headers: 'x-ratelimit',
    });
    const ietf = await resolveRunOptions({ ...runArgs, tiers: 'starter', headers: 'ietf' }, io, []);
    expect(ietf.target).toMatchObject({ headers: 'ietf' });
    await expect(resolveRunOptions({ ...runArgs, tiers: 'starter', headers: 'IETF' }, io, [])).rejects.toThrow(
      /^--headers IETF: expected one of x-ratelimit, ietf, ietf-draft-7, ietf-draft-6$/,
    );
    await expect(
      resolveRunOptions({ ...runArgs, tiers: 'starter', 'target-fault': ['policy-missing'] }, io, []),
    ).rejects.toThrow(
      '--target-fault: "policy-missing" bends the headers of ietf-draft-7, ietf-draft-6, not x-ratelimit; name its dialect with --headers',
    );
  });

  it('run --declare-headers declares the dialect judged, apart from the --headers the target speaks', async () => {
    const { io } = captureIo();
    const undeclared = await resolveRunOptions({ ...runArgs, tiers: 'starter', headers: 'ietf' }, io, []);
    expect(undeclared.declaredHeaders).toBeUndefined();
    const declared = await resolveRunOptions(
      { ...runArgs, tiers: 'starter', headers: 'ietf', 'declare-headers': 'ietf' },
      io,
      [],
    );
    expect(declared.declaredHeaders).toEqual({ dialect: 'ietf', policies: {} });
    // Declared alone, the target still speaks §8's triple: what is judged and what is sent are two things.
    const alone = await resolveRunOptions({ ...runArgs, tiers: 'starter', 'declare-headers': 'ietf-draft-6' }, io, []);
    expect([alone.target, alone.declaredHeaders]).toMatchObject([
      { headers: 'x-ratelimit' },
      { dialect: 'ietf-draft-6' },
    ]);
    await expect(resolveRunOptions({ ...runArgs, tiers: 'starter', 'declare-headers': 'rfc' }, io, [])).rejects.toThrow(
      /^--declare-headers rfc: expected one of x-ratelimit, ietf, ietf-draft-7, ietf-draft-6$/,
    );
  });

  it("run --declare-headers with --config is one line pointing at the config's headers, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-config-'));
    writeFileSync(
      join(dir, 'ok.json'),
      JSON.stringify({
        target: { edges: ['http://127.0.0.1:9'] },
        orgs: [{ name: 'acme', tier: 'starter', keys: { primary: { env: 'XH_ACME_KEY' } } }],
      }),
    );
    const result = await runCli(
      ['run', '--config', 'ok.json', '--dry-run', '--declare-headers', 'ietf'],
      // A key of the right shape, made here: no full key is written into the repository.
      { XH_ACME_KEY: `xh_test_${'0123456789abcdef'.repeat(2)}` },
      dir,
    );
    expectUsageError(
      result,
      /^tiergate: --declare-headers ietf: a config declares its dialect itself; write "headers": "ietf"/,
    );
  });

  it('--revocation-parallel takes a whole number from 1, and leaves it to the scenario when absent', async () => {
    const { io } = captureIo();
    expect(
      (await resolveRunOptions({ ...runArgs, tiers: 'starter', 'revocation-parallel': '2' }, io, [])).revocation,
    ).toMatchObject({ parallel: 2 });
    expect((await resolveRunOptions({ ...runArgs, tiers: 'starter' }, io, [])).revocation.parallel).toBeUndefined();
    await expect(
      resolveRunOptions({ ...runArgs, tiers: 'starter', 'revocation-parallel': '0' }, io, []),
    ).rejects.toThrow(/--revocation-parallel 0/);
  });

  it('--revocation-confidence: a target in words; one more trials than --revocation-trials gives would take, or than a run allows, is a usage error', async () => {
    const { io } = captureIo();
    expect(
      (await resolveRunOptions({ ...runArgs, tiers: 'starter', 'revocation-confidence': '99%@95%' }, io, []))
        .revocation,
    ).toMatchObject({ confidence: { share: 0.99, level: 0.95 } });
    // 0.99^299 ≤ 0.05 < 0.99^298: 299 trials, none slower.
    expect(
      (
        await resolveRunOptions(
          { ...runArgs, tiers: 'starter', 'revocation-confidence': '99%', 'revocation-trials': '299' },
          io,
          [],
        )
      ).revocation,
    ).toMatchObject({ trials: 299 });
    expectUsageError(
      await runCli(['run', '--dry-run', '--revocation-confidence', '99%', '--revocation-trials', '298']),
      /--revocation-confidence: 99 % of revocations within 3 s, at 95 % confidence takes 299 trials, none slower; --revocation-trials 298 cannot prove it/,
    );
    // Beyond what a run allows is said first, whatever --revocation-trials gives.
    expectUsageError(
      await runCli(['run', '--dry-run', '--revocation-confidence', '99.9%', '--revocation-trials', '1000']),
      /takes 2995 trials, none slower, more than the 1000 a run allows/,
    );
    expectUsageError(
      await runCli(['run', '--dry-run', '--revocation-confidence', 'most']),
      /--revocation-confidence: "most" is not a target/,
    );
    const plan = await runCli(['run', '--dry-run', '--tiers', 'starter', '--revocation-confidence', '95%']);
    expect(plan.stdout).toContain(
      '59 trials, at most 7 at once; target 95 % of revocations within 3s, at 95 % confidence: proving it takes 59 trials, none slower',
    );
  });

  it('--scenario: two for one tier is a usage error', async () => {
    expectUsageError(
      await runCli([
        'run',
        '--dry-run',
        '--tiers',
        'starter',
        '--scenario',
        'scenarios/starter.ts',
        '--scenario',
        'scenarios/starter.ts',
      ]),
      /--scenario: two scenarios for tier starter; give one per tier/,
    );
  });

  it('run and serve --help show the target defaults', async () => {
    for (const command of ['run', 'serve']) {
      const { code, stdout } = await runCli([command, '--help']);
      expect(code).toBe(0);
      for (const shown of [
        `[default: ${DEFAULTS.windowMs / 1000}s]`,
        `[default: ${TARGET_DEFAULTS.edges}]`,
        `[default: ${formatDurationMs(TARGET_DEFAULTS.revocationDelayMs)}]`,
        `[default: ${PARSE_MS.shortWindows} with windows under ${formatDurationMs(PARSE_MS.longFromWindowMs)}, else ${PARSE_MS.longWindows}]`,
      ]) {
        expect(stdout).toContain(shown);
      }
    }
  });

  it('docs/cli.md states the same defaults (and the benchmarks the delay they were measured at)', () => {
    const commands = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    for (const stated of [
      `\`--out DIR\` (default \`${DEFAULTS.reportsDir}\`)`,
      `\`--edges N\` (default \`${TARGET_DEFAULTS.edges}\`)`,
      `\`--revocation-delay\` (default \`${formatDurationMs(TARGET_DEFAULTS.revocationDelayMs)}\`)`,
      `\`--parse-ms\` (default \`${PARSE_MS.shortWindows}\`, \`${PARSE_MS.longWindows}\` with windows of \`${formatDurationMs(PARSE_MS.longFromWindowMs)}\` or more)`,
      `\`--timeout\` (default \`${formatDurationMs(DEFAULTS.timeoutMs)}\`)`,
      `default \`${DEFAULTS.windowMs / 1000}s\``,
    ]) {
      expect(commands).toContain(stated);
    }
    // The revocation figures on record were measured at the default delay (docs/benchmarks.md).
    const benchmarks = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(benchmarks).toContain(`upper bound p50 306 ms for a ${DEFAULTS.revocationDelayMs} ms delay`);
  });

  it('a repeated single-valued flag takes the last value', async () => {
    const result = await runCli(['run', '--dry-run', '--tiers', 'starter', '--window', '5s', '--window', '3s']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('(window 3s)');
  });
});

describe('tiergate k6: a subcommand per action, each with its own --help', () => {
  it.each([
    [
      'export',
      ['--out', '--tiers', '--scenario', '--revocation', '--config'],
      ['--parallelism', '--window', '--image', '--date-lag'],
    ],
    [
      'operator',
      [
        '--out',
        '--parallelism',
        '--base-url',
        '--namespace',
        '--window',
        '--image',
        '--revocation',
        '--region',
        '--config',
      ],
      ['--date-lag'],
    ],
    [
      'ingest',
      ['[files..]', '--out', '--window', '--tiers', '--revocation', '--date-lag'],
      ['--parallelism', '--image', '--config'],
    ],
  ])('k6 %s --help', async (action, shown, hidden) => {
    const { code, stdout } = await runCli(['k6', action, '--help']);
    expect(code).toBe(0);
    for (const flag of shown) expect(stdout).toContain(flag);
    for (const flag of hidden) expect(stdout).not.toContain(flag);
  });

  it.each([
    [
      ['k6', 'ingest', '--date-lag', '1s', 'a.json'],
      /^tiergate: k6 ingest: --date-lag applies only with --revocation RUN-DIR/,
    ],
    [
      ['k6', 'ingest', '--revocation', 'no-such-run', '--date-lag', 'soon', 'a.json'],
      /^tiergate: --date-lag soon: expected a duration like 500ms/,
    ],
    [['k6', 'ingest', '--revocation', 'no-such-run', 'a.json'], /^tiergate: .*no-such-run.*results\.json/],
    [
      ['k6', 'ingest', '--revocation', 'no-such-run', '--window', '3s', 'a.json'],
      /^tiergate: k6 ingest --revocation: --window does not apply/,
    ],
  ])('k6 ingest --revocation: a mistake is one line, exit 2 (%j)', async (argv, message) => {
    expectUsageError(await runCli(argv), message);
  });

  it('k6 export --config: where the config names target.ca, the k6 command printed sets SSL_CERT_FILE to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-k6-ca-'));
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'my ca.pem'), (await makeCertificates('valid')).caPem);
    writeFileSync(
      join(dir, 'conf', 'tiergate.config.json'),
      JSON.stringify({
        target: { edges: ['https://127.0.0.1:8443'], ca: 'my ca.pem' },
        orgs: [{ name: 'starter-a', tier: 'starter', keys: { primary: { env: 'XH_A_KEY' } } }],
      }),
    );
    const ca = join(dir, 'conf', 'my ca.pem');
    // No key is needed to export: only the config's CA is read.
    const config = ['--config', 'conf/tiergate.config.json'];
    const vantage = await runCli(['k6', 'export', '--revocation', '--out', 'scripts', ...config], {}, dir);
    expect(vantage.code).toBe(0);
    expect(vantage.stdout).toContain(`Start it on each vantage point before the run: SSL_CERT_FILE='${ca}' k6 run `);
    expect(vantage.stdout).toContain(`SSL_CERT_FILE names target.ca's CA, which k6 must trust to reach the edges`);
    const tiers = await runCli(['k6', 'export', '--tiers', 'starter', '--out', 'scripts', ...config], {}, dir);
    expect(tiers.stdout).toContain(`Run one: SSL_CERT_FILE='${ca}' k6 run -e BASE_URL=`);
    const operator = await runCli(
      ['k6', 'operator', '--revocation', '--region', 'eu-west-1', '--out', 'op', ...config],
      {},
      dir,
    );
    expect(operator.stdout).toContain(
      `mount ${ca} into each runner pod (a Secret or ConfigMap volume) and set the runner's SSL_CERT_FILE`,
    );
    // Without --config, nothing of the kind.
    expect((await runCli(['k6', 'export', '--revocation', '--out', 'scripts'], {}, dir)).stdout).not.toContain(
      'SSL_CERT_FILE',
    );
  }, 60_000);

  it('refuses files given to an action that takes none', async () => {
    expectUsageError(
      await runCli(['k6', 'export', '--out', 'x', 'runner.ndjson']),
      /^tiergate: k6 export: unexpected runner\.ndjson \(only ingest takes files\)/,
    );
  });
});
