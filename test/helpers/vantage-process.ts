/**
 * A k6-style revocation vantage point for the tests (k6 itself cannot be installed here): what
 * scenarios/k6/revocation.ts does, in Node, writing the lines k6's `--out json` writes for it. It
 * takes the script's environment (VANTAGE, EDGES, TIERGATE_REVOCATION_KEYS, WATCH, INTERVAL_MS,
 * SETTLE_MS, DURATION_S), and two of its own: OUT, the file to write, and SKEW_MS, added to every
 * time it reads, so it runs on a clock skewed by a known offset. It prints "probing" once every
 * edge has answered, and stops when every key is settled on every edge, at DURATION_S, or on SIGTERM.
 *
 *   node --import tsx test/helpers/vantage-process.ts
 */
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { KeyWatch, probeTags, readVantageEnv, REVOCATION_PROBE_METRIC } from '../../src/k6/revocation-watch.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';

const env = process.env;
const skewMs = Number(env['SKEW_MS'] ?? 0);
const now = () => Date.now() + skewMs;
const {
  edges,
  intervalMs,
  durationS,
  watch: options,
  vantage: named,
} = readVantageEnv(env, recruitingApi.statuses.unauthenticated);
const keys = options.keys;
const vantage = named ?? 'vantage';
const out = createWriteStream(env['OUT']!);
const end = Date.now() + durationS * 1000;
let stopping = false;
process.on('SIGTERM', () => (stopping = true));

out.write(
  `${JSON.stringify({ type: 'Metric', metric: REVOCATION_PROBE_METRIC, data: { type: 'trend', contains: 'default', thresholds: [], submetrics: null } })}\n`,
);

async function probe(
  edge: { label: string; url: string },
  key: string,
): Promise<{ status: number | null; date: string | null; node: string | null }> {
  try {
    const res = await request(`${edge.url}/recruiter/bootstrap`, {
      method: 'HEAD',
      headers: { [recruitingApi.headers.apiKey]: key },
      headersTimeout: 10_000,
    });
    await res.body.dump();
    const header = (name: string) => {
      const value = res.headers[name];
      return typeof value === 'string' ? value : null;
    };
    return { status: res.statusCode, date: header('date'), node: header(recruitingApi.headers.edgeNode.toLowerCase()) };
  } catch {
    return { status: null, date: null, node: null };
  }
}

let answered = 0;
async function probeEdge(edge: { label: string; url: string }): Promise<void> {
  const watch = new KeyWatch(options);
  let first = true;
  const maxSlots = Math.ceil((end - Date.now()) / intervalMs) + 1;
  for (let slot = 0; slot < maxSlots && !stopping && Date.now() < end; slot++) {
    const open = watch.open();
    if (open.length === 0) return;
    const sentWall = now();
    await Promise.all(
      open.map(async (index) => {
        const answer = await probe(edge, keys[index]!);
        const inWall = now();
        watch.record(index, answer.status);
        const tags = probeTags(vantage, edge.label, keys[index]!, answer.status, answer.date, answer.node);
        out.write(
          `${JSON.stringify({ type: 'Point', metric: REVOCATION_PROBE_METRIC, data: { time: new Date(inWall).toISOString(), value: sentWall, tags } })}\n`,
        );
      }),
    );
    if (first && ++answered === edges.length) process.stdout.write('probing\n');
    first = false;
    await sleep(Math.max(0, sentWall + intervalMs - now()));
  }
}

await Promise.all(edges.map(probeEdge));
await new Promise<void>((resolve) => out.end(resolve));
