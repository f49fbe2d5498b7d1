/**
 * `tiergate profile`: learn how a deployment limits (Reset format, windows, what counts, shared
 * counters) without running the suite; print one block per tier, or the profiles as JSON. The
 * discovery and the text report are imported when the command runs.
 */
import { redactKeys } from '../contract/keys.ts';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import type { ProfileOptions } from '../run/profile-run.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { CliCommand } from './command.ts';
import type { FlagValues } from './flags.ts';
import { flagsOf, parseOptions, type FlagsOf } from './option-table.ts';
import {
  DECLARE_HEADERS_OPTION,
  declaredHeadersOf,
  resolveTarget,
  TARGET_OPTIONS,
  TARGET_SHAPE_OPTIONS,
  type TargetArgs,
} from './options.ts';

const JSON_FLAG = {
  json: { type: 'boolean', default: false, describe: 'print the profiles as JSON instead of text' },
} as const;

/**
 * Of the embedded target's shape, only the rate-limit dialect it speaks: the profile learns which it
 * sends; and the dialect to read it in, where the profile should learn its policies (a config
 * declares its own).
 */
const DIALECT_OPTION = { headers: TARGET_SHAPE_OPTIONS.headers, ...DECLARE_HEADERS_OPTION } as const;

type ProfileArgs = TargetArgs & FlagValues<FlagsOf<typeof DIALECT_OPTION>> & FlagValues<typeof JSON_FLAG>;

export const profileCommand: CliCommand<ProfileArgs> = {
  name: 'profile',
  describe:
    'Learn how a deployment limits (Reset format, windows, what counts) without judging it (the embedded reference target unless --config names one)',
  builder: (argv) => argv.options(flagsOf(TARGET_OPTIONS)).options(flagsOf(DIALECT_OPTION)).options(JSON_FLAG),
  run: async (args, io) => {
    const options = await resolveProfileOptions(args, io);
    const { profileDeployment } = await import('../run/profile-run.ts');
    const outcome = await profileDeployment(options, io);
    io.stdout.write(redactKeys(await formatProfiles(outcome.profiles, args.json, io)));
    return outcome.exitCode;
  },
};

/** Flags → ProfileOptions; with --config, every tier profiled needs an organization to learn on. */
export async function resolveProfileOptions(args: ProfileArgs, io: Io): Promise<ProfileOptions> {
  const { target, windowMs, timeoutMs, tiers } = await resolveTarget(args, io);
  if (target.kind === 'external') {
    const missing = tiers.filter((tier) => !target.orgs.some((org) => org.tier === tier));
    if (missing.length > 0)
      throw new UsageError(
        `--tiers ${args.tiers}: ${args.config} has no organization of tier ${missing.join(', ')} to learn on; add one or narrow --tiers`,
      );
  }
  const declaredHeaders = declaredHeadersOf(parseOptions(DECLARE_HEADERS_OPTION, args)['declare-headers'], target);
  return { target, windowMs, tiers, timeoutMs, ...(declaredHeaders ? { declaredHeaders } : {}) };
}

/** Text: each profile with the reasons for what stayed unknown, a blank line between; colour on a terminal only. */
async function formatProfiles(profiles: readonly LimiterProfile[], json: boolean, io: Io): Promise<string> {
  if (json) return `${JSON.stringify(profiles, null, 2)}\n`;
  if (profiles.length === 0) return 'No limiter profile was learned.\n';
  const [{ formatProfile }, { ansi, plain }] = await Promise.all([
    import('../report/profile-text.ts'),
    import('../report/palette.ts'),
  ]);
  const paint = io.stdout.isTTY === true && io.env.CI !== 'true' && !io.env.NO_COLOR ? ansi : plain;
  return profiles.map((p) => `${formatProfile(p, { reasons: true, paint })}\n`).join('\n');
}
