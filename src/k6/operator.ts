/**
 * `tiergate k6 operator`: a k6-operator TestRun per tier (https://grafana.com/docs/k6/latest/set-up/
 * set-up-distributed-k6/) and one ConfigMap holding the bundled scripts. With `parallelism: N`, k6
 * splits each scenario's arrival rate between N runner pods by execution segment, so the orgs still
 * get exactly their rate in total; `tiergate k6 ingest` then judges the N runners' output together.
 *
 * Runners write their samples to stdout (`--out json=-`, no summary, JSON logs), so each pod's log
 * is its NDJSON: `kubectl logs job/tiergate-starter-1 > starter-1.ndjson`. Keys and the base URL
 * come from a Secret, never from the manifest.
 *
 * With --revocation: a TestRun per region running the revocation vantage script (revocation.js),
 * its runner scheduled in that region (`topology.kubernetes.io/region`, the well-known node label),
 * named after it, the edges and the disposable keys from the Secret.
 */
import { K6_RUNNER_IMAGE, NO_SUMMARY_FLAG } from './version.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import YAML from 'yaml';
import type { TierName } from '../contract/types.ts';
import { UsageError } from '../util/errors.ts';
import type { K6Bundle } from './export.ts';

export const TESTRUN_API_VERSION = 'k6.io/v1alpha1';
/** A ConfigMap holds at most 1 MiB. */
const CONFIGMAP_MAX_BYTES = 1024 * 1024;
/** Kubernetes object names: DNS-1123 labels. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface OperatorOptions {
  readonly parallelism: number;
  readonly bundles: readonly Pick<K6Bundle, 'tier' | 'file' | 'code'>[];
  readonly namespace?: string;
  /** The API's base URL; absent: read from the Secret's `base-url`. */
  readonly baseUrl?: string | null;
  /** Quota window length, seconds, when the target does not use the contract's 60. */
  readonly windowS?: number | null;
  readonly secretName?: string;
  readonly configMapName?: string;
  readonly image?: string;
}

export interface OperatorManifests {
  readonly configMap: { readonly file: string; readonly yaml: string };
  /** `tier` null: a revocation vantage point's. */
  readonly testRuns: readonly {
    readonly tier: TierName | null;
    readonly name: string;
    readonly file: string;
    readonly yaml: string;
  }[];
}

/** What each runner's `k6 run` gets: samples on stdout as JSON, no end-of-test summary, logs as JSON (k6 1.3.0 and later; version.ts). */
export const K6_RUNNER_ARGUMENTS = `--out json=- ${NO_SUMMARY_FLAG} --log-format=json`;

function assertName(flag: string, name: string): void {
  if (!DNS_LABEL.test(name))
    throw new UsageError(
      `${flag} ${name}: expected a Kubernetes name (lower-case letters, digits and '-', at most 63)`,
    );
}

/** Names checked, the objects' metadata, and the ConfigMap holding `files` (at most 1 MiB). */
function scriptsConfigMap(
  options: Pick<OperatorOptions, 'namespace' | 'secretName' | 'configMapName'>,
  defaultName: string,
  files: Readonly<Record<string, string>>,
  comment: string,
) {
  const secretName = options.secretName ?? 'tiergate-k6';
  const configMapName = options.configMapName ?? defaultName;
  assertName('--secret', secretName);
  assertName('--config-map', configMapName);
  if (options.namespace !== undefined) assertName('--namespace', options.namespace);
  const metadata = (name: string) => ({ name, ...(options.namespace ? { namespace: options.namespace } : {}) });
  const bytes = Object.values(files).reduce((n, code) => n + Buffer.byteLength(code), 0);
  if (bytes > CONFIGMAP_MAX_BYTES)
    throw new UsageError(
      `k6 operator: the scripts take ${bytes} bytes, over a ConfigMap's 1 MiB; use fewer --tiers per ConfigMap`,
    );
  const doc = new YAML.Document({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...metadata(configMapName), labels: { 'app.kubernetes.io/name': 'tiergate' } },
    data: files,
  });
  doc.commentBefore = comment;
  return {
    secretName,
    configMapName,
    metadata,
    configMap: { file: 'configmap.yaml', yaml: doc.toString({ lineWidth: 0 }) },
  };
}

export function operatorManifests(options: OperatorOptions): OperatorManifests {
  const { parallelism } = options;
  checkParallelism(parallelism);
  const files = Object.fromEntries(options.bundles.map((b) => [b.file, b.code]));
  const { secretName, configMapName, metadata, configMap } = scriptsConfigMap(
    options,
    'tiergate-k6-scripts',
    files,
    ' The bundled tiergate k6 scripts (tiergate k6 export), one file per tier.',
  );

  const testRuns = options.bundles.map((b) => {
    const name = `tiergate-${b.tier}`;
    const secret = (key: string) => ({ valueFrom: { secretKeyRef: { name: secretName, key } } });
    const env = [
      options.baseUrl ? { name: 'BASE_URL', value: options.baseUrl } : { name: 'BASE_URL', ...secret('base-url') },
      { name: 'TIERGATE_KEYS', ...secret(`${b.tier}-keys`) },
      ...(options.windowS ? [{ name: 'WINDOW_S', value: String(options.windowS) }] : []),
    ];
    const doc = new YAML.Document({
      apiVersion: TESTRUN_API_VERSION,
      kind: 'TestRun',
      metadata: metadata(name),
      spec: {
        parallelism,
        script: { configMap: { name: configMapName, file: b.file } },
        arguments: K6_RUNNER_ARGUMENTS,
        runner: { image: options.image ?? K6_RUNNER_IMAGE, env },
      },
    });
    const ns = options.namespace ? ` -n ${options.namespace}` : '';
    doc.commentBefore = [
      ` tiergate sustained load for the ${b.tier} tier on k6-operator, ${parallelism} runner${parallelism === 1 ? '' : 's'}.`,
      ` 1. kubectl create secret generic ${secretName}${ns} --from-literal=base-url=https://api.example --from-literal=${b.tier}-keys='${b.tier}-a=KEY,${b.tier}-b=KEY'`,
      ` 2. kubectl apply${ns} -f configmap.yaml -f ${name}.yaml`,
      ` 3. when it has finished: for i in $(seq 1 ${parallelism}); do kubectl logs${ns} job/${name}-$i > ${name}-$i.ndjson; done`,
      ` 4. tiergate k6 ingest ${name}-*.ndjson   (judges all runners together)`,
    ].join('\n');
    return { tier: b.tier, name, file: `${name}.yaml`, yaml: doc.toString({ lineWidth: 0 }) };
  });
  return { configMap, testRuns };
}

export function writeOperatorManifests(outDir: string, options: OperatorOptions): Promise<OperatorManifests> {
  return writeManifests(outDir, operatorManifests(options));
}

/** k6-operator runners: a whole number from 1 to 1000, or a usage error naming the flag. */
export function checkParallelism(parallelism: number): void {
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > 1000) {
    throw new UsageError(`--parallelism ${parallelism}: expected a whole number from 1 to 1000`);
  }
}

/** The well-known node label of a cloud region (kubernetes.io/docs/reference/labels-annotations-taints). */
export const REGION_LABEL = 'topology.kubernetes.io/region';

export interface VantageOperatorOptions {
  /** Regions to watch from, one TestRun each. */
  readonly regions: readonly string[];
  /** revocation.js, as `exportRevocationScript` bundled it. */
  readonly code: string;
  readonly namespace?: string;
  readonly secretName?: string;
  readonly configMapName?: string;
  readonly image?: string;
}

/** A ConfigMap with revocation.js and a TestRun per region: each runner a revocation vantage point named after its region. */
export function vantageManifests(options: VantageOperatorOptions): OperatorManifests {
  if (options.regions.length === 0)
    throw new UsageError(
      'k6 operator --revocation: name at least one --region to watch from (a value of the topology.kubernetes.io/region node label)',
    );
  const { secretName, configMapName, metadata, configMap } = scriptsConfigMap(
    options,
    'tiergate-k6-revocation',
    { 'revocation.js': options.code },
    ' The tiergate revocation vantage script (tiergate k6 export --revocation).',
  );
  const secret = (key: string) => ({ valueFrom: { secretKeyRef: { name: secretName, key } } });
  const ns = options.namespace ? ` -n ${options.namespace}` : '';
  const testRuns = options.regions.map((region) => {
    const name = `tiergate-revocation-${region}`;
    assertName('--region', name);
    const doc = new YAML.Document({
      apiVersion: TESTRUN_API_VERSION,
      kind: 'TestRun',
      metadata: metadata(name),
      spec: {
        // One runner: its edges' VUs split between several would make several vantages of one region.
        parallelism: 1,
        script: { configMap: { name: configMapName, file: 'revocation.js' } },
        arguments: K6_RUNNER_ARGUMENTS,
        runner: {
          image: options.image ?? K6_RUNNER_IMAGE,
          nodeSelector: { [REGION_LABEL]: region },
          env: [
            { name: 'VANTAGE', value: region },
            { name: 'EDGES', ...secret('edges') },
            { name: 'TIERGATE_REVOCATION_KEYS', ...secret('revocation-keys') },
          ],
        },
      },
    });
    doc.commentBefore = [
      ` A tiergate revocation vantage point in ${region}: probes every edge with the run's disposable keys while the run revokes them.`,
      ` 1. kubectl create secret generic ${secretName}${ns} --from-literal=edges='edge-0=https://…,edge-1=https://…' --from-literal=revocation-keys='KEY1,KEY2,…'`,
      `    (the edges named as the run names them; the keys those of its revocation.hook.keys, in order)`,
      ` 2. kubectl apply${ns} -f configmap.yaml -f ${name}.yaml, before the run starts its trials`,
      ` 3. when the run is done: kubectl logs${ns} job/${name}-1 > ${region}.ndjson`,
      ` 4. tiergate k6 ingest --revocation reports/<run-id> ${options.regions.map((r) => `${r}.ndjson`).join(' ')}`,
    ].join('\n');
    return { tier: null, name, file: `${name}.yaml`, yaml: doc.toString({ lineWidth: 0 }) };
  });
  return { configMap, testRuns };
}

export async function writeManifests(outDir: string, manifests: OperatorManifests): Promise<OperatorManifests> {
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, manifests.configMap.file), manifests.configMap.yaml, 'utf8');
  for (const run of manifests.testRuns) await writeFile(join(outDir, run.file), run.yaml, 'utf8');
  return manifests;
}
