import type { Argv } from 'yargs';
import type { Io } from '../util/io.ts';

/** One CLI command: yargs flags in, a typed call into the library, an exit code out. */
export interface CliCommand {
  readonly name: string | readonly string[];
  readonly describe: string;
  readonly builder: (argv: Argv) => Argv;
  readonly run: (args: Record<string, unknown>, io: Io) => Promise<number>;
}
