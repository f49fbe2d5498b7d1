/** `tiergate report <results.json> [--out DIR]`: re-renders index.html and junit.xml from a saved run. */
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { EXIT } from '../util/errors.ts';
import { renderFromResultsFile } from '../report/render.ts';
import { displayPath } from '../report/terminal-summary.ts';
import type { CliCommand } from './command.ts';
import { ensureOutDir } from '../util/out-dir.ts';

export const reportCommand: CliCommand = {
  name: 'report <results>',
  describe: "Re-render a run's HTML report and junit.xml from its results.json",
  builder: (argv: Argv) =>
    argv
      .positional('results', { type: 'string', describe: 'a results.json written by tiergate run, e.g. reports/latest/results.json' })
      .option('out', { type: 'string', describe: 'write index.html and junit.xml here instead of beside results.json' }),
  run: async (args, io) => {
    const file = resolve(io.cwd, String(args.results));
    const outDir = typeof args.out === 'string' ? await ensureOutDir(resolve(io.cwd, args.out), `--out ${args.out}`) : undefined;
    const files = await renderFromResultsFile(file, outDir === undefined ? {} : { outDir });
    io.stdout.write(`wrote ${displayPath(files.html, io.cwd)} and ${displayPath(files.junit, io.cwd)}\n`);
    return EXIT.pass;
  },
};
