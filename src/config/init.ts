/**
 * A starter tiergate.config.json (`tiergate init`): the deployment's edges, organizations of the
 * tiers asked for with all three keys each (by environment variable name, never the key), the
 * Enterprise organizations' own figures when given, and the `$schema` an editor reads to explain
 * every field. It loads as written once its variables are set. Revocation is left out: it needs a
 * hook only the deployment's owner can write (README).
 */
import { writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { orgLimitProblems } from '../contract/org-limits.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { OrgLimits, TierName } from '../contract/types.ts';
import { formatDurationMs } from '../util/duration.ts';
import { UsageError } from '../util/errors.ts';
import { DEFAULTS } from './defaults.ts';
import { CONFIG_SCHEMA_URL } from './json-schema.ts';
import { KEY_ROLES, type KeyRole } from './schema.ts';

export interface StarterOptions {
  /** Absolute path the file goes to: `$schema` is written relative to it. */
  readonly file: string;
  /** Origins of the edges, e.g. http://127.0.0.1:8080. */
  readonly edges: readonly string[];
  readonly allowNonLoopback: boolean;
  readonly orgs: readonly { readonly name: string; readonly tier: TierName; readonly limits?: Partial<OrgLimits> }[];
}

/** A key the file names: where, in which variable, and what the key must be. */
export interface StarterKey {
  /** Its place in the file, as config errors name it: `orgs.0.keys.primary`. */
  readonly path: string;
  readonly env: string;
  readonly org: string;
  readonly tier: TierName;
  readonly role: KeyRole;
}

export interface StarterConfig {
  readonly text: string;
  readonly keys: readonly StarterKey[];
}

/** What each role's key must hold, in the words `init` prints beside its variable. */
export const ROLE_NEEDS: Readonly<Record<KeyRole, string>> = {
  primary: 'every scope',
  secondary: 'every scope; a second key of the same organization',
  unscoped: 'no scope at all',
};

const ENV_SUFFIX: Readonly<Record<KeyRole, string>> = { primary: 'KEY', secondary: 'KEY_2', unscoped: 'KEY_NOSCOPE' };

/** XH_STARTER_A_KEY, XH_STARTER_A_KEY_2, XH_STARTER_A_KEY_NOSCOPE: the example config's names. */
function envNameFor(org: string, role: KeyRole): string {
  return `XH_${org.toUpperCase().replace(/-/g, '_')}_${ENV_SUFFIX[role]}`;
}

/** `$schema` as an editor resolves it from the file's folder: a relative path where there is one. */
function schemaReference(file: string): string {
  const schema = fileURLToPath(CONFIG_SCHEMA_URL);
  const path = relative(dirname(file), schema);
  if (isAbsolute(path)) return CONFIG_SCHEMA_URL.href; // another drive: no relative path exists
  const posix = path.split(sep).join('/');
  return posix.startsWith('../') ? posix : `./${posix}`;
}

export function starterConfig(options: StarterOptions): StarterConfig {
  const keys: StarterKey[] = options.orgs.flatMap((org, i) =>
    KEY_ROLES.map((role) => ({
      path: `orgs.${i}.keys.${role}`,
      env: envNameFor(org.name, role),
      org: org.name,
      tier: org.tier,
      role,
    })),
  );
  const json = {
    $schema: schemaReference(options.file),
    target: { edges: options.edges, allowNonLoopback: options.allowNonLoopback },
    window: `${DEFAULTS.windowMs / 1000}s`,
    timeout: formatDurationMs(DEFAULTS.timeoutMs),
    // Written out, so the file says what the run may write to the deployment (docs/deployment.md "What a run sends, writes and keeps").
    writes: 'own',
    orgs: options.orgs.map((org) => ({
      name: org.name,
      tier: org.tier,
      keys: Object.fromEntries(KEY_ROLES.map((role) => [role, { env: envNameFor(org.name, role) }])),
      ...(org.limits ? { limits: org.limits } : {}),
    })),
  };
  return { text: `${JSON.stringify(json, null, 2)}\n`, keys };
}

/**
 * The figures an Enterprise contract sets, for the Enterprise organizations the file gets: at least
 * the published minimums, and only where the file has such an organization (`input` names the flag).
 */
export function enterpriseLimits(
  limits: Partial<OrgLimits>,
  tiers: readonly TierName[],
  input: string,
): Partial<OrgLimits> {
  if (!tiers.includes('enterprise')) {
    throw new UsageError(
      `${input}: these are an Enterprise contract's figures, and the file gets no Enterprise organization (--tiers ${tiers.join(',')}); add enterprise to --tiers, or leave the figures out`,
    );
  }
  const problems = orgLimitProblems(recruitingApi, 'enterprise', limits);
  if (problems.length > 0)
    throw new UsageError(`${input}: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
  return limits;
}

/** Writes the file where none is, or over one when `force`; `input` names the flag in the one-line refusal. */
export async function writeConfigFile(
  file: string,
  text: string,
  options: { readonly force: boolean; readonly input: string },
): Promise<void> {
  try {
    await writeFile(file, text, { flag: options.force ? 'w' : 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new UsageError(
        `${options.input}: ${file} already exists; pass --force to overwrite it, or name another file`,
      );
    throw new UsageError(`${options.input}: cannot write ${file} (${code ?? 'error'}); check the path`);
  }
}
