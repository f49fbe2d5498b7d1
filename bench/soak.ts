/**
 * The gate's steadiness: `npm start` (every check, all three tiers, 3 s windows, against the embedded
 * reference target) run N times in a row, counting exit codes. Every run must end PASS (exit 0).
 * Usage: node --import tsx bench/soak.ts [runs=30]; or npm run soak -- 30.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 30);
if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
  process.stderr.write(`soak: runs ${process.argv[2]}: expected a whole number from 1 to 1000\n`);
  process.exit(2);
}
const out = mkdtempSync(join(tmpdir(), 'tiergate-soak-'));
const exits = new Map<number, number>();
const started = performance.now();
/** Runs in which some check was measured again in a second window; and a sequential read series. */
let windowsAgain = 0;
let seriesAgain = 0;
for (let run = 1; run <= runs; run++) {
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ['bin/tiergate.js', 'run', '--window', '3s', '--out', out], {
    env: { ...process.env, CI: 'true' },
    encoding: 'utf8',
  });
  const code = child.status ?? -1;
  exits.set(code, (exits.get(code) ?? 0) + 1);
  let detail = '';
  let again = '';
  try {
    const results = JSON.parse(readFileSync(join(out, 'latest', 'results.json'), 'utf8')) as {
      checks: { id: string; tier: string | null; variant: string; verdict: string; actual: string; notes: string[] }[];
    };
    if (code !== 0)
      detail = results.checks
        .filter((c) => c.verdict !== 'pass')
        .map((c) => `\n    ${c.id} [${c.tier}] ${c.verdict}: ${c.actual}`)
        .join('');
    // A window measured again is the exception a clean run should rarely need: count them.
    const remeasured = results.checks
      .filter((c) => c.notes.some((n) => n.startsWith('measured again in the next window')))
      .map((c) => `${c.id} [${c.tier}]`);
    if (remeasured.length > 0) {
      windowsAgain += 1;
      again = `; measured again: ${remeasured.join(', ')}`;
    }
    const series = results.checks.find(
      (c) => c.id === 'QUOTA-READ' && c.variant === 'sequential' && c.notes.some((n) => n.startsWith('measured again')),
    );
    if (series) seriesAgain += 1;
  } catch {
    detail = '\n    no results.json';
  }
  process.stdout.write(
    `run ${run}/${runs}: exit ${code} in ${((performance.now() - t0) / 1000).toFixed(1)} s${again}${detail}\n`,
  );
}
const summary = [...exits]
  .sort(([a], [b]) => a - b)
  .map(([code, n]) => `exit ${code} ×${n}`)
  .join(', ');
process.stdout.write(
  `soak: ${runs} runs in ${((performance.now() - started) / 1000).toFixed(0)} s: ${summary}; ${windowsAgain} with a check measured again, ${seriesAgain} with a sequential read series measured again; reports in ${out}\n`,
);
process.exit(exits.get(0) === runs ? 0 : 1);
