/**
 * §8 "Rate-limit headers are present on every HTTP response", and bad input answered with the right
 * status and a JSON error, never a crash. Every answer also names its edge and carries a Date. The
 * target runs on a ManualClock, so Date and Reset have exact expected values.
 */
import { describe, expect, it } from 'vitest';
import { genericErrorBody } from '../../src/contract/error-body.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { call, orgWithKey, raw, sequential, useTarget, type Answer } from '../helpers/target.ts';

const MAX_UPLOAD = 4096;
const W = 2000;
const clock = new ManualClock();
const target = useTarget({ windowMs: W, maxUploadBytes: MAX_UPLOAD, anonymousLimit: 500, clock });
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';

/** The rate-limit headers, X-Edge-Node, and Date from the server clock; Reset ends the clock's aligned window. */
function expectHeaders(a: Answer): void {
  expect(Number.isInteger(a.limit) && a.limit > 0).toBe(true);
  expect(Number.isInteger(a.remaining) && a.remaining >= 0).toBe(true);
  expect(a.reset).toBe((Math.floor(clock.now() / W) + 1) * (W / 1000));
  expect(a.headers['x-edge-node']).toBe('edge-0');
  expect(a.headers['date']).toBe(new Date(Math.floor(clock.now() / 1000) * 1000).toUTCString());
}

function expectJsonError(a: Answer, status: number, code: string): void {
  expect(a.status).toBe(status);
  expect(genericErrorBody.parse(a.json)).toMatchObject({ status: 'error', code });
  expect(a.headers['content-type']).toMatch(/^application\/json/);
}

describe('headers on every status', () => {
  it('401, 403, 404, 405, 413, 415, 400, 200 and HEAD all carry X-RateLimit-*, X-Edge-Node and Date', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter', ['resume.parse', 'jobs.create']);
    const json = { 'content-type': 'application/json' };
    const answers = {
      missing: await call(edge(), '/recruiter/jobs'),
      malformed: await call(edge(), '/recruiter/jobs', { key: 'xh_live_short' }),
      unknown: await call(edge(), '/recruiter/jobs', { key: `xh_test_${'A'.repeat(32)}` }),
      forbidden: await call(edge(), '/recruiter/jobs', { key }),
      notFound: await call(edge(), '/recruiter/nothing-here', { key }),
      notAllowed: await call(edge(), '/recruiter/jobs', { method: 'DELETE', key }),
      tooLarge: await call(edge(), UPLOAD, {
        method: 'POST',
        key,
        headers: { 'content-type': 'text/plain' },
        body: Buffer.alloc(MAX_UPLOAD + 1, 97),
      }),
      unsupported: await call(edge(), UPLOAD, {
        method: 'POST',
        key,
        headers: { 'content-type': 'image/gif' },
        body: 'GIF89a',
      }),
      badJson: await call(edge(), '/recruiter/jobs/create', { method: 'POST', key, headers: json, body: '{"title":' }),
      head: await call(edge(), '/recruiter/bootstrap', { method: 'HEAD', key }),
      ok: await call(edge(), '/recruiter/jobs/create', { method: 'POST', key, headers: json, body: '{"title":"QA"}' }),
    };
    for (const a of Object.values(answers)) expectHeaders(a);
    expectJsonError(answers.missing, 401, 'UNAUTHENTICATED');
    expect(answers.missing.json.reason).toBe('missing');
    expectJsonError(answers.malformed, 401, 'UNAUTHENTICATED');
    expect(answers.malformed.json.reason).toBe('malformed');
    expect(answers.unknown.json.reason).toBe('unknown');
    expect(answers.unknown.text).not.toContain('A'.repeat(32));
    expectJsonError(answers.forbidden, 403, 'INSUFFICIENT_SCOPE');
    expectJsonError(answers.notFound, 404, 'NOT_FOUND');
    expectJsonError(answers.notAllowed, 405, 'METHOD_NOT_ALLOWED');
    expect(answers.notAllowed.headers['allow']).toBe('GET');
    expectJsonError(answers.tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    expect(answers.tooLarge.json.message).toContain(String(MAX_UPLOAD));
    expect(answers.tooLarge.json.limit_bytes).toBe(MAX_UPLOAD);
    expectJsonError(answers.unsupported, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectJsonError(answers.badJson, 400, 'INVALID_JSON');
    expect([answers.head.status, answers.head.text]).toEqual([200, '']);
    expect(answers.ok.status).toBe(201);
  });

  it('the 429 carries them too, with Remaining 0', async () => {
    const { admin, edge } = target();
    clock.toNextWindow(W, 700);
    const { key } = await orgWithKey(admin, 'starter', ['jobs.read']);
    const refused = (await sequential(61, () => call(edge(), '/recruiter/jobs', { key }))).at(-1)!;
    expect(refused.status).toBe(429);
    expectHeaders(refused);
    expect(refused.remaining).toBe(0);
  });

  it('unauthenticated traffic reports a per-client anonymous bucket that counts each request, afresh each window', async () => {
    const { edge } = target();
    clock.toNextWindow(W);
    const answers = await sequential(3, () => call(edge(), '/recruiter/jobs'));
    for (const a of answers) expectHeaders(a);
    expect(answers.map((a) => [a.limit, a.remaining])).toEqual([
      [500, 499],
      [500, 498],
      [500, 497],
    ]);
    clock.advance(W);
    const next = await call(edge(), '/recruiter/jobs');
    expectHeaders(next);
    expect(next.remaining).toBe(499);
  });
});

describe('bad input never crashes the target', () => {
  it('answers 404 for a badly encoded id and 401 for keys of the wrong shape', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter');
    expectJsonError(await call(edge(), '/recruiter/candidates/%E0%A4%A', { key }), 404, 'NOT_FOUND');
    for (const bad of [
      'xh_live_',
      `xh_prod_${'a'.repeat(32)}`,
      `xh_live_${'a'.repeat(31)}!`,
      `xh_live_${'a'.repeat(33)}`,
      ' ',
    ]) {
      const a = await call(edge(), '/recruiter/jobs', { key: bad });
      expectJsonError(a, 401, 'UNAUTHENTICATED');
      expectHeaders(a);
    }
    expect((await call(edge(), '/recruiter/jobs', { key })).status).toBe(200);
  });

  it('answers a malformed multipart body and a bulk JSON body of the wrong shape with 400', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter');
    const broken = await call(edge(), UPLOAD, {
      method: 'POST',
      key,
      headers: { 'content-type': 'multipart/form-data' },
      body: 'x',
    });
    expectJsonError(broken, 400, 'INVALID_UPLOAD');
    const wrong = await call(edge(), `${UPLOAD}/bulk`, {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resumes: [{ name: 'a', content_base64: '!!' }], extra: 1 }),
    });
    expectJsonError(wrong, 400, 'VALIDATION_FAILED');
  });

  it('answers a declared body far over the limit with 413 at once, and a broken request line with 400', async () => {
    const { admin, edge } = target();
    const { key } = await orgWithKey(admin, 'starter');
    const host = new URL(edge()).host;
    const huge = await raw(
      edge(),
      `POST ${UPLOAD} HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${key}\r\nContent-Type: text/plain\r\nContent-Length: 100000000\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 413 /);
    expect(huge.toLowerCase()).toContain('x-ratelimit-remaining: ');
    expect(huge).toContain(`"limit_bytes":${MAX_UPLOAD}`);
    const garbage = await raw(edge(), 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage).toContain('x-ratelimit-limit: 500');
    expect(garbage).toContain('"code":"BAD_REQUEST"');
    expect((await call(edge(), '/recruiter/jobs', { key })).status).toBe(200);
  });
});
