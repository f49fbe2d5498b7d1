import { describe, expect, it } from 'vitest';
import { CreatedLedger } from '../../src/suite/created.ts';
import type { KeyHandle, KeyHook } from '../../src/contract/handles.ts';

/** A hook as a class: its methods and capacity on the prototype, as a user's own hook might be. */
class ListHook implements KeyHook {
  readonly kind = 'disposable-list' as const;
  get capacity(): number {
    return 3;
  }
  async provisionKey(): Promise<KeyHandle> {
    return { label: 'k', key: 'xh_test_…a1B2' } as unknown as KeyHandle;
  }
  async revokeKey(): Promise<void> {}
}

describe('CreatedLedger', () => {
  it('counts the keys a hook provisions and revokes, keeping its kind and capacity', async () => {
    const ledger = new CreatedLedger();
    const hook = ledger.counting(new ListHook());
    expect({ kind: hook.kind, capacity: hook.capacity }).toEqual({ kind: 'disposable-list', capacity: 3 });
    const key = await hook.provisionKey({} as never, 'all');
    await hook.provisionKey({} as never, 'all');
    await hook.revokeKey(key);
    expect(ledger.keys).toEqual({ provisioned: 2, revoked: 1 });
  });

  it("keeps the hook's warm where it has one (on its prototype too), and has none where it has none", async () => {
    class WarmHook extends ListHook {
      warmed = 0;
      async warm(): Promise<void> {
        this.warmed += 1;
      }
    }
    const warmHook = new WarmHook();
    const counted = new CreatedLedger().counting(warmHook);
    await counted.warm!();
    expect(warmHook.warmed).toBe(1);
    expect(new CreatedLedger().counting(new ListHook()).warm).toBeUndefined();
  });

  it('marks what it created cleaned up, once', () => {
    const ledger = new CreatedLedger();
    const job = ledger.add({ kind: 'job', tier: 'starter', org: 'starter-a', id: 'job-1' });
    ledger.add({ kind: 'webhook', tier: 'starter', org: 'starter-a', id: null });
    ledger.markCleanedUp(job);
    expect(ledger.all().map((r) => r.cleanedUp)).toEqual([true, false]);
  });
});
