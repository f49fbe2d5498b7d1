/** A valid request for each endpoint of §4: what a well-behaved client would send. */
import type { Endpoint } from '../contract/types.ts';
import { resolvePath } from '../contract/lookup.ts';
import type { ProbeRequest } from '../measure/http-prober.ts';

const SAMPLE_RESUME = 'Jane Doe\nSenior Backend Engineer\nSkills: TypeScript, Node.js, PostgreSQL, Kubernetes\n';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export function requestFor(endpoint: Endpoint, key: string | null, bulkResumes = 1): ProbeRequest {
  const path = resolvePath(endpoint.path, endpoint.id === 'candidate-read' ? 'cand-1' : 'job-1');
  const base = { method: endpoint.method, path, key } as const;
  switch (endpoint.id) {
    case 'resume-analysis':
      return { ...base, headers: { 'content-type': 'text/plain' }, body: SAMPLE_RESUME };
    case 'resume-analysis-bulk':
      return { ...base, headers: JSON_HEADERS, body: bulkBody(bulkResumes) };
    case 'jobs-create':
      return { ...base, headers: JSON_HEADERS, body: JSON.stringify({ title: 'Backend Engineer', stages: ['screen'] }) };
    case 'jobs-update':
      return { ...base, headers: JSON_HEADERS, body: JSON.stringify({ title: 'Backend Engineer II' }) };
    case 'webhooks':
      return {
        ...base,
        headers: JSON_HEADERS,
        body: JSON.stringify({ url: 'https://example.invalid/hooks', events: ['candidate.scored'] }),
      };
    default:
      return base;
  }
}

function bulkBody(count: number): string {
  const content = Buffer.from(SAMPLE_RESUME).toString('base64');
  const resumes = Array.from({ length: count }, (_, i) => ({ name: `resume-${i + 1}.txt`, content_base64: content }));
  return JSON.stringify({ resumes });
}
