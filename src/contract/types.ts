/** The spec as data: the types every other module reads. */

export const TIER_NAMES = ['starter', 'professional', 'enterprise'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export const QUOTA_CLASSES = ['read', 'ingest'] as const;
export type QuotaClass = (typeof QUOTA_CLASSES)[number];

export const SCOPE_NAMES = [
  'resume.parse',
  'resume.parse.bulk',
  'jobs.read',
  'jobs.create',
  'jobs.manage',
  'candidate.read',
  'webhook.manage',
] as const;
export type ScopeName = (typeof SCOPE_NAMES)[number];

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** HTTP 429 Too Many Requests: the status §7 and §8.1 name for an exceeded quota. */
export const TOO_MANY_REQUESTS = 429;

/**
 * A figure an organization is held to. Published (§8): Enterprise's "2,500 or more" is a minimum,
 * not an exact value. Declared: the organization's own figure from the config (its contract), exact.
 */
export interface Figure {
  readonly value: number;
  readonly atLeast: boolean;
  /** The organization's own figure, declared in the config (or provisioned so on the embedded target); absent: published. */
  readonly declared?: boolean;
}

/** The figures of §8's table, per tier and per organization. */
export const LIMIT_FIELDS = ['read', 'ingest', 'concurrency'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/**
 * An organization's own figures: the ones its contract sets where its tier's are minimums
 * (Enterprise / Custom). The config declares some or all of them (`Partial<OrgLimits>`); the
 * reference target enforces all three.
 */
export type OrgLimits = Readonly<Record<LimitField, number>>;

/** A tier's figures, or an organization's (`figuresOf`). */
export interface LimitFigures extends Readonly<Record<LimitField, Figure>> {
  /** Read requests per window (spec: per minute). */
  readonly read: Figure;
  /** Resumes ingested per window (spec: per minute). */
  readonly ingest: Figure;
  /** Requests in flight at once per organization. */
  readonly concurrency: Figure;
}

export interface TierLimits extends LimitFigures {
  readonly name: TierName;
  readonly label: string;
}

export interface ScopeEntry {
  readonly scope: ScopeName;
  readonly description: string;
}

export type EndpointId =
  | 'scope-list'
  | 'bootstrap-head'
  | 'bootstrap-get'
  | 'resume-analysis'
  | 'resume-analysis-bulk'
  | 'jobs-list'
  | 'jobs-create'
  | 'jobs-update'
  | 'candidate-read'
  | 'webhooks';

export interface Endpoint {
  readonly id: EndpointId;
  readonly method: HttpMethod;
  /** Path template; `:id` marks an identifier segment. */
  readonly path: string;
  /** Scope required, or null when any valid key may call it. */
  readonly scope: ScopeName | null;
  /** Quota class the call counts against, or null when it consumes no quota (assumption). */
  readonly quotaClass: QuotaClass | null;
  /** Units counted per call: 'request', or 'item' (bulk counts one per resume, assumption). */
  readonly counts: 'request' | 'item' | 'none';
  readonly spec: string;
  readonly summary: string;
}

export interface HeaderNames {
  readonly apiKey: string;
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
  readonly retryAfter: string;
  readonly edgeNode: string;
}

export type AssumptionId =
  | 'auth-status'
  | 'scope-status'
  | 'concurrency-status'
  | 'quota-classes'
  | 'bulk-counts-per-resume'
  | 'head-bootstrap-free'
  | 'bootstrap-any-scope'
  | 'fixed-windows'
  | 'window-length'
  | 'counted-requests'
  | 'limit-header-class';

/** Something the spec leaves unsaid, made explicit so reports can show it as such. */
export interface Assumption {
  readonly id: AssumptionId;
  readonly statement: string;
  /** The spec's own words that leave the gap. */
  readonly gap: string;
}

export interface KeyFormat {
  readonly env: 'live' | 'test';
  readonly prefix: string;
  /** Body after the prefix. */
  readonly pattern: RegExp;
}

export interface Contract {
  readonly name: string;
  readonly version: string;
  readonly tiers: Readonly<Record<TierName, TierLimits>>;
  readonly scopes: readonly ScopeEntry[];
  readonly endpoints: readonly Endpoint[];
  readonly headers: HeaderNames;
  readonly keyFormats: readonly KeyFormat[];
  /** Spec window for the per-minute figures, in seconds. */
  readonly windowSeconds: number;
  /** §5.9, §8.3: revocation reaches every edge in under this. */
  readonly revocationSlaMs: number;
  /** Statuses the harness expects where the spec is silent (assumptions). */
  readonly statuses: {
    readonly unauthenticated: number;
    readonly forbidden: number;
    /** Not an assumption (§7 names it): pinned, so that checks comparing with the constant agree. */
    readonly rateLimited: typeof TOO_MANY_REQUESTS;
    readonly concurrencyCapped: number;
  };
  readonly rateLimitErrorCode: string;
  readonly assumptions: readonly Assumption[];
}
