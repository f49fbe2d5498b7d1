/**
 * How tight the revocation brackets are from a distance: the revocation checks alone, run as
 * `tiergate run` runs them (the harness engine, the embedded target on a thread of its own, its
 * admin API as the key hook), with a relay in front of every edge adding a round trip of `--latency`
 * (each way half of it ± half of `--jitter`; HTTPS with `--tls`). Prints the median bracket width,
 * overall and per edge, beside two round trips as set and as the trials' probes took them (one probe
 * in flight per edge made a bracket about that wide), the upper bounds, the slots skipped, the
 * verdicts and REVOKE-LATENCY's notes. `--faults slow-revocation` or `revocation-flaps` shows what a
 * broken target gets.
 *
 *   node --import tsx bench/revocation-distance.ts [--latency 80] [--jitter 20] [--tls] [--trials 10]
 *     [--parallel 7] [--interval 10] [--settle 1000] [--delay 300] [--faults slow-revocation]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { OBSERVATIONS_FILE } from '../src/measure/observation-file.ts';
import { DEFAULT_RATE_LIMIT_DIALECT } from '../src/contract/rate-limit-dialects.ts';
import type { FaultName } from '../src/reference-server/faults.ts';
import { runSuite } from '../src/run/run.ts';
import { defineScenario } from '../src/scenario/define.ts';
import { systemClock } from '../src/util/io.ts';
import { percentile } from '../src/verdicts/support/revocation-bounds.ts';
import type { BoundStats } from '../src/verdicts/support/revocation-stats.ts';

const { values } = parseArgs({
  options: {
    latency: { type: 'string', default: '80' },
    jitter: { type: 'string', default: '20' },
    tls: { type: 'boolean', default: false },
    trials: { type: 'string', default: '10' },
    parallel: { type: 'string', default: '7' },
    interval: { type: 'string', default: '10' },
    settle: { type: 'string', default: '1000' },
    delay: { type: 'string', default: '300' },
    faults: { type: 'string', default: '' },
  },
});
const latencyMs = Number(values.latency);
const jitterMs = Number(values.jitter);
const faults = values.faults.split(',').filter((f) => f !== '') as FaultName[];
const shape = {
  trials: Number(values.trials),
  intervalMs: Number(values.interval),
  settleMs: Number(values.settle),
  parallel: Number(values.parallel),
};
const outDir = mkdtempSync(join(tmpdir(), 'tiergate-bench-revocation-distance-'));
const started = performance.now();
try {
  const outcome = await runSuite(
    {
      target: {
        kind: 'embedded',
        edges: 3,
        revocationDelayMs: Number(values.delay),
        revocationJitterMs: 0,
        parseMs: 200,
        faults,
        variants: [],
        tls: values.tls,
        latencyMs,
        jitterMs,
        headers: DEFAULT_RATE_LIMIT_DIALECT,
      },
      windowMs: 60_000,
      tiers: ['starter'],
      checks: ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'],
      scenarios: [defineScenario({ tier: 'starter', revocation: shape })],
      outDir,
      timeoutMs: 5000,
      revocation: {},
      listeners: [],
      dryRun: false,
      engine: 'harness',
    },
    {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      env: {},
      cwd: process.cwd(),
      clock: systemClock,
      signal: new AbortController().signal,
    },
  );
  const checks = outcome.results?.checks ?? [];
  const latency = checks.find((c) => c.id === 'REVOKE-LATENCY');
  const data = latency?.data as
    | { overall: BoundStats; edges: (BoundStats & { edge: string })[]; skippedSlots: number }
    | undefined;
  // The round trips the trials' probes took (phase probe/<trial>), as the run's observations have them.
  const trips = gunzipSync(readFileSync(join(outcome.runDir!, OBSERVATIONS_FILE)))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.includes('"probe/'))
    .map((line) => JSON.parse(line) as { sentAt: number; headersAt: number | null })
    .flatMap((o) => (o.headersAt === null ? [] : [o.headersAt - o.sentAt]))
    .sort((a, b) => a - b);
  const tripMedian = percentile(trips, 50) ?? 0;
  const f = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${v.toFixed(1)} ms`);
  const seconds = (performance.now() - started) / 1000;
  const lines = [
    `revocation at a distance: ${shape.trials} trials × 3 edges, round trip ${latencyMs} ms (each way ${latencyMs / 2} ± ${jitterMs / 2} ms)${values.tls ? ' (HTTPS)' : ''}, up to ${shape.parallel} at once, probe interval ${shape.intervalMs} ms${faults.length > 0 ? `, faults ${faults.join(', ')}` : ''} (${seconds.toFixed(1)} s)`,
    `  median bracket width ${f(data?.overall.medianWidthMs)} (max ${f(data?.overall.maxWidthMs)}); two round trips: ${2 * latencyMs} ms as set, ${f(2 * tripMedian)} as the probes took them (median ${f(tripMedian)}, p90 ${f(percentile(trips, 90))})`,
    `  upper bound p50 ${f(data?.overall.p50Ms)}, p95 ${f(data?.overall.p95Ms)}, max ${f(data?.overall.maxMs)}`,
    ...(data?.edges ?? []).map(
      (e) => `    ${e.edge}: median width ${f(e.medianWidthMs)}, upper p50 ${f(e.p50Ms)}, unusable ${e.unusableProbes}`,
    ),
    `  skipped slots ${data?.skippedSlots ?? '—'}`,
    ...checks.map((c) => `  ${c.id}: ${c.verdict}: ${c.actual}`),
    ...(latency?.notes ?? []).map((n) => `  note: ${n}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
