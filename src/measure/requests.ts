/** A valid request for each endpoint of §4: what a well-behaved client would send. */
import { randomBytes } from 'node:crypto';
import type { Endpoint } from '../contract/types.ts';
import { resolvePath } from '../contract/lookup.ts';
import type { ProbeRequest } from './http-prober.ts';

/** A made-up resume whose candidate is named by the run, so that whatever the parser keeps of it can be told apart. */
const sampleResume = (runId: string) =>
  `tiergate ${runId}\nSample Resume\nSkills: TypeScript, Node.js, PostgreSQL, Kubernetes\n`;

/** What names an upload: the run it came from (its resumes say tiergate and the run id), and for a bulk upload how many resumes. */
export interface UploadNaming {
  readonly runId: string;
  readonly resumes?: number;
}

/** Where a caller names no run (a read, a request that never reaches a parser): still plainly tiergate's. */
const UNNAMED: UploadNaming = { runId: 'run' };

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/**
 * The id a run names a single job or candidate by: made up for the run, so that it cannot name a real
 * one. A read answers 404 (past the scope check, which is all SCOPE-ENFORCED asks), and an update
 * changes nothing the run did not create.
 */
export const ABSENT_ID = `tiergate-absent-${randomBytes(6).toString('hex')}`;

export function requestFor(endpoint: Endpoint, key: string | null, upload: UploadNaming = UNNAMED): ProbeRequest {
  const path = resolvePath(endpoint.path, ABSENT_ID);
  const base = { method: endpoint.method, path, key } as const;
  switch (endpoint.id) {
    case 'resume-analysis':
      return {
        ...base,
        headers: {
          'content-type': 'text/plain',
          'content-disposition': `attachment; filename="tiergate-${upload.runId}-resume.txt"`,
        },
        body: sampleResume(upload.runId),
        resumes: 1,
      };
    case 'resume-analysis-bulk': {
      const resumes = upload.resumes ?? 1;
      return { ...base, headers: JSON_HEADERS, body: bulkBody(upload.runId, resumes), resumes };
    }
    case 'jobs-create':
      return {
        ...base,
        headers: JSON_HEADERS,
        body: JSON.stringify({ title: 'tiergate scope check', stages: ['screen'] }),
      };
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

function bulkBody(runId: string, count: number): string {
  const content = Buffer.from(sampleResume(runId)).toString('base64');
  const resumes = Array.from({ length: count }, (_, i) => ({
    name: `tiergate-${runId}-resume-${i + 1}.txt`,
    content_base64: content,
  }));
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
  const body = request.headers?.['content-type'] === 'application/json' ? '{' : '';
  return { ...request, body, ...(request.resumes === undefined ? {} : { resumes: 0 }) };
}

/**
 * A write the run owns, named by its run id so it can be told apart: a job created (its answer kept,
 * for its id), the update of that job (`jobId`; a made-up one where the create named none), a webhook
 * subscription. Other endpoints: as `requestFor`.
 */
export function ownedWrite(endpoint: Endpoint, key: string | null, runId: string, jobId: string | null): ProbeRequest {
  const request = requestFor(endpoint, key, { runId });
  switch (endpoint.id) {
    case 'jobs-create':
      return { ...request, body: JSON.stringify({ title: `tiergate ${runId}`, stages: ['screen'] }), keepAnswer: true };
    case 'jobs-update':
      return {
        ...request,
        path: resolvePath(endpoint.path, jobId ?? ABSENT_ID),
        body: JSON.stringify({ title: `tiergate ${runId} (updated)` }),
      };
    case 'webhooks':
      return {
        ...request,
        body: JSON.stringify({ url: webhookUrl(runId), events: ['candidate.scored'] }),
        keepAnswer: true,
      };
    default:
      return request;
  }
}

/** Where the run's webhook subscription points: an address that cannot receive, named by the run. */
export const webhookUrl = (runId: string) => `https://example.invalid/tiergate/${runId}`;

/** The archive of a job the run created (§4: PUT /recruiter/jobs/:id updates or archives). */
export function archiveRequest(endpoint: Endpoint, key: string, jobId: string): ProbeRequest {
  return {
    method: endpoint.method,
    path: resolvePath(endpoint.path, jobId),
    key,
    headers: JSON_HEADERS,
    body: JSON.stringify({ status: 'archived' }),
  };
}

/** The id in a create's answer: `{data: {id}}` or `{id}`, as a string; null where there is none. */
export function createdId(body: unknown): string | null {
  const record = body as { id?: unknown; data?: { id?: unknown } } | null;
  const id = record?.data?.id ?? record?.id;
  return typeof id === 'string' && id !== '' ? id : typeof id === 'number' ? String(id) : null;
}
