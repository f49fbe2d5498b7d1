/** The check catalogue (README "The checks"): stable IDs, the spec section each enforces, and its requirement. */
import type { CheckDefinition, CheckId } from './types.ts';

const definitions: readonly CheckDefinition[] = [
  {
    id: 'AUTH-MISSING',
    asserts: 'no key: 401 (assumed)',
    title: 'Missing key rejected',
    spec: '§5.1',
    requirement: 'A request without an X-API-Key header is rejected.',
    assumptions: ['auth-status'],
  },
  {
    id: 'AUTH-MALFORMED',
    asserts: 'a malformed key: 401 (assumed)',
    title: 'Malformed key rejected',
    spec: '§5.3',
    requirement: 'A request whose key does not match the key format is rejected.',
    assumptions: ['auth-status'],
  },
  {
    id: 'AUTH-UNKNOWN',
    asserts: 'a well-formed key never issued: 401 (assumed)',
    title: 'Unknown key rejected',
    spec: '§5.1, §5.3',
    requirement: 'A well-formed key that was never issued is rejected.',
    assumptions: ['auth-status'],
  },
  {
    id: 'AUTH-REVOKED',
    asserts: 'a revoked key: 401 (assumed), on every edge',
    title: 'Revoked key rejected',
    spec: '§5.9',
    requirement: 'A revoked key is rejected on every edge.',
    assumptions: ['auth-status'],
  },
  {
    id: 'AUTH-KEY-FORMAT',
    asserts: 'every key used is `xh_live_`/`xh_test_` + 32 alphanumerics',
    title: 'Keys match the published format',
    spec: '§5.3',
    requirement: 'Every key is xh_live_ or xh_test_ followed by 32 alphanumeric characters.',
    assumptions: [],
  },
  {
    id: 'SCOPE-LIST',
    asserts: '`{status:"success", data:[{scope, description}]}`, names within the seven',
    title: 'Scope listing',
    spec: '§2, §4, §5.7',
    requirement:
      'GET /recruiter/settings/services-api-scopes returns {status:"success", data:[{scope, description}]} naming only the seven scopes.',
    assumptions: ['bootstrap-any-scope'],
  },
  {
    id: 'SCOPE-ENFORCED',
    asserts: 'every scoped endpoint: 403 (assumed) without its scope, admitted with it',
    title: 'Scopes enforced per endpoint',
    spec: '§4, §5.6',
    requirement: 'Each endpoint rejects a key lacking its scope and admits a key holding it.',
    assumptions: ['scope-status'],
  },
  {
    id: 'HDR-PRESENT',
    asserts: 'the three X-RateLimit headers on every response the run received',
    title: 'Rate-limit headers on every response',
    spec: '§8',
    requirement:
      'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset are present on every HTTP response, errors and HEAD included.',
    assumptions: [],
  },
  {
    id: 'HDR-LIMIT',
    asserts:
      "Limit = the tier's quota for the endpoint's class (Enterprise: at least; a figure declared in the config: exactly)",
    title: 'Limit header equals the tier quota',
    spec: '§8',
    requirement:
      "X-RateLimit-Limit equals the tier's quota for the endpoint's class (Enterprise: at least the published figure), or exactly the organization's own figure where the config declares one.",
    assumptions: ['quota-classes', 'limit-header-class'],
  },
  {
    id: 'HDR-REMAINING',
    asserts: 'decrements by exactly one, never negative, 0 on 429',
    title: 'Remaining decrements by one',
    spec: '§8',
    requirement:
      'X-RateLimit-Remaining decrements by exactly one per counted request, is never negative, and is 0 on a 429.',
    assumptions: ['counted-requests'],
  },
  {
    id: 'HDR-RESET',
    asserts: 'epoch seconds, in (Date, Date + window], constant within a window',
    title: 'Reset is a Unix epoch',
    spec: '§8',
    requirement:
      'X-RateLimit-Reset is Unix epoch seconds (not a delta, not milliseconds), in (now, now + window], constant within a window, changing only once the reset it announced has come.',
    assumptions: [],
  },
  {
    id: 'QUOTA-READ',
    asserts: 'exactly Limit reads admitted, the next 429: sequential, and as a burst of 2 × Limit',
    title: 'Read quota is exact',
    spec: '§7.1, §8',
    requirement: 'Exactly Limit read requests succeed in a window and the next is rejected with 429.',
    assumptions: ['quota-classes', 'counted-requests'],
  },
  {
    id: 'QUOTA-INGEST',
    asserts: 'likewise for resume uploads: single, and bulk counted per resume',
    title: 'Ingest quota is exact',
    spec: '§8',
    requirement: 'Exactly Limit resumes are ingested in a window and the next is rejected with 429.',
    assumptions: ['quota-classes', 'bulk-counts-per-resume', 'counted-requests'],
  },
  {
    id: 'CONCURRENCY-CAP',
    asserts:
      'the cap in flight admitted; one more not served beside them: refused (429 assumed), or held until one finishes',
    title: 'Concurrency cap',
    spec: '§8',
    requirement:
      'With the cap of requests in flight, one more is not served beside them: refused (429 assumed), or held until one of them finishes; the cap itself is admitted.',
    assumptions: ['concurrency-status'],
  },
  {
    id: 'ERR-429-BODY',
    asserts: '`status`, `code: RATE_LIMIT_EXCEEDED`, `message`, integer `retry_after_seconds`',
    title: '429 body',
    spec: '§2, §7',
    requirement:
      'A 429 body has status "error", code "RATE_LIMIT_EXCEEDED", a string message and an integer retry_after_seconds.',
    assumptions: [],
  },
  {
    id: 'RETRY-AFTER',
    asserts: 'header = body, agrees with Reset, and waiting it out succeeds',
    title: 'Retry-After is truthful',
    spec: '§7',
    requirement:
      'Retry-After is an integer equal to retry_after_seconds, agrees with X-RateLimit-Reset, and waiting it out succeeds.',
    assumptions: [],
  },
  {
    id: 'ORG-SHARED',
    asserts: 'keys of one organization share its quota',
    title: "Keys share their organization's quota",
    spec: '§1, §8',
    requirement: 'Two keys of one organization draw on one quota.',
    assumptions: ['counted-requests'],
  },
  {
    id: 'ORG-ISOLATED',
    asserts: 'another organization of the tier is untouched by one that used up its quota',
    title: 'Organizations are isolated',
    spec: '§1, §8',
    requirement: "Exhausting one organization's quota leaves another organization of the same tier untouched.",
    assumptions: [],
  },
  {
    id: 'HEAD-BOOTSTRAP',
    asserts: 'HEAD /recruiter/bootstrap: headers, no body, no quota used',
    title: 'HEAD /recruiter/bootstrap',
    spec: '§4',
    requirement:
      'HEAD /recruiter/bootstrap returns a status and the rate-limit headers, and no body; by assumption it consumes no read request.',
    assumptions: ['head-bootstrap-free'],
  },
  {
    id: 'REVOKE-LATENCY',
    asserts: 'every edge rejects a revoked key within 3 s (bounds per edge per trial)',
    title: 'Revocation reaches every edge in under 3 s',
    spec: '§5.9, §8.3',
    requirement: 'After revocation every edge rejects the key within 3 s.',
    assumptions: ['auth-status'],
  },
  {
    id: 'REVOKE-STICKY',
    asserts: 'once rejected, never admitted again by any edge',
    title: 'Revocation is permanent',
    spec: '§5.9',
    requirement: 'Once an edge rejects a revoked key, no edge admits it again.',
    assumptions: ['auth-status'],
  },
  {
    id: 'ROTATION',
    asserts: 'a new key works before the old is revoked and after, on every edge',
    title: 'Key rotation',
    spec: '§5.8',
    requirement: 'A new key works before the old one is revoked, and keeps working after, on every edge.',
    assumptions: [],
  },
  {
    id: 'LOAD-THRESHOLDS',
    asserts: 'sustained load at 1× and 2× quota: per window admitted ≤ Limit, k6-style thresholds',
    title: 'Thresholds under sustained load',
    spec: '§8',
    requirement:
      'Under sustained load at and above quota, admitted requests never exceed Limit per window and latency/error thresholds hold.',
    assumptions: ['fixed-windows'],
  },
];

export const catalogue: ReadonlyMap<CheckId, CheckDefinition> = new Map(definitions.map((d) => [d.id, d]));

export function checkDefinition(id: CheckId): CheckDefinition {
  const definition = catalogue.get(id);
  if (!definition) throw new Error(`no check ${id} in the catalogue`);
  return definition;
}

export function allChecks(): readonly CheckDefinition[] {
  return definitions;
}
