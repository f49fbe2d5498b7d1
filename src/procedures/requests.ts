/** A valid request for each endpoint of §4: what a well-behaved client would send. */
import { randomBytes } from 'node:crypto';
import type { Endpoint } from '../contract/types.ts';
import { resolvePath } from '../contract/lookup.ts';
import type { ProbeRequest } from '../measure/http-prober.ts';

const SAMPLE_RESUME = 'Jane Doe\nSenior Backend Engineer\nSkills: TypeScript, Node.js, PostgreSQL, Kubernetes\n';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * The id a run names a single job or candidate by: made up for the run, so that it cannot name a real
 * one. A read answers 404 (past the scope check, which is all SCOPE-ENFORCED asks), and an update
 * changes nothing the run did not create.
 */
export const ABSENT_ID = `tiergate-absent-${randomBytes(6).toString('hex')}`;

export function requestFor(endpoint: Endpoint, key: string | null, bulkResumes = 1): ProbeRequest {
  const path = resolvePath(endpoint.path, ABSENT_ID);
  const base = { method: endpoint.method, path, key } as const;
  switch (endpoint.id) {
    case 'resume-analysis':
      return { ...base, headers: { 'content-type': 'text/plain' }, body: SAMPLE_RESUME };
    case 'resume-analysis-bulk':
      return { ...base, headers: JSON_HEADERS, body: bulkBody(bulkResumes) };
    case 'jobs-create':
      return { ...base, headers: JSON_HEADERS, body: JSON.stringify({ title: 'tiergate scope check', stages: ['screen'] }) };
    case 'jobs-update':
      return { ...base, headers: JSON_HEADERS, body: JSON.stringify({ title: 'tiergate scope check (updated)' }) };
    case 'webhooks':
      return {
        ...base,
        headers: JSON_HEADERS,
        body: JSON.stringify({ url: 'https://example.invalid/tiergate', events: ['candidate.scored'] }),
      };
    default:
      return base;
  }
}

function bulkBody(count: number): string {
  const content = Buffer.from(SAMPLE_RESUME).toString('base64');
  const resumes = Array.from({ length: count }, (_, i) => ({ name: `tiergate-resume-${i + 1}.txt`, content_base64: content }));
  return JSON.stringify({ resumes });
}

/**
 * A request that passes an endpoint's scope check and that the server cannot act on: reads as they
 * are; writes and uploads with a body nobody can parse (malformed JSON, an empty file). A server
 * answers it 400 (or 404, 422) after its scope check, having created nothing.
 */
export function inertRequest(endpoint: Endpoint, key: string | null): ProbeRequest {
  const request = requestFor(endpoint, key);
  if (request.body === undefined) return request;
  return { ...request, body: request.headers?.['content-type'] === 'application/json' ? '{' : '' };
}

/**
 * A write the run owns, named by its run id so it can be told apart: a job created (its answer kept,
 * for its id), the update of that job (`jobId`; a made-up one where the create named none), a webhook
 * subscription. Other endpoints: as `requestFor`.
 */
export function ownedWrite(endpoint: Endpoint, key: string | null, runId: string, jobId: string | null): ProbeRequest {
  const request = requestFor(endpoint, key);
  switch (endpoint.id) {
    case 'jobs-create':
      return { ...request, body: JSON.stringify({ title: `tiergate ${runId}`, stages: ['screen'] }), keepAnswer: true };
    case 'jobs-update':
      return { ...request, path: resolvePath(endpoint.path, jobId ?? ABSENT_ID), body: JSON.stringify({ title: `tiergate ${runId} (updated)` }) };
    case 'webhooks':
      return { ...request, body: JSON.stringify({ url: webhookUrl(runId), events: ['candidate.scored'] }), keepAnswer: true };
    default:
      return request;
  }
}

/** Where the run's webhook subscription points: an address that cannot receive, named by the run. */
export const webhookUrl = (runId: string) => `https://example.invalid/tiergate/${runId}`;

/** The archive of a job the run created (§4: PUT /recruiter/jobs/:id updates or archives). */
export function archiveRequest(endpoint: Endpoint, key: string, jobId: string): ProbeRequest {
  return { method: endpoint.method, path: resolvePath(endpoint.path, jobId), key, headers: JSON_HEADERS, body: JSON.stringify({ status: 'archived' }) };
}

/** The id in a create's answer: `{data: {id}}` or `{id}`, as a string; null where there is none. */
export function createdId(body: unknown): string | null {
  const record = body as { id?: unknown; data?: { id?: unknown } } | null;
  const id = record?.data?.id ?? record?.id;
  return typeof id === 'string' && id !== '' ? id : typeof id === 'number' ? String(id) : null;
}
