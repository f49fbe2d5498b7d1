/**
 * The CLI's start-up: wall time of `node bin/tiergate.js --help` and `list` (the built CLI, dist/),
 * next to Node's own start-up (`node -e 0`) as the floor, median and min of N runs each, taken in
 * turn so a busy moment of the machine spreads over all three. Aim: --help ≤ 200 ms.
 *
 *   npm run -s build && node --import tsx bench/startup.ts [runs, default 15]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { percentile } from '../src/verdicts/support/revocation-bounds.ts';

const GOAL_MS = 200;
const runs = Number(process.argv[2] ?? 15);
const bin = fileURLToPath(new URL('../bin/tiergate.js', import.meta.url));

const COMMANDS = [
  { label: 'tiergate --help', args: [bin, '--help'] },
  { label: 'tiergate list', args: [bin, 'list'] },
  { label: 'node -e 0', args: ['-e', '0'] },
] as const;

/** Wall time of one run in ms; a failing command stops the bench (dist/ not built, say). */
function timeOnce(args: readonly string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 30_000,
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr.trim()}`);
  return ms;
}

const times = COMMANDS.map(() => [] as number[]);
for (let round = 0; round < runs; round++) COMMANDS.forEach((command, i) => times[i]!.push(timeOnce(command.args)));

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  )!;
const figures = COMMANDS.map((command, i) => ({
  label: command.label,
  medianMs: median(times[i]!),
  minMs: Math.min(...times[i]!),
}));
const help = figures[0]!;
const lines = [
  `startup bench: ${runs} runs each, wall time including the process spawn`,
  ...figures.map(
    (f) =>
      `  ${f.label.padEnd(16)} median ${f.medianMs.toFixed(0).padStart(4)} ms   min ${f.minMs.toFixed(0).padStart(4)} ms`,
  ),
  `  --help: median ${help.medianMs.toFixed(0)} ms against the goal of ≤ ${GOAL_MS} ms (${help.medianMs <= GOAL_MS ? 'met' : 'not met'}); ${(help.medianMs - figures[2]!.medianMs).toFixed(0)} ms over Node's own start-up`,
];
process.stdout.write(`${lines.join('\n')}\n`);
