/**
 * Key hooks: templates and their validation, command and HTTP hooks driving the reference target's
 * admin API end to end, hooks that fail or hang (inconclusive with their output, never a hang), and
 * HTTP hooks to an admin API behind a private CA.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, onTestFinished, test } from 'vitest';
import { makeCertificates } from '../../src/reference-server/certificates.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { RevocationHookConfig } from '../../src/config/schema.ts';
import type { CheckResult } from '../../src/catalogue/types.ts';
import { UsageError } from '../../src/util/errors.ts';
import { commandHook, commandRevoker, parseProvisionOutput } from '../../src/provision/hooks/command.ts';
import { adminApiHook } from '../../src/provision/hooks/admin-api.ts';
import { disposableListHook } from '../../src/provision/hooks/disposable.ts';
import { configKeyHook } from '../../src/provision/hooks/from-config.ts';
import { redactOutput } from '../../src/provision/hooks/hook-error.ts';
import { fillTemplate, shellQuote, templateProblems } from '../../src/provision/hooks/template.ts';
import type { KeyHandle, OrgHandle } from '../../src/contract/handles.ts';
import { runRevocation, startHarness, type Harness } from '../helpers/revocation-harness.ts';

const KEY = `xh_test_${'A1b2C3d4'.repeat(4)}`;
const handle: KeyHandle = { label: 'k', key: KEY, id: 'key_123', scopes: 'all' };
const org: OrgHandle = {
  label: 'starter-x',
  tier: 'starter',
  id: 'org_1',
  primary: handle,
  secondary: null,
  unscoped: null,
};
const ADMIN_CLI = fileURLToPath(new URL('../helpers/admin-cli.mjs', import.meta.url));
const SHAPE = { trials: 2, intervalMs: 10, settleMs: 300 };

const usageError = (build: () => unknown): UsageError => {
  try {
    build();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a UsageError');
};

describe('templates', () => {
  test('placeholders are filled; JSON braces are not placeholders', () => {
    const env = { TOKEN: 's3cret' };
    expect(fillTemplate('{"key":"{key}","id":"{keyId}","t":"{env:TOKEN}"}', { key: 'K', keyId: 'I' }, env)).toBe(
      '{"key":"K","id":"I","t":"s3cret"}',
    );
    expect(() => fillTemplate('/keys/{keyId}', { key: 'K', keyId: null }, env)).toThrow(/has no id/);
  });

  test('values are shell-quoted only when they need it', () => {
    expect(shellQuote(KEY)).toBe(KEY);
    expect(shellQuote(`it's $(rm -rf)`)).toBe(`'it'\\''s $(rm -rf)'`);
  });

  test('problems name the config path', () => {
    expect(templateProblems('{env:NOPE} {key}', 'revocation.hook.provision', {}, [])).toEqual([
      'revocation.hook.provision: environment variable NOPE (in {env:NOPE}) is not set',
      'revocation.hook.provision: {key} is not known here (no key exists yet when provisioning)',
    ]);
  });

  test('hook output is redacted: keys and the secrets the hook was given', () => {
    const out = redactOutput(`denied for ${KEY} with token tok_abcdefghijklmnop`, ['tok_abcdefghijklmnop']);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain('tok_abcdefghijklmnop');
    expect(out).toContain('xh_test_…C3d4');
  });

  test('a provision command prints "KEY [ID]" or JSON', () => {
    expect(parseProvisionOutput(`\n${KEY} key_9\n`)).toEqual({ key: KEY, id: 'key_9' });
    expect(parseProvisionOutput(JSON.stringify({ key: KEY, id: 7 }))).toEqual({ key: KEY, id: '7' });
    expect(parseProvisionOutput('  ')).toBeNull();
  });
});

describe('hook configuration', () => {
  test('the schema refuses an incomplete hook, by path', () => {
    const config = {
      target: { edges: ['http://127.0.0.1:9'] },
      orgs: [{ name: 'a', tier: 'starter', keys: { primary: { env: 'K' } } }],
      revocation: { org: 'a', hook: { type: 'command', provision: 'make-key' } },
    };
    const error = usageError(() => parseConfig(config, 'tiergate.config.json'));
    expect(error.code).toBe('TG_CONFIG');
    expect(error.message).toContain('revocation.hook.revoke');
    const ok = parseConfig(
      {
        ...config,
        revocation: { org: 'a', hook: { type: 'command', provision: 'p', revoke: 'r {key}', timeout: '2s' } },
      },
      'x',
    );
    expect(ok.revocation?.hook).toEqual({ type: 'command', provision: 'p', revoke: 'r {key}', timeout: 2000 });
  });

  test('unset variables and unknowable placeholders are UsageErrors naming every path', () => {
    const http = usageError(() =>
      configKeyHook(
        {
          type: 'http',
          provision: { method: 'POST', url: 'http://127.0.0.1:1/keys', keyPath: 'key' },
          revoke: {
            method: 'POST',
            url: 'http://127.0.0.1:1/keys/{keyId}/revoke',
            headers: { authorization: 'Bearer {env:ADMIN_TOKEN}' },
          },
          timeout: 1000,
        },
        {},
      ),
    );
    expect(http.code).toBe('TG_CONFIG');
    expect(http.message).toContain('revocation.hook.revoke.headers.authorization: environment variable ADMIN_TOKEN');
    expect(http.message).toContain('revocation.hook.provision.keyIdPath: required');
    const command = usageError(() =>
      configKeyHook({ type: 'command', provision: 'mk {key}', revoke: 'rm {key}', timeout: 1000 }, {}),
    );
    expect(command.message).toContain('revocation.hook.provision: {key} is not known here');
    const disposable = usageError(() =>
      configKeyHook(
        {
          type: 'disposable',
          keys: [{ env: 'K1' }, { env: 'K2' }],
          revoke: { type: 'command', command: 'rm {keyId}' },
          timeout: 1000,
        },
        { K1: KEY },
      ),
    );
    expect(disposable.message).toContain('revocation.hook.keys.1.env: environment variable K2 is not set');
    expect(disposable.message).toContain('revocation.hook.keys.0.id: required');
  });

  test('an HTTP hook refuses a non-loopback URL unless remote targets are allowed, before sending anything', async () => {
    const hook = configKeyHook(
      {
        type: 'disposable',
        keys: [{ env: 'K1' }],
        revoke: { type: 'http', method: 'POST', url: 'https://admin.example.com/revoke' },
        timeout: 1000,
      },
      { K1: KEY },
    );
    await expect(hook.revokeKey(handle)).rejects.toMatchObject({ code: 'TG_NOT_LOOPBACK' });
  });

  test('a disposable list hands out its keys in order, then is exhausted', async () => {
    const hook = disposableListHook([{ key: KEY, id: null }], { revokeKey: async () => {} });
    expect((await hook.provisionKey(org, 'all')).key).toBe(KEY);
    await expect(hook.provisionKey(org, 'all')).rejects.toMatchObject({ code: 'HOOK_EXHAUSTED' });
  });
});

describe("the revoke call's connection, opened first (warm)", () => {
  interface Seen {
    readonly method: string;
    readonly url: string;
    readonly authorization: string | undefined;
    readonly socket: number;
  }
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = null;
  });

  /** A revoking API on loopback, port 0, that notes every request and the connection it came on. */
  async function revokingApi(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{
    readonly url: string;
    readonly seen: Seen[];
  }> {
    const seen: Seen[] = [];
    const sockets = new Map<unknown, number>();
    server = createServer((req, res) => {
      if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size + 1);
      const socket = sockets.get(req.socket)!;
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, socket });
      answer(req, res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }
  const revokeConfig = (url: string): RevocationHookConfig => ({
    type: 'disposable',
    keys: [{ env: 'K1', id: 'key_123' }],
    revoke: {
      type: 'http',
      method: 'POST',
      url: `${url}/keys/{keyId}/revoke`,
      headers: { authorization: 'Bearer {env:TOKEN}' },
    },
    timeout: 5000,
  });

  test("HEAD / at the origin, with none of the call's headers, on the connection the revoke call then takes", async () => {
    const api = await revokingApi((req, res) => {
      res.statusCode = req.method === 'HEAD' ? 404 : 200;
      res.end();
    });
    const hook = configKeyHook(revokeConfig(api.url), { K1: KEY, TOKEN: 'tok-s3cret' });
    await hook.warm!();
    await hook.revokeKey(handle);
    expect(api.seen).toEqual([
      { method: 'HEAD', url: '/', authorization: undefined, socket: 1 },
      { method: 'POST', url: '/keys/key_123/revoke', authorization: 'Bearer tok-s3cret', socket: 1 },
    ]);
  });

  test('a warm that fails rejects, naming what it sent; the revoke call goes on without it', async () => {
    const api = await revokingApi((req, res) => {
      if (req.method === 'HEAD') req.socket.destroy();
      else res.end();
    });
    const hook = configKeyHook(revokeConfig(api.url), { K1: KEY, TOKEN: 'tok-s3cret' });
    await expect(hook.warm!()).rejects.toMatchObject({
      code: 'HOOK_FAILED',
      message: expect.stringContaining(`HEAD ${api.url}/ to open the revoke call's connection`),
    });
    await hook.revokeKey(handle);
    expect(api.seen.map((r) => [r.method, r.socket])).toEqual([
      ['HEAD', 1],
      ['POST', 2],
    ]);
  });

  test('none where the origin depends on the key, or the hook runs a command', () => {
    const byKey = configKeyHook(revokeConfig('http://{keyId}.localhost:9'), { K1: KEY, TOKEN: 't' });
    expect(byKey.warm).toBeUndefined();
    const command = configKeyHook(
      { type: 'disposable', keys: [{ env: 'K1' }], revoke: { type: 'command', command: 'true' }, timeout: 1000 },
      { K1: KEY },
    );
    expect(command.warm).toBeUndefined();
  });
});

describe('command hooks that fail', () => {
  test('a failing revoke command rejects with its redacted output', async () => {
    const hook = commandHook(
      { provision: 'true', revoke: 'echo "cannot revoke {key}" >&2; exit 3', timeout: 5000 },
      process.env,
    );
    const error = await hook.revokeKey(handle).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error?.code).toBe('HOOK_FAILED');
    expect(error?.message).toContain('exited with status 3: cannot revoke xh_test_…C3d4');
    expect(error?.message).not.toContain(KEY);
  });

  test('a hanging command is killed at its timeout, grandchildren too', async () => {
    const hook = commandHook(
      { provision: 'true', revoke: 'echo started; sleep 30; sleep 30', timeout: 1500 },
      process.env,
    );
    const started = performance.now();
    await expect(hook.revokeKey(handle)).rejects.toMatchObject({
      code: 'HOOK_TIMEOUT',
      message: expect.stringContaining('timed out after 1500 ms: started'),
    });
    // Bounded by the timeout, not by the 60 s the command would take.
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  test('a command that exits while a background child holds its output still returns', async () => {
    const hook = commandHook(
      { provision: '(sleep 30 &); echo "{env:K}"', revoke: 'true', timeout: 20_000 },
      { ...process.env, K: KEY },
    );
    const started = performance.now();
    expect((await hook.provisionKey(org, 'all')).key).toBe(KEY);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});

describe('hooks driving the reference target', () => {
  let harness: Harness | null = null;
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });
  const env = (h: Harness) => ({ ...process.env, ADMIN_URL: h.target.adminUrl, ORG_ID: h.org.id! });
  const verdicts = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r.verdict]));

  test('a command hook provisions and revokes through a CLI', async () => {
    harness = await startHarness();
    const hook = configKeyHook(
      {
        type: 'command',
        provision: `node ${ADMIN_CLI} provision`,
        revoke: `node ${ADMIN_CLI} revoke {keyId}`,
        timeout: 10_000,
      },
      env(harness),
    );
    const results = await runRevocation(harness.context(hook), harness.org, SHAPE);
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'pass',
      'REVOKE-STICKY': 'pass',
      'AUTH-REVOKED': 'pass',
      ROTATION: 'pass',
    });
  });

  test('an HTTP hook provisions and revokes through the admin API', async () => {
    harness = await startHarness();
    const hook = configKeyHook(
      {
        type: 'http',
        provision: {
          method: 'POST',
          url: '{env:ADMIN_URL}/admin/orgs/{env:ORG_ID}/keys',
          body: { scopes: ['jobs.read'], env: 'test' },
          keyPath: 'key',
          keyIdPath: 'id',
        },
        revoke: { method: 'POST', url: '{env:ADMIN_URL}/admin/keys/{keyId}/revoke' },
        timeout: 5000,
      },
      env(harness),
    );
    const results = await runRevocation(harness.context(hook), harness.org, SHAPE);
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'pass',
      'REVOKE-STICKY': 'pass',
      'AUTH-REVOKED': 'pass',
      ROTATION: 'pass',
    });
  });

  test('a revoke hook that errors: inconclusive with its output, and no further trials', async () => {
    harness = await startHarness();
    const hook = configKeyHook(
      {
        type: 'command',
        provision: `node ${ADMIN_CLI} provision`,
        revoke: 'echo "revoke refused for {key}" >&2; exit 1',
        timeout: 5000,
      },
      env(harness),
    );
    const results = await runRevocation(harness.context(hook), harness.org, { ...SHAPE, trials: 3 });
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'inconclusive',
      'REVOKE-STICKY': 'inconclusive',
      'AUTH-REVOKED': 'inconclusive',
      ROTATION: 'inconclusive',
    });
    const latency = results.find((r) => r.id === 'REVOKE-LATENCY')!;
    expect(latency.reasons).toContainEqual({
      code: 'revoke-hook-failed',
      trial: 1,
      hookError: expect.stringMatching(/^the revoke command exited with status 1: revoke refused for xh_test_…\w{4}/),
    });
    expect(latency.reasons).toContainEqual({ code: 'trials-not-run', ran: 1, planned: 3 });
    expect(JSON.stringify(results)).not.toMatch(/xh_test_[A-Za-z0-9]{32}/);
  });

  test('a revoke hook that hangs: inconclusive at its timeout, never a hang', async () => {
    harness = await startHarness();
    // Provisioning through the admin API, so that only the revoke command runs against the 500 ms timeout.
    const hook = {
      ...adminApiHook(harness.admin),
      kind: 'command' as const,
      revokeKey: commandRevoker('sleep 30', 500, process.env, 'revocation.hook.revoke'),
    };
    const results = await runRevocation(harness.context(hook), harness.org, SHAPE);
    const latency = results.find((r) => r.id === 'REVOKE-LATENCY')!;
    expect(latency.verdict).toBe('inconclusive');
    expect(latency.reasons).toContainEqual(
      expect.objectContaining({
        code: 'revoke-hook-failed',
        hookError: expect.stringContaining('the revoke command timed out after 500 ms'),
      }),
    );
    expect(latency.durationMs).toBeLessThan(30_000);
  });
});

describe('HTTP hooks over HTTPS with a private CA (config target.ca)', () => {
  /** An admin API on loopback presenting a certificate of a CA of its own; its URL, the CA and the calls it got. */
  async function httpsAdmin() {
    const { caPem, certPem, keyPem } = await makeCertificates('valid');
    const calls: string[] = [];
    const server = createHttpsServer({ cert: certPem, key: keyPem }, (req, res) => {
      calls.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ key: KEY, id: 'key_9' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      server.closeAllConnections();
      server.close();
    });
    return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem, calls };
  }

  const hookTo = (url: string) =>
    ({
      type: 'http',
      provision: { method: 'POST', url: `${url}/keys`, keyPath: 'key', keyIdPath: 'id' },
      revoke: { method: 'DELETE', url: `${url}/keys/{keyId}` },
      timeout: 5000,
    }) as const;

  test('trusting the CA, it provisions and revokes', async () => {
    const admin = await httpsAdmin();
    const hook = configKeyHook(hookTo(admin.url), {}, { ca: admin.caPem });
    const key = await hook.provisionKey(org, 'all');
    expect(key).toMatchObject({ key: KEY, id: 'key_9' });
    await hook.revokeKey(key);
    expect(admin.calls).toEqual(['POST /keys', 'DELETE /keys/key_9']);
  });

  test('without it, the call fails with the certificate error and the admin API hears nothing', async () => {
    const admin = await httpsAdmin();
    const hook = configKeyHook(hookTo(admin.url), {});
    await expect(hook.provisionKey(org, 'all')).rejects.toMatchObject({
      code: 'HOOK_FAILED',
      message: expect.stringMatching(/^POST \/keys failed: .*(unable to verify|UNABLE_TO_VERIFY)/),
    });
    expect(admin.calls).toEqual([]);
  });
});
