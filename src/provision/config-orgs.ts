/**
 * Organizations of a real deployment, from a validated config: keys resolve from the environment
 * variables the config names (never from the file), and the figures an organization declares go
 * with it to the checks. Every missing variable is named in one line.
 */
import { resolveSecret } from '../config/load.ts';
import { KEY_ROLES, type Config } from '../config/schema.ts';
import { UsageError } from '../util/errors.ts';
import type { KeyHandle, OrgHandle } from '../contract/handles.ts';

export function orgsFromConfig(config: Config, env: Readonly<Record<string, string | undefined>>): OrgHandle[] {
  const problems: string[] = [];
  const orgs = config.orgs.map((org, i) => {
    const keys = Object.fromEntries(
      KEY_ROLES.map((role): [string, KeyHandle | null] => {
        try {
          const secret = resolveSecret(org.keys[role], env, `orgs.${i}.keys.${role}`);
          return [
            role,
            secret === null
              ? null
              : { label: `${org.name}/${role}`, key: secret, id: null, scopes: role === 'unscoped' ? [] : 'all' },
          ];
        } catch (error) {
          if (!(error instanceof UsageError)) throw error;
          problems.push(error.message);
          return [role, null];
        }
      }),
    );
    return {
      label: org.name,
      tier: org.tier,
      id: null,
      primary: keys['primary']!,
      secondary: keys['secondary'] ?? null,
      unscoped: keys['unscoped'] ?? null,
      ...(org.limits ? { limits: org.limits } : {}),
    };
  });
  if (problems.length > 0) throw new UsageError(problems.join('; '), 'TG_ENV');
  return orgs;
}
