/** The k6-operator manifests: a TestRun per tier and a ConfigMap of the bundled scripts, as YAML Kubernetes reads. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../../src/cli.ts';
import { operatorManifests, REGION_LABEL, vantageManifests } from '../../src/k6/operator.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';
import { NEWEST_TESTED_K6 } from '../../src/k6/version.ts';
import { captureIo } from '../helpers/capture-io.ts';

const bundles = [
  {
    tier: 'starter' as const,
    file: 'starter.js',
    code: 'import http from "k6/http";\nexport default function () {}\n',
  },
  {
    tier: 'enterprise' as const,
    file: 'enterprise.js',
    code: 'import http from "k6/http";\nexport default function () {}\n',
  },
];

describe('operatorManifests', () => {
  it('writes a TestRun per tier with the parallelism, script and runner arguments', () => {
    const m = operatorManifests({ parallelism: 4, bundles, namespace: 'load' });
    expect(m.testRuns.map((r) => r.file)).toEqual(['tiergate-starter.yaml', 'tiergate-enterprise.yaml']);
    const run = YAML.parse(m.testRuns[0]!.yaml);
    expect(run).toMatchObject({
      apiVersion: 'k6.io/v1alpha1',
      kind: 'TestRun',
      metadata: { name: 'tiergate-starter', namespace: 'load' },
      spec: { parallelism: 4, script: { configMap: { name: 'tiergate-k6-scripts', file: 'starter.js' } } },
    });
    expect(run.spec.arguments).toBe('--out json=- --summary-mode=disabled --log-format=json');
    // A pinned runner image: the k6 release the flags were checked against, never a moving `latest`.
    expect(run.spec.runner.image).toBe(`grafana/k6:${NEWEST_TESTED_K6}`);
    expect(
      YAML.parse(operatorManifests({ parallelism: 1, bundles, image: 'grafana/k6:1.8.1' }).testRuns[0]!.yaml).spec
        .runner.image,
    ).toBe('grafana/k6:1.8.1');
    // Keys and the base URL come from a Secret, never from the manifest.
    expect(run.spec.runner.env).toEqual([
      { name: 'BASE_URL', valueFrom: { secretKeyRef: { name: 'tiergate-k6', key: 'base-url' } } },
      { name: 'TIERGATE_KEYS', valueFrom: { secretKeyRef: { name: 'tiergate-k6', key: 'starter-keys' } } },
    ]);
    expect(m.testRuns[0]!.yaml).toMatch(/^# tiergate sustained load for the starter tier on k6-operator, 4 runners/);
    expect(m.testRuns[0]!.yaml).toContain('tiergate k6 ingest tiergate-starter-*.ndjson');
  });

  it('holds the bundled scripts in one ConfigMap', () => {
    const m = operatorManifests({ parallelism: 1, bundles, baseUrl: 'https://api.example', windowS: 60 });
    const cm = YAML.parse(m.configMap.yaml);
    expect(cm).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tiergate-k6-scripts' } });
    expect(cm.data).toEqual({ 'starter.js': bundles[0]!.code, 'enterprise.js': bundles[1]!.code });
    const env = YAML.parse(m.testRuns[1]!.yaml).spec.runner.env;
    expect(env[0]).toEqual({ name: 'BASE_URL', value: 'https://api.example' });
    expect(env[2]).toEqual({ name: 'WINDOW_S', value: '60' });
  });

  it.each([0, 1.5, -2])('refuses parallelism %s', (parallelism) => {
    expect(() => operatorManifests({ parallelism, bundles })).toThrow(expect.objectContaining({ name: 'UsageError' }));
  });

  it('refuses a namespace that is not a Kubernetes name', () => {
    expect(() => operatorManifests({ parallelism: 1, bundles, namespace: 'Load Tests' })).toThrow(
      /--namespace Load Tests: expected a Kubernetes name/,
    );
  });
});

describe('tiergate k6 operator (CLI)', () => {
  it('writes the ConfigMap and one TestRun per tier', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tiergate-k6-operator-'));
    const cap = captureIo();
    const code = await main(
      ['k6', 'operator', '--parallelism', '3', '--out', out, '--tiers', 'starter,professional'],
      cap.io,
    );
    expect({ code, stderr: cap.stderr() }).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(out).sort()).toEqual([
      'configmap.yaml',
      'professional.js',
      'starter.js',
      'tiergate-professional.yaml',
      'tiergate-starter.yaml',
    ]);
    const run = YAML.parse(readFileSync(join(out, 'tiergate-professional.yaml'), 'utf8'));
    expect(run).toMatchObject({
      kind: 'TestRun',
      spec: { parallelism: 3, script: { configMap: { file: 'professional.js' } } },
    });
    const cm = YAML.parse(readFileSync(join(out, 'configmap.yaml'), 'utf8'));
    expect(cm.data['starter.js']).toBe(readFileSync(join(out, 'starter.js'), 'utf8'));
  });
});

describe('revocation vantage points on k6-operator', () => {
  it('a TestRun per region: one runner scheduled there, named after it, the edges and keys from the Secret, never in the manifest', () => {
    const m = vantageManifests({
      regions: ['eu-west-1', 'us-east-1'],
      code: 'import http from "k6/http";\n',
      namespace: 'load',
    });
    expect(m.testRuns.map((r) => r.file)).toEqual([
      'tiergate-revocation-eu-west-1.yaml',
      'tiergate-revocation-us-east-1.yaml',
    ]);
    const run = YAML.parse(m.testRuns[0]!.yaml);
    expect(run).toMatchObject({
      kind: 'TestRun',
      metadata: { name: 'tiergate-revocation-eu-west-1', namespace: 'load' },
      spec: {
        parallelism: 1,
        script: { configMap: { name: 'tiergate-k6-revocation', file: 'revocation.js' } },
        runner: { nodeSelector: { [REGION_LABEL]: 'eu-west-1' } },
      },
    });
    expect(run.spec.runner.env).toEqual([
      { name: 'VANTAGE', value: 'eu-west-1' },
      { name: 'EDGES', valueFrom: { secretKeyRef: { name: 'tiergate-k6', key: 'edges' } } },
      {
        name: 'TIERGATE_REVOCATION_KEYS',
        valueFrom: { secretKeyRef: { name: 'tiergate-k6', key: 'revocation-keys' } },
      },
    ]);
    expect(m.testRuns[0]!.yaml).toContain(
      'tiergate k6 ingest --revocation reports/<run-id> eu-west-1.ndjson us-east-1.ndjson',
    );
    expect(YAML.parse(m.configMap.yaml).data['revocation.js']).toBe('import http from "k6/http";\n');
  });

  it('refuses no region, or one that cannot name a Kubernetes object', () => {
    expect(() => vantageManifests({ regions: [], code: '' })).toThrow(/name at least one --region/);
    expect(() => vantageManifests({ regions: ['EU West'], code: '' })).toThrow(
      /--region tiergate-revocation-EU West: expected a Kubernetes name/,
    );
  });

  it('tiergate k6 operator --revocation --region writes revocation.js, its ConfigMap and a TestRun per region; the tier flags are refused', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tiergate-k6-vantages-'));
    const cli = await runCli([
      'k6',
      'operator',
      '--revocation',
      '--region',
      'eu-west-1',
      '--region',
      'ap-south-1',
      '--out',
      out,
    ]);
    expect({ code: cli.code, stderr: cli.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(out).sort()).toEqual([
      'configmap.yaml',
      'revocation.js',
      'tiergate-revocation-ap-south-1.yaml',
      'tiergate-revocation-eu-west-1.yaml',
    ]);
    expect(YAML.parse(readFileSync(join(out, 'configmap.yaml'), 'utf8')).data['revocation.js']).toBe(
      readFileSync(join(out, 'revocation.js'), 'utf8'),
    );
    expectUsageError(
      await runCli(['k6', 'operator', '--revocation', '--region', 'eu-west-1', '--parallelism', '2', '--out', out]),
      /k6 operator --revocation: --parallelism does not apply/,
    );
    expectUsageError(
      await runCli(['k6', 'operator', '--region', 'eu-west-1', '--parallelism', '2', '--out', out]),
      /k6 operator: --region applies only with --revocation/,
    );
  }, 30_000);
});
