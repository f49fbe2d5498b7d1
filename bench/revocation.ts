/**
 * How tight the revocation brackets are on loopback: 20 trials against the reference target
 * (3 edges, 300 ms propagation), on an organization with the suite's own revocation limits, so
 * trials run several at once as in a run; prints the median bracket width (aim: ≤ 20 ms at a 10 ms
 * probe interval), the p50/p95 upper bounds and the wall time.
 *
 *   node --import tsx bench/revocation.ts [--trials 20] [--interval 10] [--settle 300] [--delay 300] [--parallel 4]
 */
import { parseArgs } from 'node:util';
import { PassThrough } from 'node:stream';
import { recruitingApi } from '../src/contract/recruiting-api.ts';
import { HttpProber } from '../src/measure/http-prober.ts';
import { systemClock } from '../src/util/io.ts';
import { ObservationRecorder } from '../src/measure/recorder.ts';
import { adminApiHook } from '../src/provision/hooks/admin-api.ts';
import { provisionOrg } from '../src/provision/provision.ts';
import { revocationTask } from '../src/revocation/task.ts';
import { runTask } from '../src/suite/task.ts';
import { defineScenario, SCENARIO_DEFAULTS } from '../src/scenario/define.ts';
import { REVOCATION_ORG_LIMITS } from '../src/run/target-session.ts';
import type { BoundStats } from '../src/verdicts/support/revocation-stats.ts';
import { AdminClient } from '../src/reference-server/admin-client.ts';
import { startTarget } from '../src/reference-server/server.ts';
import { standaloneContext } from '../src/suite/standalone.ts';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '20' },
    interval: { type: 'string', default: '10' },
    settle: { type: 'string', default: '300' },
    delay: { type: 'string', default: '300' },
    parallel: { type: 'string', default: String(SCENARIO_DEFAULTS.revocation.parallel) },
  },
});
const shape = {
  trials: Number(values.trials),
  intervalMs: Number(values.interval),
  settleMs: Number(values.settle),
  parallel: Number(values.parallel),
};
const delayMs = Number(values.delay);

const target = await startTarget({ edges: 3, revocationDelayMs: delayMs });
const admin = new AdminClient(target.adminUrl);
const org = {
  ...(await provisionOrg(admin, 'enterprise', 'starter-revocation', REVOCATION_ORG_LIMITS)),
  tier: 'starter' as const,
};
const controller = new AbortController();
const recorder = new ObservationRecorder(null);
const prober = new HttpProber({
  edges: target.edges.map((url, i) => ({ label: `edge-${i}`, url })),
  contract: recruitingApi,
  clock: systemClock,
  epoch: systemClock.monotonic(),
  recorder,
  timeoutMs: 5000,
  // One per trial at once, and a spare.
  connectionsPerEdge: shape.parallel + 1,
  signal: controller.signal,
});
try {
  const started = performance.now();
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: process.cwd(),
    clock: systemClock,
    signal: controller.signal,
  };
  const context = standaloneContext({
    contract: recruitingApi,
    prober,
    io,
    orgs: [org],
    windowMs: 60_000,
    keyHook: adminApiHook(admin),
  });
  const results = await runTask(revocationTask(), context, {
    tier: org.tier,
    orgs: [org],
    scenario: defineScenario({ tier: org.tier, revocation: shape }),
    checks: null,
  });
  const seconds = (performance.now() - started) / 1000;
  const latency = results.find((r) => r.id === 'REVOKE-LATENCY')!;
  const data = latency.data as { overall: BoundStats; edges: (BoundStats & { edge: string })[]; skippedSlots: number };
  const f = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);
  const lines = [
    `revocation bench: ${shape.trials} trials × 3 edges on loopback, up to ${shape.parallel} at once, probe interval ${shape.intervalMs} ms, propagation ${delayMs} ms (${seconds.toFixed(1)} s, ${recorder.count} probes)`,
    `  median bound width  ${f(data.overall.medianWidthMs)}   (max ${f(data.overall.maxWidthMs)}; aim ≤ 20 ms)`,
    `  upper bound         p50 ${f(data.overall.p50Ms)}   p95 ${f(data.overall.p95Ms)}   p99 ${f(data.overall.p99Ms)}   max ${f(data.overall.maxMs)}`,
    ...data.edges.map(
      (e) =>
        `    ${e.edge}  p50 ${f(e.p50Ms)}  p95 ${f(e.p95Ms)}  median width ${f(e.medianWidthMs)}  unusable ${e.unusableProbes}`,
    ),
    `  skipped slots ${data.skippedSlots}, unusable probes ${data.overall.unusableProbes}`,
    `  verdicts: ${results.map((r) => `${r.id} ${r.verdict}`).join(', ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  controller.abort();
  await prober.close();
  await target.close();
}
