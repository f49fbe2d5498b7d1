/**
 * Throughput of the reference target: autocannon against GET /recruiter/jobs with a huge-quota
 * Enterprise key, counting the responses that carried the §8 headers and X-Edge-Node.
 * The target runs in a worker thread so it and the load generator each get a core; how busy the
 * target's thread was tells which of the two set the figure.
 * Run: node --import tsx bench/target.ts [seconds] [connections]
 */
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { SCOPE_NAMES } from '../src/contract/types.ts';
import { redactKey } from '../src/contract/keys.ts';
import { AdminClient } from '../src/reference-server/admin-client.ts';
import { startTarget } from '../src/reference-server/server.ts';

interface Ready {
  readonly url: string;
  readonly key: string;
}

const HUGE = { read: 1_000_000_000, ingest: 1_000_000_000, concurrency: 100_000 };
/** Requests/s one edge should serve with 50 connections. Why this figure: docs/decisions/bench-aims.md */
const AIM_RPS = 25_000;
const REQUIRED = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-edge-node'];

/** Worker side: start the target, provision the org and key, hand them over, close on request. */
async function serveInWorker(): Promise<void> {
  const target = await startTarget({ edges: 1, windowMs: 60_000 });
  const admin = new AdminClient(target.adminUrl);
  const org = await admin.createOrg('enterprise', 'bench', HUGE);
  const { key } = await admin.createKey(org.id, SCOPE_NAMES, 'test');
  parentPort!.once('message', () => void target.close().then(() => process.exit(0)));
  parentPort!.postMessage({ url: target.edges[0]!, key } satisfies Ready);
}

async function bench(seconds: number, connections: number): Promise<void> {
  // tsx's loader hooks do not reach worker threads on Node 20: register them in the worker first.
  const self = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${self}); })`, {
    eval: true,
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const before = worker.performance.eventLoopUtilization();
  let withHeaders = 0;
  let without = 0;
  const result = await autocannon({
    url: ready.url,
    connections,
    pipelining: 1,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path: '/recruiter/jobs',
        headers: { 'x-api-key': ready.key },
        onResponse: (_status, _body, _context, headers) => {
          const names = new Set(Object.keys(headers ?? {}).map((h) => h.toLowerCase()));
          if (REQUIRED.every((h) => names.has(h))) withHeaders += 1;
          else without += 1;
        },
      },
    ],
  });
  const busy = worker.performance.eventLoopUtilization(before).utilization;
  worker.postMessage('close');
  await new Promise((resolve) => worker.once('exit', resolve));

  const rps = Math.round(result.requests.average);
  const lines = [
    `tiergate reference target: GET /recruiter/jobs, ${connections} connections, ${result.duration.toFixed(1)} s, key ${redactKey(ready.key)}`,
    `  requests/s   ${rps} (average: ${(rps / AIM_RPS).toFixed(2)} of the aim of ${AIM_RPS}), ${result.requests.max} (best second)`,
    `  target       its thread busy ${Math.round(busy * 100)}% of the run (well below 100%: the load generator or the machine set the pace, not the target)`,
    `  latency      p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
    `  responses    ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors`,
    `  headers      ${withHeaders} of ${withHeaders + without} responses carried X-RateLimit-Limit/-Remaining/-Reset and X-Edge-Node`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (without > 0 || result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
}

if (isMainThread) await bench(Number(process.argv[2] ?? 5), Number(process.argv[3] ?? 50));
else await serveInWorker();
