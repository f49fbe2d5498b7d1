/** The organizations and keys a run works with, and the hook that provisions and revokes keys. */
import type { OrgLimits, ScopeName, TierName } from './types.ts';

/** A key the run may use. `key` is the secret: it is sent, never printed or written (redactKey). */
export interface KeyHandle {
  readonly label: string;
  readonly key: string;
  /** The provisioning system's id for the key (admin API id), when known: revocation needs it. */
  readonly id: string | null;
  /** Scopes the key holds; 'all' when it holds every scope of the contract. */
  readonly scopes: readonly ScopeName[] | 'all';
}

export interface OrgHandle {
  /** Label within the run, e.g. 'starter-a'. */
  readonly label: string;
  readonly tier: TierName;
  /** The provisioning system's id, when known. */
  readonly id: string | null;
  /** A key holding every scope: the workhorse. */
  readonly primary: KeyHandle;
  /** A second key of the same org (ORG-SHARED, ROTATION), when available. */
  readonly secondary: KeyHandle | null;
  /** A key holding no scope (SCOPE-ENFORCED), when available. */
  readonly unscoped: KeyHandle | null;
  /**
   * Its own figures, exact (figuresOf): declared in the config, or provisioned so on the embedded
   * target; a figure absent here is its tier's published one.
   */
  readonly limits?: Partial<OrgLimits>;
}

/** Revoke keys: the part of a key hook a revocation trial calls, and times. */
export interface KeyRevoker {
  /** Revoke `key`. Resolves when the revoking system has answered; rejects with the hook's output on failure. */
  revokeKey(key: KeyHandle): Promise<void>;
  /**
   * Open the connection the next revoke call goes out on, by a request that carries no credential and
   * changes nothing, so that no handshake falls inside the revoke call the trial times. Rejects when
   * it cannot (the trial notes it, and revokes all the same). Absent where a revoke call has no
   * connection to open beforehand (a command starts afresh each time).
   */
  warm?(): Promise<void>;
}

/** Provision and revoke keys: the embedded target's admin API, an HTTP hook, a command, or a list. */
export interface KeyHook extends KeyRevoker {
  readonly kind: 'admin-api' | 'http' | 'command' | 'disposable-list';
  /** How many keys it can provision in all (a list of disposable keys); absent: no limit. */
  readonly capacity?: number;
  /** A fresh key for `org` with `scopes`. */
  provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle>;
}
