/**
 * Organizations of a real deployment, from a validated config: keys resolve from the environment
 * variables the config names (never from the file). A missing variable is a usage error naming it.
 */
import { resolveSecret } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import type { KeyHandle, OrgHandle } from './context.ts';

export function orgsFromConfig(config: Config, env: Readonly<Record<string, string | undefined>>): OrgHandle[] {
  return config.orgs.map((org, i) => {
    const key = (role: 'primary' | 'secondary' | 'unscoped'): KeyHandle | null => {
      const secret = resolveSecret(org.keys[role], env, `orgs.${i}.keys.${role}`);
      return secret === null ? null : { label: `${org.name}/${role}`, key: secret, id: null, scopes: role === 'unscoped' ? [] : 'all' };
    };
    return { label: org.name, tier: org.tier, id: null, primary: key('primary')!, secondary: key('secondary'), unscoped: key('unscoped') };
  });
}
