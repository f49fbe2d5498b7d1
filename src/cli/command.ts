import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { Io } from '../util/io.ts';

/**
 * One CLI command: its builder declares the flags, its run gets them typed, calls the library, returns
 * an exit code. A command's module imports only what its flags and help need; its run imports the
 * library (`await import`), so `--help` and the other commands never load it.
 */
export interface CliCommand<A> {
  readonly name: string;
  readonly describe: string;
  readonly builder: (argv: Argv) => Argv<A>;
  readonly run: (args: ArgumentsCamelCase<A>, io: Io) => Promise<number>;
}

/** Puts a command on a parser; its handler reports the exit code through `exited`. */
export type Mount = (argv: Argv, io: Io, exited: (code: number) => void) => Argv;

export function mount<A>(command: CliCommand<A>): Mount {
  return (argv, io, exited) =>
    argv.command(command.name, command.describe, command.builder, async (args) => {
      exited(await command.run(args, io));
    });
}
