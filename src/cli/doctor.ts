/**
 * `tiergate doctor [--config FILE]`: checks a deployment's config in a few seconds before a long run
 * (src/run/doctor.ts) and prints one line per finding. Exit 0 when all is well, 1 when a problem was
 * found, 2 for a mistake in the flags, the file or the environment (as `tiergate run` reports it).
 * The config's loader and the prober are imported when the command runs.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { redactKeys } from '../contract/keys.ts';
import { TiergateError, UsageError } from '../util/errors.ts';
import type { CliCommand } from './command.ts';
import { stringFlag, type FlagValues } from './flags.ts';

const DOCTOR_FLAGS = {
  config: stringFlag(
    "the deployment's config to check (keys come from the environment variables it names)",
    DEFAULTS.configFile,
  ),
} as const;

type DoctorArgs = FlagValues<typeof DOCTOR_FLAGS>;

export const doctorCommand: CliCommand<DoctorArgs> = {
  name: 'doctor',
  describe:
    "Check a deployment's config in a few seconds before a long run: edges reachable, keys accepted with their scopes, the rate-limit header dialect, the server clock",
  builder: (argv) => argv.options(DOCTOR_FLAGS),
  run: async (args, io) => {
    const file = args.config ?? DEFAULTS.configFile;
    const [{ loadExternalTarget }, { formatDoctor, runDoctor }] = await Promise.all([
      import('./options.ts'),
      import('../run/doctor.ts'),
    ]);
    const outcome = await runDoctor(await loadExternalTarget(file, io), io).catch((error: unknown) => {
      // The loopback rule is the prober's; the fix is in the file.
      if (error instanceof TiergateError && error.code === 'TG_NOT_LOOPBACK') {
        throw new UsageError(`${file}: ${error.message}; to test it, set target.allowNonLoopback to true in the file`);
      }
      throw error;
    });
    io.stdout.write(redactKeys(formatDoctor(outcome)));
    return outcome.exitCode;
  },
};
