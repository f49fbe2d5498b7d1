/**
 * A list of disposable keys from the config, for a deployment with no provisioning hook: keys are
 * handed out in order, to the trials' rotation chains as they need them (ROTATION). Revoking
 * goes through an HTTP or command revoker. When the list runs out, provisioning fails and the
 * remaining trials are not run.
 */
import type { ScopeName } from '../../contract/types.ts';
import type { KeyHandle, KeyHook, KeyRevoker, OrgHandle } from '../../contract/handles.ts';
import { HookError } from './hook-error.ts';

export interface DisposableKey {
  readonly key: string;
  /** The provider's id, for `{keyId}` in the revoke template. */
  readonly id: string | null;
}

export function disposableListHook(keys: readonly DisposableKey[], revoker: KeyRevoker): KeyHook {
  let next = 0;
  return {
    kind: 'disposable-list',
    capacity: keys.length,
    revokeKey: (key: KeyHandle) => revoker.revokeKey(key),
    ...(revoker.warm ? { warm: () => revoker.warm!() } : {}),
    async provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle> {
      const entry = keys[next];
      if (!entry)
        throw new HookError(
          'HOOK_EXHAUSTED',
          `all ${keys.length} disposable keys are used; list more in revocation.hook.keys`,
        );
      next += 1;
      return { label: `${org.label}/disposable-${next}`, key: entry.key, id: entry.id, scopes };
    },
  };
}
