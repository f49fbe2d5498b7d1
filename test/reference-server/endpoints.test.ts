/** §4 endpoints and §5.6 scopes over real loopback HTTP: payloads, uploads, and 403 without the scope. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scopeListBody, genericErrorBody } from '../../src/contract/error-body.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { SCOPE_NAMES, type Endpoint, type EndpointId } from '../../src/contract/types.ts';
import { call, multipart, orgWithKey, useTarget, type CallOptions } from '../helpers/target.ts';

const target = useTarget({ windowMs: 60_000 });
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/resumes/${name}`, import.meta.url));
const TXT = fixture('jane-doe.txt');
const PDF = fixture('jane-doe.pdf');
const DOCX = fixture('jane-doe.docx');
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const json = (value: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

/** A valid call to each endpoint: what a well-behaved client sends. */
const VALID: Record<EndpointId, { path: string; expect: number } & CallOptions> = {
  'scope-list': { path: '/recruiter/settings/services-api-scopes', expect: 200 },
  'bootstrap-head': { path: '/recruiter/bootstrap', method: 'HEAD', expect: 200 },
  'bootstrap-get': { path: '/recruiter/bootstrap', expect: 200 },
  'resume-analysis': {
    path: '/recruiter/jobs/vendor/resume-analysis',
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: TXT,
    expect: 200,
  },
  'resume-analysis-bulk': {
    path: '/recruiter/jobs/vendor/resume-analysis/bulk',
    method: 'POST',
    ...json({ resumes: [{ name: 'a.txt', content_base64: TXT.toString('base64') }] }),
    expect: 202,
  },
  'jobs-list': { path: '/recruiter/jobs', expect: 200 },
  'jobs-create': {
    path: '/recruiter/jobs/create',
    method: 'POST',
    ...json({ title: 'Platform Engineer' }),
    expect: 201,
  },
  'jobs-update': { path: '/recruiter/jobs/demo-2', method: 'PUT', ...json({ status: 'active' }), expect: 200 },
  'candidate-read': { path: '/recruiter/candidates/demo-1', expect: 200 },
  webhooks: { path: '/recruiter/webhooks', method: 'POST', ...json({ action: 'inspect' }), expect: 200 },
};

const scoped = recruitingApi.endpoints.filter(
  (e): e is Endpoint & { scope: NonNullable<Endpoint['scope']> } => e.scope !== null,
);

describe('scope enforcement (§4, §5.6)', () => {
  it.each(scoped.map((e) => [e.id, e.scope] as const))(
    '%s is admitted with %s and refused 403 without it',
    async (id, scope) => {
      const { admin, edge } = target();
      const { path, expect: status, ...options } = VALID[id];
      const only = await orgWithKey(admin, 'starter', [scope]);
      const admitted = await call(edge(), path, { ...options, key: only.key });
      expect(admitted.status).toBe(status);

      const others = await orgWithKey(
        admin,
        'starter',
        SCOPE_NAMES.filter((s) => s !== scope),
      );
      const refused = await call(edge(), path, { ...options, key: others.key });
      expect(refused.status).toBe(403);
      expect(genericErrorBody.parse(refused.json)).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: scope });
    },
  );

  it.each(['scope-list', 'bootstrap-get', 'bootstrap-head'] as const)(
    '%s needs a valid key but no scope',
    async (id) => {
      const { admin, edge } = target();
      const { path, expect: status, ...options } = VALID[id];
      const none = await orgWithKey(admin, 'starter', []);
      expect((await call(edge(), path, { ...options, key: none.key })).status).toBe(status);
    },
  );
});

describe('payloads', () => {
  it('lists exactly the seven scopes with descriptions, as §2 and §4 describe', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'professional', []);
    const res = await call(edge(), '/recruiter/settings/services-api-scopes', { key });
    const body = scopeListBody.parse(res.json);
    expect(body.data.map((d) => d.scope)).toEqual([...SCOPE_NAMES]);
    expect(body.data.every((d) => d.description.length > 0)).toBe(true);
    expect(Object.keys(res.json).sort()).toEqual(['data', 'status']);
  });

  it('HEAD /recruiter/bootstrap answers headers and no body; GET describes the org and key', async () => {
    const { admin, edge } = target();
    const { key, orgId, keyId } = await orgWithKey(admin, 'starter', ['jobs.read']);
    const head = await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key });
    expect(head.text).toBe('');
    expect(head.limit).toBe(60);
    const get = await call(edge(), '/recruiter/bootstrap', { key });
    expect(get.json.data).toMatchObject({
      organization: { id: orgId, tier: 'starter' },
      key: { id: keyId, scopes: ['jobs.read'] },
      edge: 'edge-0',
    });
    expect(get.text).not.toContain(key);
  });

  it('creates, lists, updates and archives jobs; unknown ids are 404', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter');
    const listed = await call(edge(), '/recruiter/jobs', { key });
    expect(listed.json.data[0]).toMatchObject({ id: 'demo-1', stages: expect.any(Array), criteria: expect.any(Array) });

    const created = await call(edge(), '/recruiter/jobs/create', {
      method: 'POST',
      key,
      ...json({ title: 'SRE', stages: ['screen', 'onsite'], criteria: [{ name: 'On-call', weight: 1 }] }),
    });
    expect(created.status).toBe(201);
    const job = created.json.data;
    expect(job).toMatchObject({ title: 'SRE', status: 'draft', stages: [{ name: 'screen' }, { name: 'onsite' }] });

    const archived = await call(edge(), `/recruiter/jobs/${job.id}`, {
      method: 'PUT',
      key,
      ...json({ status: 'archived' }),
    });
    expect(archived.json.data).toMatchObject({ id: job.id, status: 'archived' });
    const after = await call(edge(), '/recruiter/jobs', { key });
    expect(after.json.data.find((j: { id: string }) => j.id === job.id).status).toBe('archived');

    expect(
      (await call(edge(), '/recruiter/jobs/nope', { method: 'PUT', key, ...json({ status: 'active' }) })).status,
    ).toBe(404);
    const invalid = await call(edge(), '/recruiter/jobs/create', { method: 'POST', key, ...json({ title: '' }) });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('keeps each organization’s jobs apart', async () => {
    const { admin, edge } = target();
    const a = await orgWithKey(admin, 'starter');
    const b = await orgWithKey(admin, 'starter');
    await call(edge(), '/recruiter/jobs/create', { method: 'POST', key: a.key, ...json({ title: 'Only in A' }) });
    const seenByB = await call(edge(), '/recruiter/jobs', { key: b.key });
    expect(seenByB.json.data.some((j: { title: string }) => j.title === 'Only in A')).toBe(false);
  });

  it('reads a candidate with transcripts and scorecards', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter', ['candidate.read']);
    const res = await call(edge(), '/recruiter/candidates/demo-1', { key });
    expect(res.json.data).toMatchObject({
      id: 'demo-1',
      transcripts: [expect.any(Object)],
      scorecards: [expect.any(Object)],
    });
    expect((await call(edge(), '/recruiter/candidates/nobody', { key })).status).toBe(404);
  });

  it('subscribes, updates and inspects webhooks', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter', ['webhook.manage']);
    const sub = await call(edge(), '/recruiter/webhooks', {
      method: 'POST',
      key,
      ...json({ url: 'https://example.invalid/h', events: ['candidate.scored'] }),
    });
    expect(sub.status).toBe(201);
    const upd = await call(edge(), '/recruiter/webhooks', {
      method: 'POST',
      key,
      ...json({ id: sub.json.data.id, active: false }),
    });
    expect(upd.json.data).toMatchObject({ id: sub.json.data.id, active: false });
    const list = await call(edge(), '/recruiter/webhooks', { method: 'POST', key });
    expect(list.json.data).toHaveLength(1);
  });
});

describe('resume uploads', () => {
  const files = [
    ['jane-doe.txt', 'text/plain', TXT, 'text'],
    ['jane-doe.pdf', 'application/pdf', PDF, 'pdf'],
    ['jane-doe.docx', DOCX_TYPE, DOCX, 'docx'],
  ] as const;

  it.each(files)('analyses %s sent raw and as multipart', async (name, type, content, format) => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter', ['resume.parse']);
    const path = '/recruiter/jobs/vendor/resume-analysis';
    const raw = await call(edge(), path, {
      method: 'POST',
      key,
      headers: { 'content-type': type, 'content-disposition': `attachment; filename="${name}"` },
      body: content,
    });
    expect(raw.status).toBe(200);
    expect(raw.json.data).toMatchObject({
      file: { name, format, bytes: content.length },
      skills: expect.arrayContaining(['TypeScript']),
    });
    const form = multipart([{ field: 'file', name, type, content }]);
    const multi = await call(edge(), path, {
      method: 'POST',
      key,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(multi.status).toBe(200);
    expect(multi.json.data.file).toMatchObject({ name, format, content_type: type });
    expect(multi.json.data.score).toBe(raw.json.data.score);
  });

  it('refuses an unsupported type (415), an empty body and a form without a file part (400)', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter', ['resume.parse']);
    const path = '/recruiter/jobs/vendor/resume-analysis';
    expect(
      (await call(edge(), path, { method: 'POST', key, headers: { 'content-type': 'image/png' }, body: 'x' })).status,
    ).toBe(415);
    expect(
      (await call(edge(), path, { method: 'POST', key, headers: { 'content-type': 'text/plain' }, body: '' })).status,
    ).toBe(400);
    const form = multipart([{ field: 'other', name: 'a.txt', type: 'text/plain', content: TXT }]);
    const noFile = await call(edge(), path, {
      method: 'POST',
      key,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(noFile.status).toBe(400);
    expect(noFile.json).toMatchObject({ status: 'error', code: 'INVALID_UPLOAD' });
  });

  it('queues a bulk batch: 202 with a batch id and the per-resume count (multipart and JSON)', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'professional', ['resume.parse.bulk']);
    const path = '/recruiter/jobs/vendor/resume-analysis/bulk';
    const form = multipart(files.map(([name, type, content]) => ({ field: 'files', name, type, content })));
    const multi = await call(edge(), path, {
      method: 'POST',
      key,
      headers: { 'content-type': form.contentType },
      body: form.body,
    });
    expect(multi.status).toBe(202);
    expect(multi.json.data).toMatchObject({ batch_id: expect.stringMatching(/^batch_/), resumes: 3 });
    expect(multi.remaining).toBe(60 - 3);

    const resumes = files.map(([name, , content]) => ({ name, content_base64: content.toString('base64') }));
    const viaJson = await call(edge(), path, { method: 'POST', key, ...json({ resumes }) });
    expect(viaJson.status).toBe(202);
    expect(viaJson.json.data.resumes).toBe(3);
    expect(viaJson.json.data.batch_id).not.toBe(multi.json.data.batch_id);
    expect(viaJson.remaining).toBe(60 - 6);
  });
});
