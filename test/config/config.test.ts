import { describe, expect, it } from 'vitest';
import { parseConfig, resolveSecret } from '../../src/config/load.ts';
import { UsageError } from '../../src/util/errors.ts';

const HOOK = { type: 'command', provision: './new-key.sh', revoke: './revoke.sh {keyId}' };

const valid = () => ({
  target: { edges: ['http://127.0.0.1:8080'] },
  orgs: [
    {
      name: 'starter-a',
      tier: 'starter',
      keys: { primary: { env: 'XH_STARTER_KEY_A' }, secondary: { env: 'XH_STARTER_KEY_A2' } },
    },
    { name: 'pro-a', tier: 'professional', keys: { primary: { env: 'XH_PRO_KEY_A' } } },
  ],
});

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('parseConfig', () => {
  it('resolves defaults into typed values', () => {
    const config = parseConfig(valid(), 'tiergate.config.json');
    expect(config.window).toBe(60_000);
    expect(config.timeout).toBe(5_000);
    expect(config.target).toEqual({
      edges: ['http://127.0.0.1:8080'],
      edgeHeader: 'x-edge-node',
      allowNonLoopback: false,
    });
    expect(config.orgs[0]!.keys.primary).toEqual({ env: 'XH_STARTER_KEY_A' });
    expect(parseConfig({ ...valid(), window: '3s', timeout: 250 }, 'c').window).toBe(3000);
  });

  it('an edge is an origin: a path or query is named, not left to fail every request', () => {
    const edges = ['http://127.0.0.1:8080/', 'http://127.0.0.1:8081/v1', 'http://[::1]:8082?x=1'];
    const error = usageError(() => parseConfig({ ...valid(), target: { edges } }, 'c'));
    expect(error.message).not.toContain('target.edges.0');
    expect(error.message).toMatch(
      /target\.edges\.1: expected an origin like "http:\/\/127\.0\.0\.1:8080": no path, query or fragment/,
    );
    expect(error.message).toContain('target.edges.2');
  });

  it('reports every invalid field by path in one message', () => {
    const bad = {
      target: { edges: ['ftp://edge'], edgeHeader: 7 },
      window: 'a minute',
      orgs: [{ name: 'Starter A', tier: 'gold', keys: { primary: { env: 'XH-KEY' } } }],
    };
    const error = usageError(() => parseConfig(bad, 'tiergate.config.json'));
    expect(error.code).toBe('TG_CONFIG');
    expect(error.message).toMatch(/^tiergate\.config\.json: /);
    for (const path of [
      'target.edges.0: ',
      'target.edgeHeader: ',
      'window: ',
      'orgs.0.name: ',
      'orgs.0.tier: ',
      'orgs.0.keys.primary.env: ',
    ]) {
      expect(error.message).toContain(path);
    }
    expect(error.message).toContain('window: expected a duration like "300ms", "3s" or "1m" (window)');
    expect(error.message).toContain('orgs.0.name: lower-case letters, digits and dashes');
    expect(error.message.split('; ').length).toBeGreaterThanOrEqual(6);
  });

  it('refuses unknown keys, at the top level and nested', () => {
    const error = usageError(() =>
      parseConfig({ ...valid(), edges: [], target: { edges: ['http://127.0.0.1:1'], timeout: 5 } }, 'c.json'),
    );
    expect(error.message).toContain('(top level): Unrecognized key: "edges"');
    expect(error.message).toContain('target: Unrecognized key: "timeout"');
  });

  it('refuses a literal key string with the {"env": ...} hint, without echoing the key', () => {
    const secret = `xh_live_${'Ab3dEf6h'.repeat(4)}`;
    const config = valid();
    (config.orgs[0]!.keys as Record<string, unknown>)['primary'] = secret;
    const error = usageError(() => parseConfig(config, 'c.json'));
    expect(error.message).toContain('orgs.0.keys.primary: keys never go in the config file: write {"env": "VARIABLE"}');
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('Ab3dEf6h');
  });

  it('refuses missing required fields and empty lists', () => {
    const error = usageError(() => parseConfig({ target: { edges: [] }, orgs: [] }, 'c.json'));
    expect(error.message).toContain('target.edges: ');
    expect(error.message).toContain('orgs: ');
    expect(usageError(() => parseConfig(null, 'c.json')).message).toContain('(top level): ');
  });

  it('refuses windows that are not whole seconds, and zero timeouts or intervals', () => {
    const error = usageError(() =>
      parseConfig(
        { ...valid(), window: '1500ms', timeout: 0, revocation: { org: 'starter-a', interval: '0ms', hook: HOOK } },
        'c.json',
      ),
    );
    expect(error.message).toContain('window: ');
    expect(error.message).toContain('whole seconds');
    expect(error.message).toContain('timeout: ');
    expect(error.message).toContain('revocation.interval: ');
    expect(
      parseConfig({ ...valid(), revocation: { org: 'starter-a', settle: 0, hook: HOOK } }, 'c').revocation?.settle,
    ).toBe(0);
  });

  it('takes a revocation confidence target in words, and names the field when it is not one', () => {
    expect(
      parseConfig({ ...valid(), revocation: { org: 'starter-a', confidence: '99%@95%', hook: HOOK } }, 'c').revocation
        ?.confidence,
    ).toEqual({ share: 0.99, level: 0.95 });
    expect(
      parseConfig({ ...valid(), revocation: { org: 'starter-a', hook: HOOK } }, 'c').revocation?.confidence,
    ).toBeUndefined();
    expect(
      usageError(() => parseConfig({ ...valid(), revocation: { org: 'starter-a', confidence: 0.99, hook: HOOK } }, 'c'))
        .message,
    ).toContain('revocation.confidence: ');
    expect(
      usageError(() =>
        parseConfig({ ...valid(), revocation: { org: 'starter-a', confidence: 'nearly all', hook: HOOK } }, 'c'),
      ).message,
    ).toContain('revocation.confidence: "nearly all" is not a target');
  });

  it('takes revocation trials at once as a whole number from 1, and leaves it to the scenario when absent', () => {
    expect(
      parseConfig({ ...valid(), revocation: { org: 'starter-a', parallel: 2, hook: HOOK } }, 'c').revocation?.parallel,
    ).toBe(2);
    expect(
      parseConfig({ ...valid(), revocation: { org: 'starter-a', hook: HOOK } }, 'c').revocation?.parallel,
    ).toBeUndefined();
    expect(
      usageError(() => parseConfig({ ...valid(), revocation: { org: 'starter-a', parallel: 0, hook: HOOK } }, 'c'))
        .message,
    ).toContain('revocation.parallel: ');
    expect(
      usageError(() => parseConfig({ ...valid(), revocation: { org: 'starter-a', parallel: 1.5, hook: HOOK } }, 'c'))
        .message,
    ).toContain('revocation.parallel: ');
  });

  it('refuses a revocation org not among the orgs, and duplicate org names, with the other problems', () => {
    const config = { ...valid(), window: 'soon', revocation: { org: 'nobody', hook: HOOK } };
    config.orgs.push({ ...config.orgs[0]!, tier: 'enterprise' });
    const error = usageError(() => parseConfig(config, 'c.json'));
    expect(error.message).toContain('window: ');
    expect(error.message).toContain(
      'revocation.org: "nobody" is not the name of an organization in orgs (starter-a, pro-a)',
    );
    expect(error.message).toContain('orgs.2.name: "starter-a" is already the name of orgs.0');
  });
});

describe('headers: a declared rate-limit header dialect', () => {
  it('is absent unless declared: §8 is the judge', () => {
    expect(parseConfig(valid(), 'c').headers).toBeUndefined();
  });

  it('takes a dialect by name, or with the policy each quota class goes by, into one typed object', () => {
    expect(parseConfig({ ...valid(), headers: 'ietf' }, 'c').headers).toEqual({ dialect: 'ietf', policies: {} });
    const policies = { read: 'permin', ingest: 'uploads', concurrency: 'inflight' };
    expect(parseConfig({ ...valid(), headers: { dialect: 'ietf', policies } }, 'c').headers).toEqual({
      dialect: 'ietf',
      policies,
    });
    expect(parseConfig({ ...valid(), headers: { dialect: 'ietf-draft-7' } }, 'c').headers).toEqual({
      dialect: 'ietf-draft-7',
      policies: {},
    });
  });

  it('refuses a name that is no dialect in one line naming headers and the choices', () => {
    const choices = 'x-ratelimit, ietf, ietf-draft-7, ietf-draft-6';
    const bare = usageError(() => parseConfig({ ...valid(), headers: 'ietf-draft-11' }, 'tiergate.config.json'));
    expect(bare.code).toBe('TG_CONFIG');
    expect(bare.message).toBe(`tiergate.config.json: headers: expected one of ${choices}`);
    const nested = usageError(() => parseConfig({ ...valid(), headers: { dialect: 'IETF' } }, 'c'));
    expect(nested.message).toBe(`c: headers.dialect: expected one of ${choices}`);
    const other = usageError(() => parseConfig({ ...valid(), headers: 7 }, 'c'));
    expect(other.message).toMatch(/^c: headers: expected one of x-ratelimit, .*, or \{"dialect"/);
    expect(other.message).not.toContain('\n');
  });

  it('refuses policies for a dialect that names none, an unknown class and an empty name', () => {
    const seven = usageError(() =>
      parseConfig({ ...valid(), headers: { dialect: 'ietf-draft-7', policies: { read: 'r' } } }, 'c'),
    );
    expect(seven.message).toMatch(/^c: headers\.policies: ietf-draft-7 names no policy/);
    const unknown = usageError(() =>
      parseConfig({ ...valid(), headers: { dialect: 'ietf', policies: { write: 'w' } } }, 'c'),
    );
    expect(unknown.message).toMatch(/^c: headers\.policies: Unrecognized key: "write"/);
    const empty = usageError(() =>
      parseConfig({ ...valid(), headers: { dialect: 'ietf', policies: { read: '' } } }, 'c'),
    );
    expect(empty.message).toMatch(/^c: headers\.policies\.read: a policy name/);
  });
});

describe("orgs[].limits: an organization's own figures", () => {
  const enterprise = (limits: unknown) => ({
    ...valid(),
    orgs: [...valid().orgs, { name: 'big-co', tier: 'enterprise', keys: { primary: { env: 'XH_BIG_KEY' } }, limits }],
  });

  it('takes any of read, ingest and concurrency for Enterprise, at or above the published minimums', () => {
    expect(parseConfig(enterprise({ read: 10_000, ingest: 2000, concurrency: 250 }), 'c').orgs[2]!.limits).toEqual({
      read: 10_000,
      ingest: 2000,
      concurrency: 250,
    });
    expect(parseConfig(enterprise({ read: 2500 }), 'c').orgs[2]!.limits).toEqual({ read: 2500 });
    expect(parseConfig(valid(), 'c').orgs[0]!.limits).toBeUndefined();
  });

  it('refuses an Enterprise figure below the minimum, naming the field and the fix', () => {
    const error = usageError(() => parseConfig(enterprise({ read: 2000, concurrency: 99 }), 'c.json'));
    expect(error.code).toBe('TG_CONFIG');
    expect(error.message).toBe(
      'c.json: orgs.2.limits.read: must be at least 2500 for Enterprise / Custom (the published minimum): write the contracted figure; ' +
        'orgs.2.limits.concurrency: must be at least 100 for Enterprise / Custom (the published minimum): write the contracted figure',
    );
  });

  it('takes only the published figure on Starter and Professional', () => {
    const config = valid();
    Object.assign(config.orgs[0]!, { limits: { read: 60, ingest: 10 } });
    Object.assign(config.orgs[1]!, { limits: { read: 1000 } });
    const error = usageError(() => parseConfig(config, 'c.json'));
    expect(error.message).toBe(
      'c.json: orgs.1.limits.read: Professional has a fixed read figure of 300: write 300, or leave it out',
    );
    Object.assign(config.orgs[1]!, { limits: { read: 300 } });
    expect(parseConfig(config, 'c').orgs.map((o) => o.limits)).toEqual([{ read: 60, ingest: 10 }, { read: 300 }]);
  });

  it('refuses figures that are not whole numbers above 0, and unknown fields, with every other problem', () => {
    const config = enterprise({ read: 0, ingest: 2.5, concurrency: '250', burst: 10 });
    const error = usageError(() => parseConfig({ ...config, window: 'soon' }, 'c.json'));
    for (const path of [
      'window: ',
      'orgs.2.limits.read: ',
      'orgs.2.limits.ingest: ',
      'orgs.2.limits.concurrency: ',
      'orgs.2.limits: Unrecognized key: "burst"',
    ]) {
      expect(error.message).toContain(path);
    }
  });

  it('judges a tier rule even where the organization has other problems', () => {
    const config = enterprise({ read: 100 });
    Object.assign(config.orgs[2]!, { keys: { primary: 'not a reference' } });
    const error = usageError(() => parseConfig(config, 'c.json'));
    expect(error.message).toContain('orgs.2.keys.primary: ');
    expect(error.message).toContain('orgs.2.limits.read: must be at least 2500');
  });
});

describe('resolveSecret', () => {
  it('reads the named variable', () => {
    expect(resolveSecret({ env: 'XH_KEY' }, { XH_KEY: 'xh_test_abc' }, 'orgs.0.keys.primary')).toBe('xh_test_abc');
    expect(resolveSecret(undefined, {}, 'orgs.0.keys.secondary')).toBeNull();
  });

  it('names a missing or empty variable and where it was asked for', () => {
    for (const env of [{}, { XH_KEY: '' }]) {
      const error = usageError(() => resolveSecret({ env: 'XH_KEY' }, env, 'orgs.1.keys.primary'));
      expect(error.code).toBe('TG_ENV');
      expect(error.message).toBe('orgs.1.keys.primary: environment variable XH_KEY is not set; export it with the key');
    }
  });

  it('refuses a literal key without echoing it', () => {
    const error = usageError(() => resolveSecret(`xh_live_${'secret'.repeat(6)}se`, {}, 'orgs.0.keys.primary'));
    expect(error.code).toBe('TG_CONFIG');
    expect(error.message).not.toContain('secretsecret');
  });
});

describe('revocation hooks never hold a key', () => {
  it('refuses a full key written into a hook template, naming its path and not the key', () => {
    const key = `xh_live_${'A1b2'.repeat(8)}`;
    const json = {
      target: { edges: ['http://127.0.0.1:9'] },
      orgs: [{ name: 'a', tier: 'starter', keys: { primary: { env: 'K' } } }],
      revocation: {
        org: 'a',
        hook: {
          type: 'http',
          provision: { url: 'http://127.0.0.1:9/keys', keyPath: 'key' },
          revoke: { url: 'http://127.0.0.1:9/revoke', headers: { 'x-admin': key } },
        },
      },
    };
    let message = '';
    try {
      parseConfig(json, 'c.json');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('revocation.hook.revoke.headers.x-admin: keys never go in the config file');
    expect(message).not.toContain(key);
  });
});
