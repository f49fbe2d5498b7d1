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
