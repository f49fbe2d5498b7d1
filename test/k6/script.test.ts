/**
 * The bundled k6 script's behaviour, without k6 (it cannot be installed here): the bundle is loaded
 * in Node over stub `k6/*` modules that record what the script asks of k6. Checks the options it
 * builds from the LoadShape (constant arrival rate at 1× and 2× quota, a fleet, thresholds, 429
 * expected), the requests it sends (round-robin over org keys) and the tagged samples it emits.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportK6Scripts } from '../../src/k6/export.ts';
import { sustainedLoad } from '../../src/scenario/define.ts';
import type { RateLimitReader } from '../../src/measure/rate-limit-reading.ts';

interface Stub {
  requests: {
    method: string;
    url: string;
    params: { headers: Record<string, string>; tags: Record<string, string> };
  }[];
  samples: { metric: string; value: number; tags: Record<string, string> }[];
  callback: unknown;
  iteration: number;
  status: number;
  /** The response headers the stub answers with; absent: X-RateLimit-* of a starter read. */
  headers?: Record<string, string>;
}

const STUBS = {
  'package.json': JSON.stringify({
    name: 'k6',
    type: 'module',
    exports: { '.': './index.js', './http': './http.js', './metrics': './metrics.js', './execution': './execution.js' },
  }),
  'index.js': 'export const sleep = () => {};\n',
  'http.js': `const s = () => globalThis.__k6stub;
export default {
  request(method, url, body, params) {
    s().requests.push({ method, url, params });
    return { status: s().status, headers: s().headers ?? { 'X-Ratelimit-Limit': '60', 'X-Ratelimit-Remaining': s().status === 429 ? '0' : '12', 'X-Ratelimit-Reset': '1764000060', 'Date': 'Mon, 24 Nov 2025 16:00:01 GMT' } };
  },
  expectedStatuses(...args) { return { expectedStatuses: args }; },
  setResponseCallback(cb) { s().callback = cb; },
};\n`,
  'metrics.js':
    'export class Trend { constructor(name) { this.name = name; } add(value, tags) { globalThis.__k6stub.samples.push({ metric: this.name, value, tags }); } }\n',
  'execution.js': 'export default { scenario: { get iterationInTest() { return globalThis.__k6stub.iteration; } } };\n',
};

async function loadScript(
  env: Record<string, string>,
  shape = sustainedLoad({ fleetOrgs: 3 }),
  rateLimitReader?: RateLimitReader,
) {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-k6-script-'));
  mkdirSync(join(dir, 'node_modules', 'k6'), { recursive: true });
  for (const [file, text] of Object.entries(STUBS)) writeFileSync(join(dir, 'node_modules', 'k6', file), text);
  await exportK6Scripts({ outDir: dir, tiers: ['starter'], shapes: { starter: shape }, rateLimitReader });
  const stub: Stub = { requests: [], samples: [], callback: null, iteration: 0, status: 200 };
  const g = globalThis as unknown as { __k6stub: Stub; __ENV: Record<string, string> };
  g.__k6stub = stub;
  g.__ENV = { ...env };
  const module = (await import(/* @vite-ignore */ pathToFileURL(join(dir, 'starter.js')).href)) as {
    options: {
      scenarios: Record<string, Record<string, unknown>>;
      thresholds: Record<string, string[]>;
      discardResponseBodies: boolean;
    };
    hit: () => void;
    default: () => void;
  };
  return { module, stub, env: g.__ENV };
}

const ENV = {
  BASE_URL: 'http://127.0.0.1:8080/',
  TIERGATE_KEYS: 'starter-a=KEY_A, starter-b=KEY_B,starter-c=KEY_C',
  WINDOW_S: '2',
};

describe('the bundled starter script', () => {
  it('runs each phase as a constant-arrival-rate scenario at its multiple of the quota, one after another', async () => {
    const { module } = await loadScript(ENV);
    const { scenarios } = module.options;
    expect(Object.keys(scenarios)).toEqual(['at-quota', 'over-quota', 'fleet']);
    expect(scenarios['at-quota']).toMatchObject({
      executor: 'constant-arrival-rate',
      rate: 60,
      timeUnit: '2s',
      duration: '4s',
      startTime: '0s',
      exec: 'hit',
      env: { TIERGATE_PHASE_ORGS: '1' },
      tags: { phase: 'at-quota', tier: 'starter' },
    });
    expect(scenarios['over-quota']).toMatchObject({ rate: 120, timeUnit: '2s', duration: '4s', startTime: '4s' });
    expect(scenarios.fleet).toMatchObject({ rate: 180, startTime: '8s', env: { TIERGATE_PHASE_ORGS: '3' } });
    expect(module.options.thresholds).toEqual(sustainedLoad({ fleetOrgs: 3 }).thresholds);
    expect(module.options.discardResponseBodies).toBe(true);
  });

  it('declares 2xx and 429 the expected statuses', async () => {
    const { stub } = await loadScript(ENV);
    expect(stub.callback).toEqual({ expectedStatuses: [{ min: 200, max: 299 }, 429] });
  });

  it('sends each iteration for one org, round-robin, and emits its status and rate-limit headers as tagged samples', async () => {
    const { module, stub, env } = await loadScript(ENV);
    env.TIERGATE_PHASE_ORGS = '3';
    for (let i = 0; i < 4; i++) {
      stub.iteration = i;
      stub.status = i === 3 ? 429 : 200;
      module.hit();
    }
    expect(stub.requests.map((r) => [r.method, r.url, r.params.headers['x-api-key'], r.params.tags.org])).toEqual([
      ['GET', 'http://127.0.0.1:8080/recruiter/jobs', 'KEY_A', 'starter-a'],
      ['GET', 'http://127.0.0.1:8080/recruiter/jobs', 'KEY_B', 'starter-b'],
      ['GET', 'http://127.0.0.1:8080/recruiter/jobs', 'KEY_C', 'starter-c'],
      ['GET', 'http://127.0.0.1:8080/recruiter/jobs', 'KEY_A', 'starter-a'],
    ]);
    expect(stub.samples[0]).toEqual({
      metric: 'tiergate_remaining',
      value: 12,
      tags: {
        org: 'starter-a',
        tier: 'starter',
        status: '200',
        window: '1764000060',
        limit: '60',
        date: 'Mon, 24 Nov 2025 16:00:01 GMT',
      },
    });
    expect(stub.samples[3]).toMatchObject({ value: 0, tags: { org: 'starter-a', status: '429' } });
    // Samples carry the label, never the key.
    expect(JSON.stringify(stub.samples)).not.toContain('KEY_');
  });

  it('under a declared dialect, emits its figures and its fields as received, the policy it was told', async () => {
    const reader: RateLimitReader = { dialect: 'ietf', policies: { read: '10-in-3sec' } };
    const { module, stub } = await loadScript(ENV, sustainedLoad({ fleetOrgs: 3 }), reader);
    stub.headers = {
      Ratelimit: '"60-in-3sec"; r=59; t=3, "10-in-3sec"; r=0; t=2',
      'Ratelimit-Policy': '"60-in-3sec"; q=60; w=3; pk=:OGYxZmMyN2VlZmNj:, "10-in-3sec"; q=10; w=3',
      'X-Ratelimit-Remaining': '12',
      Date: 'Mon, 24 Nov 2025 16:00:01 GMT',
    };
    module.hit();
    expect(stub.samples).toEqual([
      {
        metric: 'tiergate_remaining',
        value: 0,
        tags: {
          org: 'starter-a',
          tier: 'starter',
          status: '200',
          date: 'Mon, 24 Nov 2025 16:00:01 GMT',
          dialect: 'ietf',
          policy: '10-in-3sec',
          window: '2',
          limit: '10',
          'field:ratelimit': stub.headers.Ratelimit,
          'field:ratelimit-policy': stub.headers['Ratelimit-Policy'],
        },
      },
    ]);
  });

  it('skips the fleet phase when given one key', async () => {
    const { module } = await loadScript({ ...ENV, TIERGATE_KEYS: 'KEY_A' });
    expect(Object.keys(module.options.scenarios)).toEqual(['at-quota', 'over-quota']);
  });

  it('paces by LIMIT when set (an Enterprise org with custom limits)', async () => {
    const { module } = await loadScript({ ...ENV, LIMIT: '3000' });
    expect(module.options.scenarios['at-quota']).toMatchObject({ rate: 3000 });
  });

  it('says what is missing when BASE_URL or the keys are not set', async () => {
    await expect(loadScript({ TIERGATE_KEYS: 'KEY_A' })).rejects.toThrow(/BASE_URL is not set/);
    await expect(loadScript({ BASE_URL: 'http://127.0.0.1:8080' })).rejects.toThrow(/TIERGATE_KEYS is empty/);
  });
});
