/** What a running suite hands each task: resolved options, provisioned orgs, the prober, and hooks. */
import type { AssumptionId, Contract, ScopeName, TierName } from '../contract/types.ts';
import type { CheckResult } from '../checks/types.ts';
import type { HttpProber } from '../drivers/http-prober.ts';
import type { Io } from '../io.ts';
import type { RunListener } from './events.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { WindowKeeper } from './windows.ts';

/** Custom figures for an Enterprise org on the embedded target. */
export interface OrgLimits {
  readonly read: number;
  readonly ingest: number;
  readonly concurrency: number;
}

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
}

/** Provision and revoke keys: the embedded target's admin API, an HTTP hook, a command, or a list. */
export interface KeyHook {
  readonly kind: 'admin-api' | 'http' | 'command' | 'disposable-list';
  /** A fresh key for `org` with `scopes`. */
  provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle>;
  /** Revoke `key`. Resolves when the revoking system has answered; rejects with the hook's output on failure. */
  revokeKey(key: KeyHandle): Promise<void>;
}

export interface SuiteContext {
  readonly contract: Contract;
  readonly prober: HttpProber;
  readonly io: Io;
  readonly orgs: readonly OrgHandle[];
  /** null when no way to provision/revoke keys was configured: revocation checks are skipped. */
  readonly keyHook: KeyHook | null;
  /** Creates more organizations of a tier (fleet load); null when the target cannot (external deployments). */
  readonly provisionOrgs: ((tier: TierName, count: number, limits?: OrgLimits) => Promise<readonly OrgHandle[]>) | null;
  readonly windowMs: number;
  /** Fresh quota windows per organization and class, scheduled from the limiter profile. */
  readonly windows: WindowKeeper;
  /** The limiter profile learned for a tier (null where discovery did not run or failed). */
  profileOf(tier: TierName): LimiterProfile | null;
  /**
   * What the deployment's config declares where the spec is silent: an assumption declared false is
   * intended behaviour, judged as such; declared true, it is required. Undeclared: learned and reported.
   */
  readonly declared: Readonly<Partial<Record<AssumptionId, boolean>>>;
  /** Current estimate of the server clock minus ours, ms (0 until a Date header was seen). */
  clockOffsetMs(): number;
  readonly emit: RunListener;
  readonly signal: AbortSignal;
  /** The run's report directory, where tasks write their own files (revocation.csv); null or absent: none. */
  readonly reportDir?: string | null;
}

/** One unit of scheduled work: some checks against one org (or none), producing their results. */
export interface Task {
  /** e.g. 'QUOTA-READ starter-a'. */
  readonly name: string;
  readonly tier: TierName | null;
  readonly org: string | null;
  /** Quota it consumes on its org; quota-consuming tasks each need a fresh window of their own. */
  readonly consumes: 'read' | 'ingest' | 'none';
  /** Other orgs whose window the task needs to itself (ORG-ISOLATED). */
  readonly alsoOccupies?: readonly string[];
  run(context: SuiteContext): Promise<readonly CheckResult[]>;
}
