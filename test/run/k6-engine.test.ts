/**
 * `tiergate run --engine k6` (runSuite, engine 'k6'): without k6 on PATH it stops at once with TG_K6_MISSING and
 * one line saying how to run the exported scripts; with a `k6` on PATH (here a stand-in that does what
 * the script would, k6 itself cannot be installed) it runs it against the target and judges its output.
 */
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { findK6, K6_MISSING_MESSAGE } from '../../src/run/k6-engine.ts';
import { runSuite } from '../../src/run/run.ts';
import { defineScenario, sustainedLoad } from '../../src/scenario/define.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';

/** A directory holding the stand-in k6, and the log it writes its calls to. */
function fakeK6(): { bin: string; log: string } {
  const bin = mkdtempSync(join(tmpdir(), 'tiergate-fake-k6-'));
  copyFileSync(new URL('../k6/fixtures/fake-k6.mjs', import.meta.url), join(bin, 'k6'));
  chmodSync(join(bin, 'k6'), 0o755);
  return { bin, log: join(bin, 'calls.ndjson') };
}

const withLoad = (outDir: string) => ({ ...shortRun(outDir), engine: 'k6' as const, scenarios: [defineScenario({ tier: 'starter', load: sustainedLoad({ fleetOrgs: 2 }) })] });

describe('runSuite with the k6 engine', () => {
  it('without k6 on PATH, throws TG_K6_MISSING in one line that says how to run the exported scripts', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tiergate-no-k6-'));
    const { io } = captureIo({ env: { PATH: empty } });
    expect(await findK6(io.env)).toBeNull();
    await expect(runSuite(withLoad(tempReportsDir()), io)).rejects.toMatchObject({ code: 'TG_K6_MISSING', message: K6_MISSING_MESSAGE });
    expect(K6_MISSING_MESSAGE).not.toContain('\n');
    expect(K6_MISSING_MESSAGE).toMatch(/k6 is not on PATH.*tiergate k6 export --out DIR/);
  });

  it('runs the k6 on PATH with the keys in its environment, then judges its output into the usual reports', async () => {
    const { bin, log } = fakeK6();
    const { io, stdout } = captureIo({ env: { PATH: `${bin}:${dirname(process.execPath)}`, FAKE_K6_LOG: log } });
    const outDir = tempReportsDir();
    const outcome = await runSuite(withLoad(outDir), io);
    expect(stdout()).toContain('fake k6 done');
    const call = JSON.parse(readFileSync(log, 'utf8').trim()) as { args: string[] };
    expect(call.args.slice(0, 4)).toEqual(['run', '--quiet', '--no-summary', '--out']);
    expect(call.args.join(' ')).not.toMatch(/xh_(test|live)_/);
    expect(call.args.at(-1)).toMatch(/k6[/\\]starter\.js$/);
    const [check] = outcome.results!.checks;
    expect({ id: check!.id, variant: check!.variant, verdict: check!.verdict, actual: check!.actual }).toMatchObject({ id: 'LOAD-THRESHOLDS', variant: 'k6', verdict: 'pass' });
    expect(outcome.exitCode).toBe(0);
    for (const file of ['results.json', 'index.html', 'junit.xml', 'k6-starter.json', 'k6/starter.js']) expect(existsSync(join(outcome.runDir!, file))).toBe(true);
    expect(readFileSync(join(outcome.runDir!, 'results.json'), 'utf8')).not.toMatch(/xh_(test|live)_[A-Za-z0-9]{32}/);
  });

  it('on Ctrl-C stops k6, judges what it wrote, and reports the run interrupted (exit 130)', async () => {
    const { bin, log } = fakeK6();
    const captured = captureIo({ env: { PATH: `${bin}:${dirname(process.execPath)}`, FAKE_K6_LOG: log } });
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
