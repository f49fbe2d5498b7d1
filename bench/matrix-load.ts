/**
 * One fault or variant of the reference target under load: N starter runs of it at once (the e2e
 * matrices run up to twelve runs at once on two cores), each line saying whether the run got what the
 * matrix expects: a fault's checks failed, decided ("caught"), or a variant's every check passed.
 * With the limiter profile each run learned (Reset steadiness, how windows start).
 * Usage: node --import tsx bench/matrix-load.ts <fault-or-variant> [runs at once=12] [window-seconds]
 * (the window defaults to the fault's own minimum, else 2 s, as in the matrices).
 */
import { faultCatalogue } from '../src/reference-server/faults.ts';
import { variantCatalogue } from '../src/reference-server/variants.ts';
import { runSuite } from '../src/run/run.ts';
import { captureIo } from '../test/helpers/capture-io.ts';
import { checksFor } from '../test/helpers/fault-checks.ts';
import { shortRun, tempReportsDir } from '../test/helpers/run-options.ts';

const [name = '', runsArg = '12', windowArg] = process.argv.slice(2);
const fault = faultCatalogue.find((f) => f.name === name);
const variant = variantCatalogue.find((v) => v.name === name);
const runs = Number(runsArg);
const windowS = windowArg === undefined ? null : Number(windowArg);
if (
  (!fault && !variant) ||
  !Number.isInteger(runs) ||
  runs < 1 ||
  runs > 32 ||
  (windowS !== null && (!Number.isInteger(windowS) || windowS < 1 || windowS > 60))
) {
  process.stderr.write(
    `matrix-load: usage: <fault-or-variant> [runs at once, 1 to 32] [window seconds, 1 to 60]; faults: ${faultCatalogue.map((f) => f.name).join(', ')}; variants: ${variantCatalogue.map((v) => v.name).join(', ')}\n`,
  );
  process.exit(2);
}
const windowMs = windowS !== null ? windowS * 1000 : (fault?.minWindow?.ms ?? 2000);

const lines = await Promise.all(
  Array.from({ length: runs }, async () => {
    const options = shortRun(tempReportsDir(), {
      faults: fault ? [fault.name] : [],
      variants: variant ? [variant.name] : [],
      checks: fault ? checksFor(fault) : null,
      windowMs,
    });
    const outcome = await runSuite(options, captureIo().io);
    const results = outcome.results!;
    const short = fault
      ? results.checks.filter((c) => fault.breaks.includes(c.id) && c.verdict !== 'fail')
      : results.checks.filter((c) => c.verdict !== 'pass');
    const profile = results.profiles[0];
    const algorithm = profile?.read.algorithm;
    const open = algorithm?.value === null ? `: ${algorithm.how}` : '';
    const learned =
      profile && algorithm
        ? `Reset steady ${profile.read.resetSteady.value}, windows ${algorithm.value}${open}`
        : 'no profile';
    const verdict =
      short.length === 0 ? (fault ? 'caught' : 'all pass') : short.map((c) => `${c.id} ${c.verdict}`).join(', ');
    return { asExpected: short.length === 0, line: `${verdict} (${learned})` };
  }),
);
const tally = new Map<string, number>();
for (const { line } of lines) tally.set(line, (tally.get(line) ?? 0) + 1);
for (const [line, count] of [...tally].sort((a, b) => b[1] - a[1])) process.stdout.write(`${count} × ${line}\n`);
const good = lines.filter((l) => l.asExpected).length;
process.stdout.write(
  `matrix-load: ${name} at ${windowMs / 1000} s windows, ${runs} runs at once: ${good} of ${runs} as the matrix expects\n`,
);
