/**
 * The full 3-tier suite's wall time against the embedded target, next to the minimum the plan
 * needs (windows needed × window length). Run: node --import tsx bench/suite.ts [window-seconds] [parse-ms]
 * (the parse time defaults to the embedded target's for the window: 200 ms below 10 s windows, 500 ms
 * from there; the spec's 60 s windows are measured with a parser of seconds: `bench/suite.ts 60 2000`).
 * Then the run folder's size, and how long `tiergate verify` takes on it (the library call).
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { OBSERVATIONS_FILE } from '../src/measure/observation-file.ts';
import { defineScenario } from '../src/scenario/define.ts';
import { runSuite } from '../src/run/run.ts';
import { systemClock } from '../src/util/io.ts';
import { TIER_NAMES } from '../src/contract/types.ts';
import { DEFAULT_RATE_LIMIT_DIALECT } from '../src/contract/rate-limit-dialects.ts';
import { percentile } from '../src/verdicts/support/revocation-bounds.ts';
import { defaultParseMs } from '../src/config/defaults.ts';
import { verifyRun } from '../src/run/verify.ts';

const windowS = Number(process.argv[2] ?? 3);
const parseMs = process.argv[3] === undefined ? defaultParseMs(windowS * 1000) : Number(process.argv[3]);
const outDir = mkdtempSync(join(tmpdir(), 'tiergate-bench-suite-'));
const outcome = await runSuite(
  {
    target: {
      kind: 'embedded',
      edges: 3,
      revocationDelayMs: 300,
      revocationJitterMs: 0,
      parseMs,
      faults: [],
      variants: [],
      tls: false,
      latencyMs: 0,
      jitterMs: 0,
      headers: DEFAULT_RATE_LIMIT_DIALECT,
    },
    windowMs: windowS * 1000,
    tiers: TIER_NAMES,
    checks: null,
    scenarios: TIER_NAMES.map((tier) => defineScenario({ tier })),
    outDir,
    timeoutMs: 5000,
    revocation: {},
    listeners: [],
    dryRun: false,
    engine: 'harness',
  },
  {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    clock: systemClock,
    signal: new AbortController().signal,
  },
);
const r = outcome.results!;
const at = (ms: number) => (ms - Date.parse(r.startedAt)) / 1000;
const endOf = (c: (typeof r.checks)[number]) => at(Date.parse(c.startedAt) + c.durationMs);
const REVOCATION = ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'];
const conformanceS = Math.max(...r.checks.filter((c) => ![...REVOCATION, 'HDR-PRESENT'].includes(c.id)).map(endOf));
const revocationS = Math.max(0, ...r.checks.filter((c) => REVOCATION.includes(c.id)).map(endOf));
// One trial's own length: its probes (phases `name/trial`) from the first sent to the last answered.
const trials = new Map<string, { from: number; to: number }>();
for (const line of gunzipSync(readFileSync(join(outcome.runDir!, OBSERVATIONS_FILE)))
  .toString('utf8')
  .split('\n')) {
  if (!line.includes('"REVOKE-') && !line.includes('"ROTATION"') && !line.includes('"AUTH-REVOKED"')) continue;
  const o = JSON.parse(line) as { phase: string; sentAt: number; doneAt: number };
  const trial = o.phase.split('/')[1];
  if (trial === undefined) continue;
  const span = trials.get(trial) ?? { from: Infinity, to: -Infinity };
  trials.set(trial, { from: Math.min(span.from, o.sentAt), to: Math.max(span.to, o.doneAt) });
}
const lengths = [...trials.values()].map((t) => (t.to - t.from) / 1000).sort((a, b) => a - b);
const trialS = percentile(lengths, 50) ?? 0;
const planS = r.windows.needed * windowS;
// The discovery runs beside the lanes, on an organization of its own: its time is not the checks' (the longest tier).
const firstEnd = Math.max(...r.profiles.map((p) => p.durationMs)) / 1000;
const minimumS = Math.max(planS, trialS);
console.log(
  `suite: verdict ${r.verdict}, ${r.checks.length} results, window ${windowS} s, uploads parsed in ${parseMs} ms`,
);
console.log(
  `suite: wall time ${(r.durationMs / 1000).toFixed(1)} s: conformance checks done after ${conformanceS.toFixed(1)} s, revocation (${trials.size} trials) after ${revocationS.toFixed(1)} s`,
);
console.log(
  `suite: windows needed ${r.windows.needed} (${planS} s), used ${r.windows.used}; one revocation trial ${trialS.toFixed(1)} s (median); discovery ${firstEnd.toFixed(1)} s`,
);
console.log(
  `suite: wall / max(windows needed, one trial) = ${(r.durationMs / 1000 / minimumS).toFixed(2)} (aim ≤ 1.15 at 60 s windows)`,
);
const undecided = r.checks
  .filter((c) => c.verdict !== 'pass')
  .map((c) => `${c.id}${c.variant ? `/${c.variant}` : ''} [${c.tier}] ${c.verdict}: ${c.actual}`);
for (const line of undecided) console.log(`suite: not passed: ${line}`);
const sizes = Object.fromEntries(
  readdirSync(outcome.runDir!).map((name) => [name, statSync(join(outcome.runDir!, name)).size / 1e6]),
);
const folderMb = Object.values(sizes).reduce((a, b) => a + b, 0);
const verifyStarted = performance.now();
const verified = await verifyRun(outcome.runDir!, { publicKey: null });
const verifyS = (performance.now() - verifyStarted) / 1000;
console.log(
  `suite: run folder ${folderMb.toFixed(1)} MB (${Object.entries(sizes)
    .map(([n, mb]) => `${n} ${mb.toFixed(2)}`)
    .join(', ')}); verify ${verifyS.toFixed(1)} s, ${verified.problems.length} problem(s)`,
);
console.log(
  JSON.stringify({
    bench: 'suite',
    windowS,
    parseMs,
    wallS: r.durationMs / 1000,
    conformanceS,
    revocationS,
    trialS,
    windowsNeeded: r.windows.needed,
    windowsUsed: r.windows.used,
    minimumS,
    discoveryS: firstEnd,
    verdict: r.verdict,
    folderMb,
    verifyS,
  }),
);
