/**
 * `tiergate init --edge URL [--edge URL …]`: writes a starter tiergate.config.json (src/config/init.ts)
 * and prints the environment variables it names, one per key. Never overwrites without --force.
 * The config's writer (and its schema, zod) is imported when the command runs.
 */
import { resolve } from 'node:path';
import { TIER_NAMES } from '../contract/types.ts';
import { DEFAULTS } from '../config/defaults.ts';
import type { ROLE_NEEDS, StarterKey } from '../config/init.ts';
import { SCENARIO_DEFAULTS } from '../scenario/define.ts';
import { EXIT, UsageError } from '../util/errors.ts';
import { isLoopbackHost } from '../util/loopback.ts';
import type { CliCommand } from './command.ts';
import { count, list, orgLimits } from './flag-values.ts';
import { stringFlag, stringsFlag, TIERS, type FlagValues } from './flags.ts';

/** Organizations are lettered a to z within a tier. */
const MAX_ORGS = 26;

const INIT_FLAGS = {
  edge: stringsFlag(
    'an edge of the deployment, e.g. http://127.0.0.1:8080 (repeatable, at least one; the first takes the quota checks)',
  ),
  tiers: TIERS,
  orgs: stringFlag(
    'organizations per tier, each with three keys (ORG-ISOLATED needs two; more spread the quota checks)',
    String(SCENARIO_DEFAULTS.orgs),
  ),
  config: stringFlag('the file to write', DEFAULTS.configFile),
  limits: stringFlag(
    "the Enterprise organizations' own figures, from their contract (each at least the published minimum; judged exactly), e.g. read=10000,ingest=2000,concurrency=250",
    'the published minimums',
  ),
  'allow-non-loopback': {
    type: 'boolean',
    default: false,
    describe: 'allow edges that are not loopback addresses (tiergate sends traffic to loopback only otherwise)',
  },
  force: { type: 'boolean', default: false, describe: 'overwrite the file if it exists' },
} as const;

type InitArgs = FlagValues<typeof INIT_FLAGS>;

/** An --edge value as the config holds it: an http(s) origin, loopback unless allowed. */
function edgeOrigin(raw: string, allowNonLoopback: boolean): string {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new UsageError(
      `--edge ${raw || '(empty)'}: expected an http(s) origin like http://127.0.0.1:8080, without a path`,
    );
  }
  if (!allowNonLoopback && !isLoopbackHost(url.hostname)) {
    throw new UsageError(
      `--edge ${raw}: not a loopback address; tiergate sends traffic to loopback only unless the config allows it: add --allow-non-loopback`,
    );
  }
  return url.origin;
}

export const initCommand: CliCommand<InitArgs> = {
  name: 'init',
  describe: 'Write a starter tiergate.config.json for a deployment and print the environment variables its keys go in',
  builder: (argv) => argv.options(INIT_FLAGS),
  run: async (args, io) => {
    if (args.edge.length === 0)
      throw new UsageError(
        "init: name the deployment's edges with --edge URL (repeatable), e.g. --edge http://127.0.0.1:8080",
      );
    const edges = args.edge.map((raw) => edgeOrigin(raw, args['allow-non-loopback']));
    const repeated = edges.find((edge, i) => edges.indexOf(edge) !== i);
    if (repeated) throw new UsageError(`--edge ${repeated}: given twice; name each edge once`);
    const tiers = list('tiers', args.tiers, TIER_NAMES) ?? [...TIER_NAMES];
    const perTier = count('orgs', args.orgs, MAX_ORGS) ?? SCENARIO_DEFAULTS.orgs;
    const declared = orgLimits('limits', args.limits);
    const name = args.config ?? DEFAULTS.configFile;
    const file = resolve(io.cwd, name);
    const [{ orgLabels }, { ROLE_NEEDS, enterpriseLimits, starterConfig, writeConfigFile }, { displayPath }] =
      await Promise.all([
        import('../provision/provision.ts'),
        import('../config/init.ts'),
        import('../report/terminal-summary.ts'),
      ]);
    const limits = declared && enterpriseLimits(declared, tiers, `--limits ${args.limits}`);
    const orgs = tiers.flatMap((tier) =>
      orgLabels(tier, perTier).map((label) => ({
        name: label,
        tier,
        ...(limits && tier === 'enterprise' ? { limits } : {}),
      })),
    );
    const starter = starterConfig({ file, edges, allowNonLoopback: args['allow-non-loopback'], orgs });
    await writeConfigFile(file, starter.text, { force: args.force, input: `--config ${name}` });
    io.stdout.write(
      describeWritten(
        displayPath(file, io.cwd),
        edges.length,
        orgs.length,
        starter.keys,
        ROLE_NEEDS,
        args.limits ?? null,
      ),
    );
    return EXIT.pass;
  },
};

/** What was written, the variables to export (one per key, with what its role needs), and what to do next. */
function describeWritten(
  shown: string,
  edges: number,
  orgs: number,
  keys: readonly StarterKey[],
  needs: typeof ROLE_NEEDS,
  limits: string | null,
): string {
  const width = Math.max(...keys.map((k) => k.env.length));
  const orgWidth = Math.max(...keys.map((k) => k.org.length));
  return [
    `wrote ${shown}: ${edges} edge${edges === 1 ? '' : 's'}, ${orgs} organization${orgs === 1 ? '' : 's'}, ${keys.length} keys`,
    'Each is a distinct organization of its tier on the deployment. Export its keys in these variables',
    '(the file names the variables, never the keys):',
    ...keys.map((k) => `  ${k.env.padEnd(width)}  ${k.org.padEnd(orgWidth)}  ${k.role.padEnd(9)}  ${needs[k.role]}`),
    '',
    ...(limits
      ? [
          `The Enterprise organizations declare their contract's figures (${limits}): the checks hold them to exactly these.`,
        ]
      : []),
    'Revocation checks are skipped until the file has a "revocation" hook (docs/revocation.md, docs/deployment.md).',
    `Then check the file and the keys in a few seconds: tiergate doctor --config ${shown}`,
    '',
  ].join('\n');
}
