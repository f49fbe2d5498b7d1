/**
 * A revocation vantage point: probes every edge with the run's disposable keys while a tiergate run
 * revokes them, so the run's REVOKE-LATENCY can be judged as seen from here too (README
 * "Revocation from several vantage points"). Start it before the run, wherever k6 runs (several
 * machines, k6-operator runners in several regions), then merge:
 *
 *   k6 run -e VANTAGE=eu-west -e EDGES=edge-0=https://eu.api.example,edge-1=https://us.api.example \
 *          -e TIERGATE_REVOCATION_KEYS=KEY1,KEY2,... --out json=eu-west.json revocation.js
 *   tiergate k6 ingest --revocation reports/<run-id> eu-west.json us-east.json ...
 *
 * Environment:
 *   VANTAGE                   this vantage point's name (default: the ingest names it by its file)
 *   EDGES                     label=base-url, comma-separated: name the edges as the run does (edge-0,
 *                             edge-1, ... in the order of its config's target.edges), so the edges
 *                             both probe set this vantage's clock against the run's
 *   TIERGATE_REVOCATION_KEYS  the run's revocation.hook.keys, in the same order (sent, never recorded:
 *                             probes carry the key's prefix and last four only)
 *   WATCH                     keys probed at once (default 14: twice the trials a run takes at once by
 *                             default, 7; with --revocation-parallel N, 2N is enough)
 *   INTERVAL_MS               one probe per edge this often (default 50)
 *   SETTLE_MS                 a key rejected this long in a row is done (default 1000)
 *   DURATION_S                probing stops after this long at the latest (default 600): longer than
 *                             the run's revocation trials take, since keys the run never revokes
 *                             (a list longer than it needs) are probed until then
 *
 * One VU per edge, each probing HEAD /recruiter/bootstrap with every watched key at once each slot, recording every answer as one
 * tiergate_revocation_probe sample: its value the send time on this machine's clock (epoch ms), its
 * time when the answer was in, its tags the edge, key, status, Date header and edge node. The clock
 * is never trusted: `tiergate k6 ingest` places it from the Date headers.
 */
import exec from 'k6/execution';
import http from 'k6/http';
import { sleep } from 'k6';
import { Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { KeyWatch, probeTags, readVantageEnv, REVOCATION_PROBE_METRIC } from '../../src/k6/revocation-watch.ts';
import { headerOf } from './lib/headers.ts';

const contract = recruitingApi;

const env = readVantageEnv(__ENV, contract.statuses.unauthenticated);
const { edges, intervalMs, durationS } = env;
const keys = env.watch.keys;
// Keys shown alike stop the script here, at init, before anything is sent (KeyWatch refuses them).
new KeyWatch(env.watch);

const probeMetric = new Trend(REVOCATION_PROBE_METRIC);

export const options: Options = {
  // Every watched key in one batch per slot, none queued behind another (k6 sends 20 per batch and 6 per host by default).
  batch: env.watch.watch,
  batchPerHost: env.watch.watch,
  scenarios: {
    revocation: { executor: 'per-vu-iterations', vus: edges.length, iterations: 1, maxDuration: `${durationS}s` },
  },
};

export default function probeEdge(): void {
  const edge = edges[(exec.vu.idInTest - 1) % edges.length]!;
  // Unnamed, the ingest names a vantage by its output file.
  const vantage = env.vantage ?? '';
  const watch = new KeyWatch(env.watch);
  const url = `${edge.url}/recruiter/bootstrap`;
  const end = Date.now() + durationS * 1000;
  const maxSlots = Math.ceil((durationS * 1000) / intervalMs) + 1;
  for (let slot = 0; slot < maxSlots && Date.now() < end; slot++) {
    const open = watch.open();
    if (open.length === 0) return;
    const sentWall = Date.now();
    const answers = http.batch(
      open.map(
        (index) =>
          [
            'HEAD',
            url,
            null,
            {
              headers: { [contract.headers.apiKey]: keys[index]! },
              tags: { name: 'revocation-probe' },
              timeout: '10s',
            },
          ] as const,
      ),
    );
    answers.forEach((res, i) => {
      const index = open[i]!;
      const status = res.status > 0 ? res.status : null;
      watch.record(index, status);
      probeMetric.add(
        sentWall,
        probeTags(
          vantage,
          edge.label,
          keys[index]!,
          status,
          headerOf(res.headers, 'date'),
          headerOf(res.headers, contract.headers.edgeNode),
        ),
      );
    });
    const wait = sentWall + intervalMs - Date.now();
    if (wait > 0) sleep(wait / 1000);
  }
}
