/**
 * What a run created on the deployment (README "What a run sends, writes and keeps"): the jobs its
 * scope checks created, which the cleanup archives, and the webhook subscriptions, which the spec
 * gives no call to remove and which are listed as left behind.
 */
import type { CreatedResource } from '../results/types.ts';
import type { KeyHook } from '../contract/handles.ts';

export class CreatedLedger {
  readonly #items: CreatedResource[] = [];
  /** Keys the revocation trials had the hook provision, and revoke. */
  readonly keys = { provisioned: 0, revoked: 0 };

  /** `hook`, counting into this ledger every key it provisions and revokes. */
  counting(hook: KeyHook): KeyHook {
    // Named field by field: a hook whose methods or capacity live on a prototype loses nothing.
    return {
      kind: hook.kind,
      ...(hook.capacity === undefined ? {} : { capacity: hook.capacity }),
      provisionKey: async (org, scopes) => {
        const key = await hook.provisionKey(org, scopes);
        this.keys.provisioned += 1;
        return key;
      },
      revokeKey: async (key) => {
        await hook.revokeKey(key);
        this.keys.revoked += 1;
      },
      ...(hook.warm ? { warm: () => hook.warm!() } : {}),
    };
  }

  add(resource: Omit<CreatedResource, 'cleanedUp'>): CreatedResource {
    const created = { ...resource, cleanedUp: false };
    this.#items.push(created);
    return created;
  }

  markCleanedUp(resource: CreatedResource): void {
    const i = this.#items.indexOf(resource);
    if (i >= 0) this.#items[i] = { ...resource, cleanedUp: true };
  }

  all(): readonly CreatedResource[] {
    return [...this.#items];
  }
}
