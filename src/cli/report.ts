/**
 * `tiergate report <results.json> [--out DIR]`: re-renders index.html and junit.xml from a saved run.
 * The renderer (handlebars) is imported when the command runs.
 */
import { resolve } from 'node:path';
import { EXIT } from '../util/errors.ts';
import type { CliCommand } from './command.ts';
import { stringFlag, type FlagValues } from './flags.ts';
import { ensureOutDir } from '../util/out-dir.ts';

const REPORT_FLAGS = { out: stringFlag('write index.html and junit.xml here instead of beside results.json') } as const;

type ReportArgs = FlagValues<typeof REPORT_FLAGS> & { readonly results: string };

export const reportCommand: CliCommand<ReportArgs> = {
  name: 'report <results>',
  describe: "Re-render a run's HTML report and junit.xml from its results.json",
  builder: (argv) =>
    argv
      .positional('results', {
        type: 'string',
        demandOption: true,
        describe: 'a results.json written by tiergate run, e.g. reports/latest/results.json',
      })
      .options(REPORT_FLAGS),
  run: async (args, io) => {
    const file = resolve(io.cwd, args.results);
    const outDir =
      args.out === undefined ? undefined : await ensureOutDir(resolve(io.cwd, args.out), `--out ${args.out}`);
    const [{ renderFromResultsFile }, { displayPath }] = await Promise.all([
      import('../report/render.ts'),
      import('../report/terminal-summary.ts'),
    ]);
    const files = await renderFromResultsFile(file, outDir === undefined ? {} : { outDir });
    io.stdout.write(`wrote ${displayPath(files.html, io.cwd)} and ${displayPath(files.junit, io.cwd)}\n`);
    return EXIT.pass;
  },
};
