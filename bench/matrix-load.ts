/**
 * One fault or variant of the reference target under load: N starter runs of it at once (the e2e
 * matrices run up to twelve runs at once on two cores), each line saying whether the run got what the
 * matrix expects: a fault's checks failed, decided ("caught"), or a variant's every check passed.
 * With the limiter profile each run learned (Reset steadiness, how windows start).
 * Usage: node --import tsx bench/matrix-load.ts <fault-or-variant> [runs at once=12] [window-seconds]
 * (the window defaults to the fault's own minimum, else 2 s, as in the matrices).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { declaredChecks } from '../src/procedures/task.ts';
import { TASKS, kindsDeciding } from '../src/procedures/registry.ts';
import { faultCatalogue } from '../src/reference-server/faults.ts';
import { variantCatalogue } from '../src/reference-server/variants.ts';
import { defineScenario } from '../src/scenario/define.ts';
import { runSuite } from '../src/run/run.ts';
import { systemClock } from '../src/util/io.ts';

const [name = '', runsArg = '12', windowArg] = process.argv.slice(2);
const fault = faultCatalogue.find((f) => f.name === name);
const variant = variantCatalogue.find((v) => v.name === name);
const runs = Number(runsArg);
if ((!fault && !variant) || !Number.isInteger(runs) || runs < 1 || runs > 32) {
  process.stderr.write(`matrix-load: usage: <fault-or-variant> [runs at once, 1 to 32]; faults: ${faultCatalogue.map((f) => f.name).join(', ')}; variants: ${variantCatalogue.map((v) => v.name).join(', ')}\n`);
  process.exit(2);
}
const windowMs = windowArg ? Number(windowArg) * 1000 : (fault?.minWindow?.ms ?? 2000);
const checks = fault ? [...new Set(fault.breaks.flatMap(kindsDeciding))].flatMap((k) => declaredChecks(TASKS[k])) : null;
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });

const lines = await Promise.all(
  Array.from({ length: runs }, async () => {
    const outcome = await runSuite(
      {
        target: { kind: 'embedded', edges: 3, revocationDelayMs: 100, revocationJitterMs: 0, parseMs: 200, faults: fault ? [fault.name] : [], variants: variant ? [variant.name] : [] },
        windowMs,
        tiers: ['starter'],
        checks: fault?.breaks.includes('HDR-PRESENT') ? null : checks,
        scenarios: [defineScenario({ tier: 'starter', revocation: { trials: 2, intervalMs: 10, settleMs: 800 } })],
        outDir: mkdtempSync(join(tmpdir(), 'tiergate-bench-matrix-')),
        timeoutMs: 5000,
        revocation: {},
        listeners: [],
        dryRun: false,
        engine: 'harness',
      },
      { stdout: quiet, stderr: quiet, env: process.env, cwd: process.cwd(), clock: systemClock, signal: new AbortController().signal },
    );
    const results = outcome.results!;
    const short = fault
      ? results.checks.filter((c) => fault.breaks.includes(c.id) && c.verdict !== 'fail')
      : results.checks.filter((c) => c.verdict !== 'pass');
    const profile = results.profiles[0];
    const learned = profile ? `Reset steady ${profile.read.resetSteady.value}, windows ${profile.read.algorithm.value}` : 'no profile';
    const verdict = short.length === 0 ? (fault ? 'caught' : 'all pass') : short.map((c) => `${c.id} ${c.verdict}`).join(', ');
    return `${verdict} (${learned})`;
  }),
);
const tally = new Map<string, number>();
for (const line of lines) tally.set(line, (tally.get(line) ?? 0) + 1);
for (const [line, count] of [...tally].sort((a, b) => b[1] - a[1])) process.stdout.write(`${count} × ${line}\n`);
const good = lines.filter((l) => l.startsWith('caught') || l.startsWith('all pass')).length;
process.stdout.write(`matrix-load: ${name} at ${windowMs / 1000} s windows, ${runs} runs at once: ${good} of ${runs} as the matrix expects\n`);
