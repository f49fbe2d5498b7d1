/**
 * Revocation seen from several places (issue 18, item 4): a run revokes a list of disposable keys on
 * three edges of a reference target while three k6-style vantage processes probe the same keys
 * (test/helpers/vantage-process.ts, writing what k6 --out json writes for scenarios/k6/revocation.ts).
 * One vantage runs on a clock 7.3 s ahead; one also probes a fourth edge, which applies revocations
 * after 3.5 s (fault slow-revocation on the target's last edge, which the run does not probe).
 * `k6 ingest --revocation` merges each set into one table per vantage point × edge: the two that see
 * only the quick edges pass, with the skewed clock placed at its offset; with the third, REVOKE-LATENCY
 * fails naming that vantage and edge. Each merged folder verifies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { runSuite } from '../../src/run/run.ts';
import { ingestRevocationToReports } from '../../src/run/vantage-report.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { defineScenario } from '../../src/scenario/define.ts';
import type { LatencyData } from '../../src/verdicts/revoke-latency.ts';
import { DEFAULT_DATE_LAG_MS } from '../../src/verdicts/support/vantage-bounds.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { configRun, tempReportsDir } from '../helpers/run-options.ts';
import { keyOf, orgWithKey, useTarget } from '../helpers/target.ts';
import { filesUnder } from '../helpers/run-files.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';
import { expectLateOnly } from '../helpers/revocation-results.ts';
import { whyLines } from '../../src/catalogue/reasons/index.ts';

const TRIALS = 3;
/** One trial at a time needs trials + 1 keys; the run revokes every one (the last at its cleanup), so the vantages settle them all and stop by themselves. */
const KEYS = TRIALS + 1;
const SKEW_MS = 7300;
/** Why a result is what it is, for an assertion's message. */
const why = (result: Parameters<typeof whyLines>[0]) => whyLines(result).join('\n');
const PROCESS = fileURLToPath(new URL('../helpers/vantage-process.ts', import.meta.url));

const target = useTarget({ edges: 4, windowMs: 2000, revocationDelayMs: 100, faults: ['slow-revocation'] });
const children: ChildProcess[] = [];
afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

/** A vantage process probing `edges`, on a clock `skewMs` off; resolves once every edge has answered it. */
async function startVantage(
  name: string,
  edges: readonly string[],
  keys: readonly string[],
  out: string,
  skewMs = 0,
): Promise<{ child: ChildProcess; done: Promise<void> }> {
  const urls = target().target.edges;
  const child = spawn(process.execPath, ['--import', 'tsx', PROCESS], {
    env: {
      ...process.env,
      VANTAGE: name,
      EDGES: edges.map((e) => `${e}=${urls[Number(e.slice('edge-'.length))]}`).join(','),
      TIERGATE_REVOCATION_KEYS: keys.join(','),
      WATCH: '2',
      INTERVAL_MS: '25',
      SETTLE_MS: '300',
      DURATION_S: '90',
      SKEW_MS: String(skewMs),
      OUT: out,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => line === 'probing' && resolve());
    child.once('exit', (code) => reject(new Error(`vantage ${name} exited (${code}) before probing`)));
  });
  return { child, done };
}

describe('revocation seen from several vantage points', () => {
  it('merges three vantages into one table: the clock skewed by 7.3 s is placed, and a vantage seeing a slow edge fails REVOKE-LATENCY by name', async () => {
    const { admin, target: running } = target();
    const primary = await orgWithKey(admin, 'starter');
    const secondary = await keyOf(admin, primary.orgId);
    const disposable = await Promise.all(Array.from({ length: KEYS }, () => keyOf(admin, primary.orgId)));
    const env: Record<string, string> = {
      TG_ADMIN_URL: running.adminUrl,
      TG_PRIMARY: primary.key,
      TG_SECONDARY: secondary.key,
    };
    disposable.forEach((k, i) => (env[`TG_DISPOSABLE_${i}`] = k.key));
    const runEdges = ['edge-0', 'edge-1', 'edge-2'];
    const config = parseConfig(
      {
        target: { edges: running.edges.slice(0, 3) },
        window: '2s',
        timeout: '2s',
        orgs: [
          {
            name: 'starter-rev',
            tier: 'starter',
            keys: { primary: { env: 'TG_PRIMARY' }, secondary: { env: 'TG_SECONDARY' } },
          },
        ],
        revocation: {
          org: 'starter-rev',
          trials: TRIALS,
          parallel: 1,
          interval: '25ms',
          settle: '300ms',
          hook: {
            type: 'disposable',
            keys: disposable.map((k, i) => ({ env: `TG_DISPOSABLE_${i}`, id: k.keyId })),
            revoke: { type: 'http', method: 'POST', url: '{env:TG_ADMIN_URL}/admin/keys/{keyId}/revoke' },
          },
        },
      },
      'vantages test config',
    );

    const dir = tempReportsDir();
    const keys = disposable.map((k) => k.key);
    const files = { near: join(dir, 'near.json'), skewed: join(dir, 'skewed.json'), far: join(dir, 'far.json') };
    const vantages = await Promise.all([
      startVantage('near', runEdges, keys, files.near),
      startVantage('skewed', runEdges, keys, files.skewed, SKEW_MS),
      startVantage('far', [...runEdges, 'edge-3'], keys, files.far),
    ]);

    const { io } = captureIo({ env });
    const checks = ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'] as const;
    const run = await runSuite(
      configRun(config, env, { scenarios: [defineScenario({ tier: 'starter' })], checks }),
      io,
    );
    // The run probed only the quick edges: its own verdicts pass.
    expect(run.results!.checks.map((c) => `${c.id} ${c.verdict}`).sort()).toEqual(
      checks.map((id) => `${id} pass`).sort(),
    );
    // Each vantage stops once it has seen every key rejected on each of its edges (the slow edge's last 3.5 s after the run's cleanup).
    await Promise.all(vantages.map((v) => v.done));

    // The reference target stamps Date from its clock at every answer: no lag to allow for.
    const merge = (names: readonly (keyof typeof files)[], dateLagMs = 0) =>
      ingestRevocationToReports({
        runDir: run.runDir!,
        files: names.map((n) => files[n]),
        dateLagMs,
        outDir: join(dir, 'merged'),
        now: Date.now(),
        stepSummary: null,
      });

    // Two vantages that see the quick edges only: one table, every bracket under 3 s, PASS.
    const quick = await merge(['near', 'skewed']);
    const passed = quick.results.checks[0]!;
    expect(passed.verdict, why(passed)).toBe('pass');
    const data = passed.data as LatencyData;
    const views = ['this run', 'near', 'skewed'].flatMap((v) => runEdges.map((e) => `${v}: ${e}`));
    expect(data.edges.map((e) => e.edge)).toEqual([...views].sort());
    expect(data.trials).toHaveLength(TRIALS * views.length);
    // The skewed vantage's clock is placed 7.3 s ahead of the run's (run = vantage + offset), within
    // the uncertainty the verdict states, less than a second.
    const skewed = data.vantages!.filter((v) => v.vantage === 'skewed');
    expect(skewed).toHaveLength(1);
    const { offsetMs, uncertaintyMs } = skewed[0]!;
    expect(Math.abs(offsetMs! + SKEW_MS)).toBeLessThanOrEqual(uncertaintyMs! + 1);
    expect(offsetMs!).toBeLessThanOrEqual(-7000);
    expect(offsetMs!).toBeGreaterThan(-8000);
    expect(uncertaintyMs!).toBeLessThan(1000);
    expect((await verifyRun(quick.runDir, { publicKey: null })).problems).toEqual([]);
    // Allowing Date the default lag (a cache refreshed every 500 ms) widens every vantage bracket by up to a second: still decided.
    const lagged = (await merge(['near', 'skewed'], DEFAULT_DATE_LAG_MS)).results.checks[0]!;
    expect(lagged.verdict, why(lagged)).toBe('pass');

    // With the vantage that also probes the slow edge: FAIL, naming it.
    const all = await merge(['near', 'skewed', 'far']);
    const failed = all.results.checks[0]!;
    expect(failed.verdict, why(failed)).toBe('fail');
    expectLateOnly(failed, 'far: edge-3');
    expect((failed.data as LatencyData).edges.map((e) => e.edge)).toContain('far: edge-3');
    expect((await verifyRun(all.runDir, { publicKey: null })).problems).toEqual([]);
    // A vantage's probes edited (the slow edge admitting nothing) and the hash rewritten: verify judges again and names the verdict that no longer follows.
    const forged = join(dir, 'forged');
    cpSync(all.runDir, forged, { recursive: true });
    const observationsFile = join(forged, 'observations.ndjson.gz');
    const lines = gunzipSync(readFileSync(observationsFile)).toString('utf8').split('\n');
    const edited = gzipSync(
      lines.map((l) => (l.includes('"edge":"edge-3"') ? l.replace('"status":200', '"status":401') : l)).join('\n'),
    );
    writeFileSync(observationsFile, edited);
    const manifestFile = join(forged, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
      files: { name: string; bytes: number; sha256: string }[];
    };
    const entry = manifest.files.find((f) => f.name === 'observations.ndjson.gz')!;
    Object.assign(entry, { sha256: createHash('sha256').update(edited).digest('hex'), bytes: edited.length });
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    expect((await verifyRun(forged, { publicKey: null })).problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^REVOKE-LATENCY\/vantages \[starter\]: judged again from the observations, its verdict is pass, results\.json says fail/,
        ),
      ]),
    );
    // The SLA evidence page carries the table per vantage point × edge, where each clock stood, and the method.
    const page = readFileSync(join(all.runDir, 'index.html'), 'utf8');
    for (const text of ['far: edge-3', 'skewed: edge-0', 'this run: edge-2', 'Vantage points', 'ahead of the run'])
      expect(page, text).toContain(text);

    // No key reaches the merged folders: the vantages record the prefix and last four only.
    for (const file of filesUnder(join(dir, 'merged'))) {
      const text = file.endsWith('.gz') ? gunzipSync(readFileSync(file)).toString('utf8') : readFileSync(file, 'utf8');
      for (const key of keys) expect(text.includes(key), file).toBe(false);
    }
    expect(readdirSync(join(dir, 'merged')).length).toBeGreaterThanOrEqual(2);

    // What the CLI refuses, each in one line (exit 2): the vantage output judged as load, a merged folder
    // taken for the run's, a file with no probe in it.
    expectUsageError(
      await runCli(['k6', 'ingest', '--out', join(dir, 'refused'), files.near]),
      /^tiergate: k6 ingest: .*near\.json is the output of the revocation vantage script \(revocation\.js\): judge it with the run it watched/,
    );
    expectUsageError(
      await runCli(['k6', 'ingest', '--revocation', all.runDir, '--out', join(dir, 'refused'), files.near]),
      /that folder is itself a merge of vantage points; give the run's own folder/,
    );
    const notK6 = join(dir, 'notes.txt');
    writeFileSync(notK6, 'k6 was here\n');
    expectUsageError(
      await runCli(['k6', 'ingest', '--revocation', run.runDir!, '--out', join(dir, 'refused'), files.near, notK6]),
      /notes\.txt holds no tiergate_revocation_probe sample/,
    );
    // And through the CLI, what the library wrote: exit 1 on the FAIL, with the vantage named.
    // Refused before anything is judged: no run folder is left behind.
    const refused = join(dir, 'refused');
    expect(existsSync(refused) ? readdirSync(refused) : []).toEqual([]);
    const cli = await runCli([
      'k6',
      'ingest',
      '--revocation',
      run.runDir!,
      '--date-lag',
      '0ms',
      '--out',
      join(dir, 'cli'),
      files.near,
      files.far,
    ]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/FAIL\s+REVOKE-LATENCY starter: far: edge-3 over 3\.00 s/);
  }, 120_000);
});
