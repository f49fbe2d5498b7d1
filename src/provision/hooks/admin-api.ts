/**
 * The embedded target's hook: keys are provisioned and revoked through its admin API (the default
 * when no config names a deployment). Every call has a timeout; errors never hold a key. `warm` opens
 * the connection the next revoke call takes.
 */
import { SCOPE_NAMES, type ScopeName } from '../../contract/types.ts';
import type { AdminClient } from '../../reference-server/admin-client.ts';
import type { KeyHandle, KeyHook, OrgHandle } from '../../contract/handles.ts';
import { HookError, withTimeout } from './hook-error.ts';

export interface AdminApiHookOptions {
  /** Per call, ms. Default 10 000. */
  readonly timeoutMs?: number;
}

export function adminApiHook(
  admin: Pick<AdminClient, 'createKey' | 'revokeKey' | 'warm'>,
  options: AdminApiHookOptions = {},
): KeyHook {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let provisioned = 0;
  return {
    kind: 'admin-api',
    async provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle> {
      if (org.id === null) throw new HookError('HOOK_FAILED', `organization ${org.label} has no admin API id`);
      const created = await withTimeout(
        admin.createKey(org.id, scopes === 'all' ? SCOPE_NAMES : scopes, 'test'),
        timeoutMs,
        'the admin API key creation',
      );
      provisioned += 1;
      return { label: `${org.label}/revocation-${provisioned}`, key: created.key, id: created.id, scopes };
    },
    async revokeKey(key: KeyHandle): Promise<void> {
      if (key.id === null) throw new HookError('HOOK_FAILED', `key ${key.label} has no admin API id to revoke`);
      await withTimeout(admin.revokeKey(key.id), timeoutMs, 'the admin API revoke call');
    },
    async warm(): Promise<void> {
      await withTimeout(admin.warm(), timeoutMs, "opening the admin API revoke call's connection");
    },
  };
}
