/**
 * A typed client of the reference target's admin API: how the harness provisions its own orgs and
 * keys and revokes keys. Errors name the status and the API's message, never a key.
 */
import { request } from 'undici';
import { openConnection } from '../util/open-connection.ts';
import { z } from 'zod';
import { SCOPE_NAMES, TIER_NAMES, type OrgLimits, type ScopeName, type TierName } from '../contract/types.ts';

const limits = z.object({
  read: z.number(),
  ingest: z.number(),
  concurrency: z.number(),
}) satisfies z.ZodType<OrgLimits>;
const org = z.object({ id: z.string(), tier: z.enum(TIER_NAMES), name: z.string(), limits });
const env = z.enum(['test', 'live']);
const createdKey = z.object({
  id: z.string(),
  key: z.string(),
  redacted: z.string(),
  scopes: z.array(z.enum(SCOPE_NAMES)),
  env,
});
const revocation = z.object({
  id: z.string(),
  /** Epoch ms of the revoke call. */
  revokedAt: z.number(),
  /** Per edge (`edge-<i>`, as X-Edge-Node names it): epoch ms from which it rejects the key. */
  edges: z.array(z.object({ edge: z.string(), effectiveAt: z.number() })),
});
const keySummary = z.object({
  id: z.string(),
  redacted: z.string(),
  scopes: z.array(z.enum(SCOPE_NAMES)),
  env,
  createdAt: z.number(),
  revokedAt: z.number().nullable(),
});
const orgList = z.object({ orgs: z.array(org.extend({ keys: z.array(keySummary) })) });
/** An organization's jobs and webhook subscriptions, as tests compare them before and after a run. */
const orgData = z.object({
  jobs: z.array(
    z.object({ id: z.string(), title: z.string(), status: z.string(), updated_at: z.string().optional() }).loose(),
  ),
  webhooks: z.array(z.object({ id: z.string(), url: z.string() }).loose()),
  candidates: z.array(z.object({ id: z.string(), name: z.string() }).loose()),
});
const candidate = z.object({ id: z.string(), name: z.string() }).loose();

export type AdminOrg = z.infer<typeof org>;
/** The only object that holds a full key: keep it in memory, show `redacted`. */
export type AdminCreatedKey = z.infer<typeof createdKey>;
export type AdminRevocation = z.infer<typeof revocation>;
export type AdminKeySummary = z.infer<typeof keySummary>;
export type AdminOrgListing = z.infer<typeof orgList>['orgs'][number];

/** A non-2xx answer (or an unexpected body) from the admin API. */
export class AdminApiError extends Error {
  readonly status: number;
  readonly code: string | null;
  constructor(message: string, status: number, code: string | null) {
    super(message);
    this.name = 'AdminApiError';
    this.status = status;
    this.code = code;
  }
}

const errorBody = z.object({ code: z.string().optional(), message: z.string().optional() }).loose();

export class AdminClient {
  readonly #base: string;

  constructor(adminUrl: string) {
    this.#base = adminUrl.replace(/\/+$/, '');
  }

  async #call<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const what = `admin API ${method} ${path}`;
    const res = await request(`${this.#base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    let json: unknown = null;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      // Reported below with the status.
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const err = errorBody.safeParse(json);
      const message = err.success && err.data.message ? err.data.message : text.slice(0, 200) || '(no body)';
      throw new AdminApiError(
        `${what} answered ${res.statusCode}: ${message}`,
        res.statusCode,
        err.success ? (err.data.code ?? null) : null,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new AdminApiError(
        `${what} answered ${res.statusCode} with an unexpected body: ${parsed.error.issues[0]?.message ?? ''}`,
        res.statusCode,
        null,
      );
    }
    return parsed.data;
  }

  /** Custom limits apply where the tier's figure is a minimum (Enterprise). */
  createOrg(tier: TierName, name: string, orgLimits?: Partial<OrgLimits>): Promise<AdminOrg> {
    return this.#call('POST', '/admin/orgs', org, orgLimits ? { tier, name, limits: orgLimits } : { tier, name });
  }

  createKey(orgId: string, scopes: readonly ScopeName[], keyEnv: 'test' | 'live'): Promise<AdminCreatedKey> {
    return this.#call('POST', `/admin/orgs/${encodeURIComponent(orgId)}/keys`, createdKey, { scopes, env: keyEnv });
  }

  revokeKey(keyId: string): Promise<AdminRevocation> {
    return this.#call('POST', `/admin/keys/${encodeURIComponent(keyId)}/revoke`, revocation);
  }

  /** Opens a connection to the admin API for the next call to take (HEAD /, answered 404: it changes nothing). */
  warm(): Promise<void> {
    return openConnection(new URL(this.#base).origin);
  }

  async listOrgs(): Promise<readonly AdminOrgListing[]> {
    return (await this.#call('GET', '/admin/orgs', orgList)).orgs;
  }

  /** A candidate of the organization's own (name, transcripts, scorecards), as a customer's would be. */
  createCandidate(orgId: string, name: string): Promise<z.infer<typeof candidate>> {
    return this.#call('POST', `/admin/orgs/${encodeURIComponent(orgId)}/candidates`, candidate, { name });
  }

  orgData(orgId: string): Promise<z.infer<typeof orgData>> {
    return this.#call('GET', `/admin/orgs/${encodeURIComponent(orgId)}/data`, orgData);
  }
}
