/** Organizations and their API keys: the state every edge shares. Keys are kept only as hashes. */
import { redactKey } from '../contract/keys.ts';
import { figuresOf, orgLimitProblems } from '../contract/org-limits.ts';
import type { Contract, KeyFormat, OrgLimits, ScopeName, TierName } from '../contract/types.ts';
import { generateApiKey, hashKey, randomId } from './key-material.ts';
import type { Revocation } from './revocation.ts';

export interface Org {
  readonly id: string;
  readonly name: string;
  readonly tier: TierName;
  readonly limits: OrgLimits;
  readonly createdAt: number;
}

export type KeyEnv = KeyFormat['env'];

export interface ApiKeyRecord {
  readonly id: string;
  readonly orgId: string;
  readonly env: KeyEnv;
  readonly scopes: ReadonlySet<ScopeName>;
  /** Prefix and last four characters: the only form ever shown. */
  readonly redacted: string;
  /** SHA-256 of the key, hex. */
  readonly hash: string;
  readonly createdAt: number;
  readonly revocation: Revocation | null;
}

export interface LimitProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * §8 figures for an org: the tier's published figures, or custom ones where the tier's figure is a
 * minimum ("2,500 or more"); custom figures below the minimum, or other than a fixed tier's, are refused.
 */
export function resolveOrgLimits(
  contract: Contract,
  tier: TierName,
  custom: Partial<OrgLimits> | undefined,
): { ok: true; limits: OrgLimits } | { ok: false; problems: readonly LimitProblem[] } {
  const problems = orgLimitProblems(contract, tier, custom ?? {});
  if (problems.length > 0)
    return { ok: false, problems: problems.map((p) => ({ path: `limits.${p.field}`, message: p.message })) };
  const figures = figuresOf(contract, { tier, limits: custom });
  return {
    ok: true,
    limits: Object.freeze({
      read: figures.read.value,
      ingest: figures.ingest.value,
      concurrency: figures.concurrency.value,
    }),
  };
}

export class TargetState {
  readonly #contract: Contract;
  readonly #orgs = new Map<string, Org>();
  readonly #keysById = new Map<string, ApiKeyRecord>();
  /** sha256(key) hex -> record. */
  readonly #keysByHash = new Map<string, ApiKeyRecord>();

  constructor(contract: Contract) {
    this.#contract = contract;
  }

  createOrg(tier: TierName, name: string, limits: OrgLimits, now: number): Org {
    const org: Org = Object.freeze({ id: randomId('org'), name, tier, limits, createdAt: now });
    this.#orgs.set(org.id, org);
    return org;
  }

  org(id: string): Org | undefined {
    return this.#orgs.get(id);
  }

  orgs(): readonly Org[] {
    return [...this.#orgs.values()];
  }

  keysOf(orgId: string): readonly ApiKeyRecord[] {
    return [...this.#keysById.values()].filter((k) => k.orgId === orgId);
  }

  /** Returns the full key once; only its hash and redacted form are kept. */
  createKey(
    orgId: string,
    scopes: readonly ScopeName[],
    env: KeyEnv,
    now: number,
  ): { record: ApiKeyRecord; key: string } | null {
    if (!this.#orgs.has(orgId)) return null;
    const format = this.#contract.keyFormats.find((f) => f.env === env);
    if (!format) throw new Error(`contract ${this.#contract.name} has no ${env} key format`);
    const key = generateApiKey(format);
    const hash = hashKey(key);
    const record: ApiKeyRecord = Object.freeze({
      id: randomId('key'),
      orgId,
      env,
      scopes: new Set(scopes),
      redacted: redactKey(key),
      hash,
      createdAt: now,
      revocation: null,
    });
    this.#keysById.set(record.id, record);
    this.#keysByHash.set(hash, record);
    return { record, key };
  }

  key(id: string): ApiKeyRecord | undefined {
    return this.#keysById.get(id);
  }

  /** Revoking twice keeps the first revocation. */
  revokeKey(id: string, revocation: Revocation): ApiKeyRecord | null {
    const record = this.#keysById.get(id);
    if (!record) return null;
    if (record.revocation) return record;
    const revoked: ApiKeyRecord = Object.freeze({ ...record, revocation });
    this.#keysById.set(id, revoked);
    this.#keysByHash.set(record.hash, revoked);
    return revoked;
  }

  /** The record for a presented key, or null: found by its hash (the map's hit is the match). */
  findKey(presented: string): ApiKeyRecord | null {
    return this.#keysByHash.get(hashKey(presented)) ?? null;
  }
}
