/** The admin API and its typed client: provisioning, revocation, listing, and JSON errors for bad input. */
import { describe, expect, it } from 'vitest';
import { keyFormatOf } from '../../src/contract/keys.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { AdminApiError } from '../../src/reference-server/admin-client.ts';
import { call, useTarget } from '../helpers/target.ts';

const target = useTarget({ edges: 2 });
const post = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body }) as const;

describe('admin API', () => {
  it('creates orgs with the published figures, and Enterprise orgs with custom figures at or above the minimum', async () => {
    const { admin } = target();
    expect(await admin.createOrg('starter', 'acme')).toMatchObject({
      tier: 'starter',
      name: 'acme',
      limits: { read: 60, ingest: 10, concurrency: 5 },
    });
    expect((await admin.createOrg('professional', 'p')).limits).toEqual({ read: 300, ingest: 60, concurrency: 25 });
    expect((await admin.createOrg('enterprise', 'e')).limits).toEqual({ read: 2500, ingest: 500, concurrency: 100 });
    expect((await admin.createOrg('enterprise', 'big', { read: 10_000 })).limits).toEqual({
      read: 10_000,
      ingest: 500,
      concurrency: 100,
    });
  });

  it('refuses unknown tiers, figures below the minimum or on fixed tiers, and unknown fields, with details', async () => {
    const { target: t } = target();
    const refused = async (body: unknown) => {
      const a = await call(t.adminUrl, '/admin/orgs', post(JSON.stringify(body)));
      expect(a.status).toBe(400);
      expect(a.json).toMatchObject({ status: 'error', code: 'VALIDATION_FAILED' });
      return a.json.errors.map((e: { path: string }) => e.path);
    };
    expect(await refused({ tier: 'gold', name: 'x' })).toEqual(['tier']);
    expect(await refused({ tier: 'starter' })).toEqual(['name']);
    expect(await refused({ tier: 'enterprise', name: 'x', limits: { read: 100, ingest: 499 } })).toEqual([
      'limits.read',
      'limits.ingest',
    ]);
    expect(await refused({ tier: 'starter', name: 'x', limits: { read: 61 } })).toEqual(['limits.read']);
    expect(await refused({ tier: 'starter', name: 'x', color: 'red' })).toEqual(['(body)']);
    const badJson = await call(t.adminUrl, '/admin/orgs', post('{"tier":'));
    expect([badJson.status, badJson.json.code]).toEqual([400, 'INVALID_JSON']);
  });

  it('creates keys in the §5.3 format; the full key appears once, listings show it redacted', async () => {
    const { admin, target: t } = target();
    const org = await admin.createOrg('starter', 'keys');
    const live = await admin.createKey(org.id, ['jobs.read', 'webhook.manage'], 'live');
    const test = await admin.createKey(org.id, [], 'test');
    expect(keyFormatOf(recruitingApi, live.key)?.env).toBe('live');
    expect(keyFormatOf(recruitingApi, test.key)?.env).toBe('test');
    expect(live.key).toMatch(/^xh_live_[A-Za-z0-9]{32}$/);
    expect(live.redacted).toBe(`xh_live_…${live.key.slice(-4)}`);
    expect(live).toMatchObject({ scopes: ['jobs.read', 'webhook.manage'], env: 'live' });
    const listing = await call(t.adminUrl, '/admin/orgs');
    expect(listing.text).not.toContain(live.key);
    expect(listing.text).not.toContain(test.key);
    const listed = (await admin.listOrgs()).find((o) => o.id === org.id)!;
    expect(listed.keys.map((k) => [k.id, k.redacted, k.revokedAt])).toEqual([
      [live.id, live.redacted, null],
      [test.id, test.redacted, null],
    ]);
  });

  it('refuses unknown scopes and environments (400), unknown orgs and keys (404), routes (404) and methods (405)', async () => {
    const { admin, target: t } = target();
    const org = await admin.createOrg('starter', 'errors');
    const badScope = await call(
      t.adminUrl,
      `/admin/orgs/${org.id}/keys`,
      post(JSON.stringify({ scopes: ['jobs.read', 'jobs.delete'], env: 'test' })),
    );
    expect(badScope.status).toBe(400);
    expect(badScope.json.errors.map((e: { path: string }) => e.path)).toEqual(['scopes.1']);
    const badEnv = await call(
      t.adminUrl,
      `/admin/orgs/${org.id}/keys`,
      post(JSON.stringify({ scopes: [], env: 'prod' })),
    );
    expect(badEnv.json.errors.map((e: { path: string }) => e.path)).toEqual(['env']);
    expect((await call(t.adminUrl, '/admin/orgs/org_nope/keys', post('{"scopes":[]}'))).status).toBe(404);
    expect((await call(t.adminUrl, '/admin/keys/key_nope/revoke', { method: 'POST' })).status).toBe(404);
    const unknown = await call(t.adminUrl, '/admin/things');
    expect([unknown.status, unknown.json.code]).toEqual([404, 'NOT_FOUND']);
    const wrongMethod = await call(t.adminUrl, '/admin/orgs', { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.headers['allow'], wrongMethod.json.code]).toEqual([
      405,
      'GET, POST',
      'METHOD_NOT_ALLOWED',
    ]);
    expect((await call(t.adminUrl, `/admin/keys/x/revoke`, { method: 'GET' })).status).toBe(405);
    // The edge API is not served on the admin listener, nor the admin API on an edge.
    expect((await call(t.adminUrl, '/recruiter/jobs')).status).toBe(404);
    expect((await call(t.edges[0]!, '/admin/orgs')).status).toBe(404);
  });

  it('the client throws AdminApiError with the status and the API’s message', async () => {
    const { admin } = target();
    const error = await admin.createOrg('starter', 'x', { read: 99 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminApiError);
    expect((error as AdminApiError).status).toBe(400);
    expect((error as AdminApiError).code).toBe('VALIDATION_FAILED');
    expect((error as Error).message).toMatch(/answered 400: limits\.read: Starter has a fixed read figure of 60/);
    await expect(admin.revokeKey('key_missing')).rejects.toThrow(/answered 404: no key with id "key_missing"/);
    await expect(admin.createKey('org_missing', ['jobs.read'], 'test')).rejects.toThrow(/404/);
  });
});
