/**
 * `npm run bench`: every benchmark in turn, each in a process of its own so one's memory and
 * timers cannot skew another's. Prints their figures and writes reports/bench.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';

const BENCHES = [
  { name: 'target', file: 'bench/target.ts', what: 'reference target requests/s with rate-limit headers' },
  { name: 'revocation', file: 'bench/revocation.ts', what: 'revocation bound widths on loopback' },
  { name: 'load', file: 'bench/load.ts', what: 'load driver vs autocannon, arrival-rate accuracy, soak RSS' },
  { name: 'suite', file: 'bench/suite.ts', what: 'full 3-tier suite wall time vs the windows it needs' },
  { name: 'startup', file: 'bench/startup.ts', what: 'CLI start-up: tiergate --help and list vs node -e 0' },
] as const;

const only = process.argv.slice(2);
const results: { name: string; what: string; exitCode: number | null; seconds: number; output: string }[] = [];
for (const bench of BENCHES.filter((b) => only.length === 0 || only.includes(b.name))) {
  process.stdout.write(`\n== ${bench.name}: ${bench.what}\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', bench.file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  process.stdout.write(run.stdout);
  results.push({
    name: bench.name,
    what: bench.what,
    exitCode: run.status,
    seconds: (Date.now() - started) / 1000,
    output: run.stdout,
  });
}
mkdirSync('reports', { recursive: true });
const load = existsSync('reports/bench-load.json')
  ? (JSON.parse(readFileSync('reports/bench-load.json', 'utf8')) as unknown)
  : null;
writeFileSync(
  'reports/bench.json',
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, benches: results, load }, null, 2)}\n`,
);
process.stdout.write(`\nwrote reports/bench.json\n`);
process.exitCode = results.some((r) => r.exitCode !== 0) ? 1 : 0;
