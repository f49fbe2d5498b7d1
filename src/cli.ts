/**
 * The thin CLI: yargs maps flags to typed options and calls the library.
 * Usage errors are one line and exit code 2; never a stack trace.
 */
import yargs, { type Argv } from 'yargs';
import { EXIT, stackOf, TiergateError, UsageError } from './util/errors.ts';
import { processIo } from './cli/process-io.ts';
import type { Io } from './util/io.ts';
import { redactKeys } from './contract/keys.ts';
import { commands } from './cli/commands.ts';

export async function main(argv: readonly string[], given: Io = processIo()): Promise<number> {
  const io: Io = { ...given, argv: [...argv] };
  let exitCode: number = EXIT.pass;
  const parser: Argv = yargs([...argv])
    .scriptName('tiergate')
    .strict()
    .recommendCommands()
    .demandCommand(1, 'name a command: tiergate --help lists them')
    .help()
    .version(false)
    .wrap(Math.min(100, io.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      if (error) throw error;
      // Throwing stops yargs before any command handler runs (with exitProcess(false) it would go on).
      throw new UsageError(`${message} (see tiergate --help)`);
    });
  for (const mountCommand of commands) {
    mountCommand(parser, io, (code) => {
      exitCode = code;
    });
  }
  try {
    let helpText = '';
    await parser.parseAsync([...argv], {}, (_err, _argv, output) => {
      helpText = output;
    });
    if (helpText) io.stdout.write(helpText.endsWith('\n') ? helpText : `${helpText}\n`);
    return exitCode;
  } catch (error) {
    if (error instanceof TiergateError) {
      // One line per problem (an unreachable target names each edge on its own line).
      for (const line of redactKeys(error.message).split('\n')) io.stderr.write(`tiergate: ${line}\n`);
      return error.code === 'TG_TARGET_START' ? EXIT.fail : EXIT.usage;
    }
    // A bug in tiergate itself: say so plainly, with the detail needed to report it.
    io.stderr.write(`tiergate: internal error: ${redactKeys(stackOf(error))}\n`);
    return EXIT.fail;
  }
}
