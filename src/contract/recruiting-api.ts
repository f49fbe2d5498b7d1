/**
 * The recruiting API (shared/spec/recruiting-api.md) as the default contract.
 * Section numbers in `spec` fields refer to that document.
 */
import {
  TOO_MANY_REQUESTS,
  type Assumption,
  type Contract,
  type Endpoint,
  type ScopeEntry,
  type TierLimits,
} from './types.ts';

const exact = (value: number) => ({ value, atLeast: false }) as const;
const atLeast = (value: number) => ({ value, atLeast: true }) as const;

// §8 Limits
const tiers: Contract['tiers'] = {
  starter: { name: 'starter', label: 'Starter', read: exact(60), ingest: exact(10), concurrency: exact(5) },
  professional: {
    name: 'professional',
    label: 'Professional',
    read: exact(300),
    ingest: exact(60),
    concurrency: exact(25),
  },
  enterprise: {
    name: 'enterprise',
    label: 'Enterprise / Custom',
    read: atLeast(2500),
    ingest: atLeast(500),
    concurrency: atLeast(100),
  },
} satisfies Record<string, TierLimits>;

// §5.6 Scopes
const scopes: readonly ScopeEntry[] = [
  { scope: 'resume.parse', description: 'Upload single resume files for AI parsing and scoring' },
  { scope: 'resume.parse.bulk', description: 'Asynchronous batch resume parsing' },
  { scope: 'jobs.read', description: 'View jobs, stages and criteria' },
  { scope: 'jobs.create', description: 'Create job openings and criteria' },
  { scope: 'jobs.manage', description: 'Update or archive job configurations' },
  { scope: 'candidate.read', description: 'Access candidate interview transcripts and scorecards' },
  { scope: 'webhook.manage', description: 'Subscribe, update or inspect event webhooks' },
];

// §4 Endpoints
const endpoints: readonly Endpoint[] = [
  {
    id: 'scope-list',
    method: 'GET',
    path: '/recruiter/settings/services-api-scopes',
    scope: null,
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §5.7',
    summary: 'Scopes the organization may grant',
  },
  {
    id: 'bootstrap-head',
    method: 'HEAD',
    path: '/recruiter/bootstrap',
    scope: null,
    quotaClass: null,
    counts: 'none',
    spec: '§4',
    summary: 'Rate-limit inspection',
  },
  {
    id: 'bootstrap-get',
    method: 'GET',
    path: '/recruiter/bootstrap',
    scope: null,
    quotaClass: 'read',
    counts: 'request',
    spec: '§4',
    summary: 'Bootstrap read (GET-style read endpoint)',
  },
  {
    id: 'resume-analysis',
    method: 'POST',
    path: '/recruiter/jobs/vendor/resume-analysis',
    scope: 'resume.parse',
    quotaClass: 'ingest',
    counts: 'request',
    spec: '§4, §5.6',
    summary: 'Upload a single resume file for parsing and scoring',
  },
  {
    id: 'resume-analysis-bulk',
    method: 'POST',
    path: '/recruiter/jobs/vendor/resume-analysis/bulk',
    scope: 'resume.parse.bulk',
    quotaClass: 'ingest',
    counts: 'item',
    spec: '§4, §5.6',
    summary: 'Queue resumes for asynchronous batch parsing',
  },
  {
    id: 'jobs-list',
    method: 'GET',
    path: '/recruiter/jobs',
    scope: 'jobs.read',
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §5.6',
    summary: "View the organization's jobs, stages and criteria",
  },
  {
    id: 'jobs-create',
    method: 'POST',
    path: '/recruiter/jobs/create',
    scope: 'jobs.create',
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §5.6',
    summary: 'Create a job opening and its criteria',
  },
  {
    id: 'jobs-update',
    method: 'PUT',
    path: '/recruiter/jobs/:id',
    scope: 'jobs.manage',
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §5.6',
    summary: 'Update or archive an existing job configuration',
  },
  {
    id: 'candidate-read',
    method: 'GET',
    path: '/recruiter/candidates/:id',
    scope: 'candidate.read',
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §5.6',
    summary: "Read a candidate's interview transcripts and scorecards",
  },
  {
    id: 'webhooks',
    method: 'POST',
    path: '/recruiter/webhooks',
    scope: 'webhook.manage',
    quotaClass: 'read',
    counts: 'request',
    spec: '§4, §6',
    summary: 'Subscribe, update or inspect event webhooks',
  },
];

const assumptions: readonly Assumption[] = [
  {
    id: 'auth-status',
    statement: 'A missing, malformed, unknown or revoked key is rejected with 401 and a JSON error body.',
    gap: '§7: "Error formats and status codes for other conditions (missing, invalid or revoked key ...): not shown."',
  },
  {
    id: 'scope-status',
    statement: "A valid key lacking the endpoint's scope is rejected with 403 and a JSON error body.",
    gap: '§7: status codes for a missing scope: not shown.',
  },
  {
    id: 'concurrency-status',
    statement:
      'The cap counts every request of the organization in flight, on any endpoint; one beyond it is rejected at once with 429, the §7 body and Retry-After, and consumes no quota.',
    gap: '§8: "Behaviour when the concurrency cap is exceeded ...: not shown."',
  },
  {
    id: 'quota-classes',
    statement:
      'The two resume-analysis endpoints count against the ingest quota; every other endpoint counts against the read quota.',
    gap: '§8 names "read requests" and "resume parser ingest" without mapping endpoints to them.',
  },
  {
    id: 'bulk-counts-per-resume',
    statement:
      'A bulk upload counts one ingest unit per resume it carries, and is refused whole if they do not all fit.',
    gap: '§8: limits on batch size: not shown.',
  },
  {
    id: 'head-bootstrap-free',
    statement: 'HEAD /recruiter/bootstrap reports the read quota without consuming it.',
    gap: '§4 names it "rate-limit inspection" and gives no counting rule.',
  },
  {
    id: 'bootstrap-any-scope',
    statement: 'The bootstrap and scope-listing endpoints need a valid key but no particular scope.',
    gap: '§4 ties no scope to them.',
  },
  {
    id: 'fixed-windows',
    statement:
      'Quotas are fixed windows aligned to the server clock; X-RateLimit-Reset is the end of the current window.',
    gap: '§8 says "per minute" and "the current window" without naming the algorithm.',
  },
  {
    id: 'window-length',
    statement: 'The per-minute figures apply to a 60 s window (shortened only on test targets).',
    gap: '§8: "the window length for non-per-minute figures: not shown."',
  },
  {
    id: 'counted-requests',
    statement:
      'Only requests admitted past authentication, scope and the concurrency cap count; 401, 403 and 429 responses consume no quota.',
    gap: '§8 does not say which responses count.',
  },
  {
    id: 'limit-header-class',
    statement:
      'X-RateLimit-* on a response describe the quota class of the endpoint called (read or ingest); unauthenticated calls get a per-client anonymous read bucket.',
    gap: '§8: "Maximum requests permitted in the current window" without naming which quota.',
  },
];

const contract: Contract = {
  name: 'recruiting-api',
  version: '1',
  tiers,
  scopes,
  endpoints,
  headers: {
    apiKey: 'x-api-key',
    limit: 'x-ratelimit-limit',
    remaining: 'x-ratelimit-remaining',
    reset: 'x-ratelimit-reset',
    retryAfter: 'retry-after',
    edgeNode: 'x-edge-node',
  },
  keyFormats: [
    { env: 'live', prefix: 'xh_live_', pattern: /^[A-Za-z0-9]{32}$/ },
    { env: 'test', prefix: 'xh_test_', pattern: /^[A-Za-z0-9]{32}$/ },
  ],
  windowSeconds: 60,
  revocationSlaMs: 3000,
  statuses: {
    unauthenticated: 401,
    forbidden: 403,
    rateLimited: TOO_MANY_REQUESTS,
    concurrencyCapped: TOO_MANY_REQUESTS,
  },
  rateLimitErrorCode: 'RATE_LIMIT_EXCEEDED',
  assumptions,
};

export const recruitingApi: Contract = Object.freeze(contract);
