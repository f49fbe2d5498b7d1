/** What the run sends: uploads named by the run, ids that cannot name a customer's record, bodies refused after the scope check. */
import { describe, expect, it } from 'vitest';
import { endpointById } from '../../src/contract/lookup.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { ABSENT_ID, inertRequest, ownedWrite, requestFor } from '../../src/measure/requests.ts';

const endpoint = (id: Parameters<typeof endpointById>[1]) => endpointById(recruitingApi, id);

describe('requestFor', () => {
  it('a single upload: its file name and its candidate say tiergate and the run id; it carries one resume', () => {
    const request = requestFor(endpoint('resume-analysis'), 'k', { runId: '20261126-230151-894b' });
    expect(request.headers?.['content-disposition']).toBe(
      'attachment; filename="tiergate-20261126-230151-894b-resume.txt"',
    );
    expect(String(request.body).split('\n')[0]).toBe('tiergate 20261126-230151-894b');
    expect(request.resumes).toBe(1);
  });

  it('a bulk upload: each resume named by the run, and the count recorded', () => {
    const request = requestFor(endpoint('resume-analysis-bulk'), 'k', { runId: 'r1', resumes: 3 });
    const body = JSON.parse(String(request.body)) as { resumes: { name: string; content_base64: string }[] };
    expect(body.resumes.map((r) => r.name)).toEqual([
      'tiergate-r1-resume-1.txt',
      'tiergate-r1-resume-2.txt',
      'tiergate-r1-resume-3.txt',
    ]);
    expect(Buffer.from(body.resumes[0]!.content_base64, 'base64').toString('utf8')).toMatch(/^tiergate r1\n/);
    expect(request.resumes).toBe(3);
  });

  it('a single resource is named by an id made up for the run', () => {
    expect(requestFor(endpoint('candidate-read'), 'k').path).toBe(`/recruiter/candidates/${ABSENT_ID}`);
    expect(ABSENT_ID).toMatch(/^tiergate-absent-[0-9a-f]{12}$/);
  });

  it('reads carry no resume count', () => {
    expect(requestFor(endpoint('jobs-list'), 'k').resumes).toBeUndefined();
  });
});

describe('inertRequest and ownedWrite', () => {
  it('an inert upload carries no resume', () => {
    expect(inertRequest(endpoint('resume-analysis-bulk'), 'k')).toMatchObject({ body: '{', resumes: 0 });
    expect(inertRequest(endpoint('resume-analysis'), 'k')).toMatchObject({ body: '', resumes: 0 });
  });

  it("an owned upload is named by the run; an update goes to the run's own job", () => {
    expect(String(ownedWrite(endpoint('resume-analysis'), 'k', 'r2', null).body)).toMatch(/^tiergate r2\n/);
    expect(ownedWrite(endpoint('jobs-update'), 'k', 'r2', 'job_9').path).toBe('/recruiter/jobs/job_9');
  });
});
