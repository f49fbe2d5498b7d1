/**
 * `tiergate run --engine k6` (runSuite, engine 'k6'): without k6 on PATH it stops at once with TG_K6_MISSING and
 * one line saying how to run the exported scripts; with a `k6` on PATH (here a stand-in that does what
 * the script would, held to the flags of the k6 release it stands for: k6 itself cannot be installed)
 * it reads `k6 version`, refuses one older than supported, runs it against the target and judges its output.
 */
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { whyLines } from '../../src/catalogue/reasons/index.ts';
import { findK6, K6_MISSING_MESSAGE } from '../../src/run/k6-engine.ts';
import { NEWEST_TESTED_K6 } from '../../src/k6/version.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario, sustainedLoad } from '../../src/scenario/define.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

const FLAGS = fileURLToPath(new URL('../k6/fixtures/k6-run-flags.json', import.meta.url));

/** A directory holding the stand-in k6 (the k6 release `version` names), and the env that points at it. */
function fakeK6(version = NEWEST_TESTED_K6): { bin: string; log: string; env: Record<string, string> } {
  const bin = mkdtempSync(join(tmpdir(), 'tiergate-fake-k6-'));
  copyFileSync(new URL('../k6/fixtures/fake-k6.mjs', import.meta.url), join(bin, 'k6'));
  chmodSync(join(bin, 'k6'), 0o755);
  const log = join(bin, 'calls.ndjson');
  return {
    bin,
    log,
    env: {
      PATH: `${bin}:${dirname(process.execPath)}`,
      FAKE_K6_LOG: log,
      FAKE_K6_VERSION: version,
      FAKE_K6_FLAGS: FLAGS,
    },
  };
}

const callsOf = (log: string) =>
  readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { args: string[] });

const withLoad = (outDir: string) => ({
  ...shortRun(outDir),
  engine: 'k6' as const,
  scenarios: [defineScenario({ tier: 'starter', load: sustainedLoad({ fleetOrgs: 2 }) })],
});

describe('runSuite with the k6 engine', () => {
  it('without k6 on PATH, throws TG_K6_MISSING in one line that says how to run the exported scripts', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tiergate-no-k6-'));
    const { io } = captureIo({ env: { PATH: empty } });
    expect(await findK6(io.env)).toBeNull();
    await expect(runSuite(withLoad(tempReportsDir()), io)).rejects.toMatchObject({
      code: 'TG_K6_MISSING',
      message: K6_MISSING_MESSAGE,
    });
    expect(K6_MISSING_MESSAGE).not.toContain('\n');
    expect(K6_MISSING_MESSAGE).toMatch(/k6 is not on PATH.*tiergate k6 export --out DIR/);
  });

  it('runs the k6 on PATH with the keys in its environment, then judges its output into the usual reports', async () => {
    const { log, env } = fakeK6();
    const { io, stdout } = captureIo({ env });
    const outDir = tempReportsDir();
    const outcome = await runSuite(withLoad(outDir), io);
    expect(stdout()).toContain('fake k6 done');
    const [versionCall, call] = callsOf(log) as [{ args: string[] }, { args: string[] }];
    expect(versionCall.args).toEqual(['version']);
    expect(call.args.slice(0, 4)).toEqual(['run', '--quiet', '--summary-mode=disabled', '--out']);
    expect(call.args.join(' ')).not.toMatch(/xh_(test|live)_/);
    expect(call.args.at(-1)).toMatch(/k6[/\\]starter\.js$/);
    const [check] = outcome.results!.checks;
    expect({ id: check!.id, variant: check!.variant, verdict: check!.verdict }, whyLines(check!).join('\n')).toEqual({
      id: 'LOAD-THRESHOLDS',
      variant: 'k6',
      verdict: 'pass',
    });
    expect(outcome.exitCode).toBe(0);
    for (const file of ['results.json', 'index.html', 'junit.xml', 'k6-starter.json', 'k6/starter.js'])
      expect(existsSync(join(outcome.runDir!, file))).toBe(true);
    expect(readFileSync(join(outcome.runDir!, 'results.json'), 'utf8')).not.toMatch(/xh_(test|live)_[A-Za-z0-9]{32}/);
  });

  it('runs every supported k6, 1.x and 2.x, each refusing the flags it does not define, and records the one used', async () => {
    for (const version of ['1.3.0', '1.8.1', '2.0.0', '2.2.0']) {
      const { io } = captureIo({ env: fakeK6(version).env });
      const outcome = await runSuite(withLoad(tempReportsDir()), io);
      expect({ version, exit: outcome.exitCode, k6: outcome.results!.k6 }).toEqual({
        version,
        exit: 0,
        k6: { version },
      });
      const written = JSON.parse(readFileSync(join(outcome.runDir!, 'results.json'), 'utf8')) as {
        k6?: { version: string };
      };
      expect(written.k6).toEqual({ version });
      expect(readFileSync(join(outcome.runDir!, 'index.html'), 'utf8')).toContain(`k6 v${version}`);
    }
  });

  it('stops before anything starts where the k6 on PATH is older than supported, naming what it found and what it needs', async () => {
    const { io } = captureIo({ env: fakeK6('1.2.0').env });
    await expect(runSuite(withLoad(tempReportsDir()), io)).rejects.toMatchObject({
      code: 'TG_K6_VERSION',
      message: expect.stringMatching(
        /is k6 v1\.2\.0; tiergate needs k6 1\.3\.0 or later \(--summary-mode=disabled\): upgrade k6$/,
      ),
    });
  });

  it('on Ctrl-C stops k6, judges what it wrote, and reports the run interrupted (exit 130)', async () => {
    const captured = captureIo({ env: fakeK6().env });
    // Ctrl-C once k6 has started: the stand-in says so on its stdout, which the run relays.
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (chunk.toString().includes('fake k6 started')) captured.interrupt();
        done();
      },
    });
    const outcome = await runSuite(withLoad(tempReportsDir()), { ...captured.io, stdout });
    expect(outcome.exitCode).toBe(130);
    expect(outcome.results!.interrupted).toBe(true);
    // What k6 wrote before it stopped is reported, never as a verdict.
    expect(outcome.results!.checks.filter((c) => c.verdict === 'pass' || c.verdict === 'fail')).toEqual([]);
    const written = JSON.parse(readFileSync(join(outcome.runDir!, 'results.json'), 'utf8')) as { interrupted: boolean };
    expect(written.interrupted).toBe(true);
  });
});
