/**
 * `tiergate k6 ingest` on NDJSON in k6's documented output format, from two runners: verdicts are
 * computed across runners (each runner alone under Limit, both together over it → fail), thresholds
 * over all samples merged, and the usual reports written.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { ingestK6, type K6LoadThresholdsData } from '../../src/k6/ingest.ts';
import { whyLines } from '../../src/catalogue/reasons/index.ts';
import { ingestK6ToReports } from '../../src/run/k6-ingest-report.ts';
import { verifyRun } from '../../src/run/verify.ts';
import { parseThresholds } from '../../src/config/thresholds.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { K6Output } from './k6-output.ts';
import { runObservations } from '../helpers/run-files.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'tiergate-k6-ingest-'));
const THRESHOLDS = {
  starter: parseThresholds({
    'http_req_duration{expected_response:true}': ['p(95)<300'],
    http_req_failed: ['rate<0.01'],
  }),
};

describe('ingestK6', () => {
  it('fails a window that two runners together pushed over Limit, though each alone stayed under it', async () => {
    const d = dir();
    // Runner 1 saw Remaining 59..25, runner 2 saw 24..0 and then ten more admissions at 0: 35 + 35 = 70 > 60.
    const one = new K6Output().window('starter-a', 35, { from: 59, instance: '1' }).write(join(d, 'runner-1.ndjson'));
    const two = new K6Output()
      .window('starter-a', 35, { from: 24, instance: '2', startS: 5 })
      .write(join(d, 'runner-2.ndjson'));
    for (const file of [one, two]) {
      const alone = await ingestK6({ files: [file], windowS: 60, thresholds: THRESHOLDS });
      expect(alone.checks[0]!.verdict).toBe('pass');
    }
    const together = await ingestK6({ files: [one, two], windowS: 60, thresholds: THRESHOLDS });
    expect(together.stats.runners).toBe(2);
    const [check] = together.checks;
    expect(check).toMatchObject({ id: 'LOAD-THRESHOLDS', tier: 'starter', variant: 'k6', verdict: 'fail' });
    expect(check!.reasons).toContainEqual({
      code: 'window-over-limit',
      org: 'starter-a',
      windowEnd: '2025-11-24T16:01:00.000Z',
      admitted: 70,
      limit: 60,
    });
    expect(check!.evidence.length).toBeGreaterThan(0);
    // Judged across both runners together, from their two files.
    expect((check!.data as K6LoadThresholdsData).sources).toEqual({
      runners: 2,
      files: 2,
      skippedLines: 0,
      malformedLines: 0,
    });
  });

  it('passes runners that share an org’s quota exactly, and keeps orgs and windows apart', async () => {
    const d = dir();
    const one = new K6Output()
      .window('starter-a', 30, { from: 59, instance: '1' })
      .window('starter-b', 60, { instance: '1', rejected: 5 })
      .write(join(d, 'a.ndjson'));
    const two = new K6Output()
      .window('starter-a', 30, { from: 29, instance: '2', rejected: 20, startS: 10 })
      // The next window of the same org: a fresh quota.
      .window('starter-a', 60, { from: 59, instance: '2', startS: 61 })
      .write(join(d, 'b.ndjson'));
    const { checks } = await ingestK6({ files: [one, two], windowS: 60, thresholds: THRESHOLDS });
    expect(checks[0]!.verdict, whyLines(checks[0]!).join('\n')).toBe('pass');
    const windows = checks[0]!.data!.windows as { org: string; admitted: number; rejected: number }[];
    expect(windows.map((w) => [w.org, w.admitted, w.rejected])).toEqual([
      ['starter-a', 60, 20],
      ['starter-b', 60, 5],
      ['starter-a', 60, 0],
    ]);
  });

  it('fails a 429 that said Remaining > 0 on any runner', async () => {
    const d = dir();
    const file = new K6Output()
      .window('starter-a', 10, { instance: '1' })
      .response({ org: 'starter-a', status: 429, remaining: 49, atS: 9 })
      .write(join(d, 'r.ndjson'));
    const { checks } = await ingestK6({ files: [file], windowS: 60, thresholds: THRESHOLDS });
    expect(checks[0]!.verdict).toBe('fail');
    expect(checks[0]!.reasons).toContainEqual(
      expect.objectContaining({ code: 'refused-with-remaining', org: 'starter-a', refused: 1 }),
    );
  });

  it('evaluates thresholds over every runner’s samples merged, which k6 judges per instance', async () => {
    const d = dir();
    const one = new K6Output().window('starter-a', 30, { from: 59, instance: '1' }).write(join(d, 'a.ndjson'));
    const two = new K6Output()
      .window('starter-a', 30, { from: 29, instance: '2', startS: 10 })
      .write(join(d, 'b.ndjson'));
    // Per instance, 30 responses each pass `count<=40`; the run as a whole made 60.
    const thresholds = {
      starter: parseThresholds({ http_reqs: ['count<=40'], 'http_req_duration{phase:over-quota}': ['max<10'] }),
    };
    for (const file of [one, two])
      expect((await ingestK6({ files: [file], windowS: 60, thresholds })).checks[0]!.verdict).toBe('pass');
    const { checks } = await ingestK6({ files: [one, two], windowS: 60, thresholds });
    expect(checks[0]!.verdict).toBe('fail');
    expect(checks[0]!.reasons).toEqual([
      { code: 'threshold-failed', threshold: 'http_reqs count<=40', observed: 60, samples: 60 },
    ]);
  });

  it('reads gzipped output and runner logs, skipping what is not k6 JSON, and counts dropped iterations', async () => {
    const d = dir();
    const output = new K6Output()
      .raw('time="2025-11-24T16:00:00Z" level=info msg="k6 started"')
      .raw('{"level":"warning","msg":"Insufficient VUs, reached 10 active VUs","time":"2025-11-24T16:00:01Z"}')
      .window('starter-a', 60, { instance: '1', rejected: 3 })
      .dropped(2, 'over-quota', '1')
      .raw('{"metric":"http_reqs","type":"Point","data":{"time":"2025-11-24T16:00:59');
    const file = output.write(join(d, 'runner.ndjson.gz'));
    const result = await ingestK6({ files: [file], windowS: 60, thresholds: THRESHOLDS });
    expect(result.stats).toMatchObject({ skipped: 2, malformed: 1, responses: 63 });
    const check = result.checks[0]!;
    expect(check.verdict).toBe('pass');
    // 2 scheduled requests could not be sent in time; 2 lines not k6's, one malformed.
    expect(check.data!.dropped).toBe(2);
    expect((check.data as K6LoadThresholdsData).sources).toEqual({
      runners: 1,
      files: 1,
      skippedLines: 2,
      malformedLines: 1,
    });
  });

  it('writes results.json, the cited observations and the reports', async () => {
    const d = dir();
    const one = new K6Output().window('starter-a', 35, { from: 59, instance: '1' }).write(join(d, 'runner-1.ndjson'));
    const two = new K6Output()
      .window('starter-a', 35, { from: 24, instance: '2', startS: 5 })
      .write(join(d, 'runner-2.ndjson'));
    const outDir = join(d, 'reports');
    const { results, runDir } = await ingestK6ToReports({
      files: [one, two],
      windowS: 60,
      thresholds: THRESHOLDS,
      outDir,
      now: Date.now(),
      runId: 'k6-test-run',
      stepSummary: null,
    });
    expect(results).toMatchObject({ verdict: 'fail', tiers: ['starter'], counts: { fail: 1 } });
    for (const file of ['results.json', 'junit.xml', 'index.html', 'observations.ndjson.gz'])
      expect(existsSync(join(runDir, file))).toBe(true);
    const cited = runObservations<{ id: number; org: string }>(runDir);
    expect(cited.map((o) => o.id).sort()).toEqual([...results.checks[0]!.evidence].sort());
    expect(cited.every((o) => o.org === 'starter-a')).toBe(true);
    expect(JSON.parse(readFileSync(join(outDir, 'latest', 'results.json'), 'utf8')).runId).toBe('k6-test-run');
    // The folder verifies offline: its files, summary and reports; its verdict is judged from k6's
    // aggregated output, which the folder does not hold, and verify says so.
    const verified = await verifyRun(runDir, { publicKey: null });
    expect(verified.problems).toEqual([]);
    expect(verified.unchecked.join('\n')).toContain(
      'verdicts: judged by k6 from its own aggregates, which the folder does not hold: not judged again',
    );
  });

  it('an unreadable file is refused before any run folder is made', async () => {
    const outDir = join(dir(), 'reports');
    await expect(
      ingestK6ToReports({
        files: [join(outDir, 'missing.json')],
        windowS: 60,
        thresholds: THRESHOLDS,
        outDir,
        now: Date.now(),
        stepSummary: null,
      }),
    ).rejects.toThrow(/missing\.json/);
    expect(existsSync(outDir)).toBe(false);
  });

  it('a file that holds no k6 Metric or Point line is refused, naming it, before any run folder is made', async () => {
    const d = dir();
    const outDir = join(d, 'reports');
    const good = new K6Output().window('starter-a', 35, { from: 59, instance: '1' }).write(join(d, 'runner-1.ndjson'));
    const notK6 = join(d, 'app.log');
    writeFileSync(
      notK6,
      'time="2026-11-26T10:00:00Z" level=info msg="starting"\n{"level":"info","msg":"a JSON log line"}\n',
    );
    await expect(
      ingestK6ToReports({
        files: [good, notK6],
        windowS: 60,
        thresholds: THRESHOLDS,
        outDir,
        now: Date.now(),
        stepSummary: null,
      }),
    ).rejects.toMatchObject({
      name: 'UsageError',
      message: `k6 ingest: ${notK6} holds no k6 Metric or Point line: name a file k6 wrote with --out json=FILE (or a runner's kubectl logs of --out json=-)`,
    });
    expect(existsSync(outDir)).toBe(false);
  });

  it('a step summary that cannot be written is a warning; the reports and the verdict stand', async () => {
    const d = dir();
    const one = new K6Output().window('starter-a', 35, { from: 59, instance: '1' }).write(join(d, 'runner-1.ndjson'));
    const outDir = join(d, 'reports');
    // A directory where the summary file should be: appending to it fails.
    const { results, warning } = await ingestK6ToReports({
      files: [one],
      windowS: 60,
      thresholds: THRESHOLDS,
      outDir,
      now: Date.now(),
      stepSummary: { file: d, cwd: d },
    });
    expect(results.verdict).toBe('pass');
    expect(warning).toMatch(/GITHUB_STEP_SUMMARY: cannot append to/);
    expect(existsSync(join(outDir, 'latest', 'results.json'))).toBe(true);
  });
});

describe('tiergate k6 ingest (CLI)', () => {
  it('judges the files, writes reports and exits 1 on a fail', async () => {
    const d = dir();
    new K6Output().window('starter-a', 35, { from: 59, instance: '1' }).write(join(d, 'runner-1.ndjson'));
    new K6Output().window('starter-a', 35, { from: 24, instance: '2', startS: 5 }).write(join(d, 'runner-2.ndjson'));
    const cap = captureIo({ cwd: d });
    const code = await main(
      ['k6', 'ingest', 'runner-1.ndjson', 'runner-2.ndjson', '--out', 'out', '--tiers', 'starter'],
      cap.io,
    );
    expect({ code, stderr: cap.stderr() }).toEqual({ code: 1, stderr: '' });
    expect(cap.stdout()).toMatch(/FAIL\s+LOAD-THRESHOLDS starter: .*70 admitted, over Limit 60/);
    expect(existsSync(join(d, 'out', 'latest', 'index.html'))).toBe(true);
  });

  it.each([
    [['k6', 'ingest'], /name at least one k6 --out json file/],
    [['k6', 'ingest', 'missing.ndjson'], /cannot read .*missing\.ndjson/],
    [['k6', 'ingest', 'empty.ndjson'], /empty\.ndjson holds no k6 Metric or Point line/],
    [['k6', 'export'], /--out is required/],
    [['k6', 'export', '--out', 'x', '--parallelism', '3'], /--parallelism does not apply here/],
    [['k6', 'operator', '--out', 'x'], /--parallelism is required/],
    [['k6', 'ingest', 'a.ndjson', '--window', '1.5s'], /--window 1.5s: expected whole seconds/],
    [['k6', 'bogus'], /k6 bogus: unknown action; choose export, operator, ingest/],
  ])('refuses %j in one line, exit 2', async (argv, message) => {
    const cwd = dir();
    writeFileSync(join(cwd, 'empty.ndjson'), '');
    const cap = captureIo({ cwd });
    const code = await main(argv, cap.io);
    expect(code).toBe(2);
    expect(cap.stderr()).toMatch(message);
    expect(cap.stderr().trim().split('\n')).toHaveLength(1);
  });
});
