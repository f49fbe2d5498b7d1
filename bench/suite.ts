/**
 * The full 3-tier suite's wall time against the embedded target, next to the minimum the plan
 * needs (windows needed × window length). Run: node --import tsx bench/suite.ts [window-seconds]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineScenario } from '../src/scenario/define.ts';
import { runSuite } from '../src/run/run.ts';
import { systemClock } from '../src/util/io.ts';
import { TIER_NAMES } from '../src/contract/types.ts';

const windowS = Number(process.argv[2] ?? 3);
const outDir = mkdtempSync(join(tmpdir(), 'tiergate-bench-suite-'));
const outcome = await runSuite(
  {
    target: { kind: 'embedded', edges: 3, revocationDelayMs: 300, revocationJitterMs: 0, parseMs: 200, faults: [], variants: [] },
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
  { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), clock: systemClock, signal: new AbortController().signal },
);
const r = outcome.results!;
const minimumS = r.windows.needed * windowS;
const conformanceS = (r.checks.filter((c) => !['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION', 'HDR-PRESENT'].includes(c.id)).reduce((m, c) => Math.max(m, Date.parse(c.startedAt) + c.durationMs), 0) - Date.parse(r.startedAt)) / 1000;
console.log(`suite: verdict ${r.verdict}, ${r.checks.length} results, window ${windowS} s`);
console.log(`suite: wall time ${(r.durationMs / 1000).toFixed(1)} s (conformance checks done after ${conformanceS.toFixed(1)} s); windows needed ${r.windows.needed} (minimum ${minimumS} s), windows used ${r.windows.used}`);
console.log(JSON.stringify({ bench: 'suite', windowS, wallS: r.durationMs / 1000, conformanceS, windowsNeeded: r.windows.needed, windowsUsed: r.windows.used, minimumS, verdict: r.verdict }));
