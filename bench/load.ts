/**
 * The sustained-load driver, measured on loopback against the reference target (in its own process,
 * so client and server each have a core):
 *
 *   1. throughput: the arrival-rate driver saturated (every response's status and rate-limit headers
 *      parsed into an Observation and folded into a LoadAggregator) vs plain autocannon, same target,
 *      same key, same connections: requests/s and client CPU per request, each as a ratio
 *      (aim: req/s ≥ 1.0×, CPU per request ≤ 1.0×);
 *   2. pacing at 1,000 and 5,000 req/s: achieved/target and send-time jitter p99 (actual send minus
 *      the even schedule), for the driver and for autocannon's `overallRate` (1 s buckets); and the
 *      driver at 5,000 req/s with the target busy (a saturating autocannon in a third process keeps
 *      the target's core full and the machine's two cores in use: aim p99 ≤ 2 ms);
 *   3. soak: RSS at start, peak and end over up to 1 M requests (or ~60 s), observations streamed to
 *      NDJSON on disk and latencies in HDR histograms (aim: flat, ≤ 200 MB).
 *
 * Each throughput round, pacing run and the soak runs in a fresh process (medians are reported), so
 * no client inherits another's heap or JIT state; the machine should otherwise be idle.
 *
 * Run: node --import tsx bench/load.ts [--quick]   Writes reports/bench-load.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { recruitingApi } from '../src/contract/recruiting-api.ts';
import { percentile } from '../src/verdicts/support/revocation-bounds.ts';
import { ArrivalRateDriver } from '../src/measure/arrival-rate.ts';
import { LoadAggregator } from '../src/measure/aggregate.ts';
import { LatencyHistogram } from '../src/measure/histogram.ts';
import { ObservationRecorder } from '../src/measure/recorder.ts';
import { OBSERVATIONS_FILE } from '../src/measure/observation-file.ts';
import { loadPhaseName } from '../src/measure/tags.ts';
import { AdminClient } from '../src/reference-server/admin-client.ts';

const quick = process.argv.includes('--quick');
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CONNECTIONS = 32;
const THROUGHPUT_S = quick ? 3 : 5;
const WARMUP_S = quick ? 2 : 3;
const ROUNDS = quick ? 2 : 5;
const PACING_S = quick ? 3 : 5;
const PACING_RUNS = quick ? 1 : 3;
const SOAK_MAX_REQUESTS = quick ? 100_000 : 1_000_000;
const SOAK_MAX_S = quick ? 15 : 60;
const PATH = '/recruiter/jobs';
/** Connections of the background load that keeps the target busy during the busy pacing run. */
const BUSY_CONNECTIONS = 4;

/** The reference target in a child process: one edge, 60 s windows. */
async function startTargetProcess(): Promise<{ edge: string; admin: string; stop: () => void }> {
  const code = `
    const { startTarget } = await import(${JSON.stringify(join(ROOT, 'src/reference-server/server.ts'))});
    const t = await startTarget({ edges: 1, windowMs: 60000, parseMs: 0 });
    process.stdout.write(JSON.stringify({ edge: t.edges[0], admin: t.adminUrl }) + '\\n');
    process.on('SIGTERM', () => t.close().then(() => process.exit(0)));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) resolve(buffered.split('\n')[0]!);
    });
    child.on('exit', (exitCode) => reject(new Error(`target exited with ${exitCode}`)));
  });
  const { edge, admin } = JSON.parse(line) as { edge: string; admin: string };
  return { edge, admin, stop: () => child.kill('SIGTERM') };
}

function driverFor(edge: string, connections: number) {
  const epoch = performance.now();
  let id = 0;
  const now = () => performance.now() - epoch;
  const driver = new ArrivalRateDriver({
    edges: [{ label: 'edge-0', url: edge }],
    headers: recruitingApi.headers,
    connectionsPerEdge: connections,
    timeoutMs: 10_000,
    now,
    wallNow: () => Date.now(),
    nextId: () => ++id,
    signal: new AbortController().signal,
  });
  return { driver, now };
}

async function driverThroughput(edge: string, key: string, seconds: number): Promise<number> {
  const { driver, now } = driverFor(edge, CONNECTIONS);
  const aggregator = new LoadAggregator(60);
  let headersSeen = 0;
  const stats = await driver.run({
    check: 'BENCH',
    phase: loadPhaseName('throughput'),
    request: { method: 'GET', path: PATH },
    streams: [{ org: 'bench', tier: 'enterprise', key, ratePerS: 10_000_000, maxInFlight: CONNECTIONS }],
    startAt: now(),
    durationMs: seconds * 1000,
    overrunMs: 0,
    sink: (o) => {
      if (o.rateLimit.remaining.value !== null) headersSeen += 1;
      aggregator.add(o);
    },
  });
  await driver.close();
  if (headersSeen !== stats.completed) throw new Error(`headers missing on ${stats.completed - headersSeen} responses`);
  return stats.completed / ((stats.endedAt - stats.startAt) / 1000);
}

async function autocannonThroughput(edge: string, key: string, seconds: number): Promise<number> {
  const result = await autocannon({
    url: `${edge}${PATH}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    headers: { [recruitingApi.headers.apiKey]: key },
  });
  return result.requests.total / seconds;
}

interface Pacing {
  readonly engine: 'tiergate' | 'autocannon';
  readonly targetRps: number;
  readonly achievedRps: number;
  readonly accuracy: number;
  readonly jitterP99Ms: number;
  readonly jitterMaxMs: number;
}

/** Deviation of each send from an even schedule starting at the first send. */
function jitter(sends: number[], rate: number): LatencyHistogram {
  sends.sort((a, b) => a - b);
  const h = new LatencyHistogram();
  const first = sends[0] ?? 0;
  for (const [i, t] of sends.entries()) h.record(Math.abs(t - (first + (i * 1000) / rate)));
  return h;
}

async function driverPacing(edge: string, key: string, rate: number, seconds = PACING_S): Promise<Pacing> {
  const { driver, now } = driverFor(edge, 256);
  const aggregator = new LoadAggregator(60);
  const startAt = now() + 50;
  const stats = await driver.run({
    check: 'BENCH',
    phase: loadPhaseName(`pacing-${rate}`),
    request: { method: 'GET', path: PATH },
    streams: [{ org: 'bench', tier: 'enterprise', key, ratePerS: rate, maxInFlight: 256 }],
    startAt,
    durationMs: seconds * 1000,
    sink: (o) => aggregator.add(o),
  });
  await driver.close();
  const achievedRps = stats.sent / seconds;
  return {
    engine: 'tiergate',
    targetRps: rate,
    achievedRps,
    accuracy: achievedRps / rate,
    jitterP99Ms: stats.sendLag.percentileMs(99) ?? 0,
    jitterMaxMs: stats.sendLag.maxMs() ?? 0,
  };
}

async function autocannonPacing(edge: string, key: string, rate: number, seconds = PACING_S): Promise<Pacing> {
  const sends: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${edge}${PATH}`,
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        overallRate: rate,
        headers: { [recruitingApi.headers.apiKey]: key },
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // autocannon reports a response's time; its send time is that far before now.
    instance.on('response', (_client, _status, _bytes, responseTime) => sends.push(performance.now() - responseTime));
  });
  const h = jitter(sends, rate);
  const achievedRps = result.requests.total / seconds;
  return {
    engine: 'autocannon',
    targetRps: rate,
    achievedRps,
    accuracy: achievedRps / rate,
    jitterP99Ms: h.percentileMs(99) ?? 0,
    jitterMaxMs: h.maxMs() ?? 0,
  };
}

async function soak(edge: string, key: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-bench-soak-'));
  const recorder = new ObservationRecorder(join(dir, OBSERVATIONS_FILE));
  const aggregator = new LoadAggregator(60);
  const { driver, now } = driverFor(edge, CONNECTIONS);
  const mb = () => process.memoryUsage().rss / 1024 / 1024;
  globalThis.gc?.();
  const start = mb();
  let peak = start;
  const started = now();
  const timeline: { atS: number; rssMb: number; heapMb: number }[] = [];
  let tick = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, mb());
    if (++tick % 20 === 0)
      timeline.push({
        atS: Math.round((now() - started) / 1000),
        rssMb: Math.round(mb()),
        heapMb: Math.round(process.memoryUsage().heapUsed / 1048576),
      });
  }, 250);
  const stats = await driver.run({
    check: 'BENCH',
    phase: loadPhaseName('soak'),
    request: { method: 'GET', path: PATH },
    streams: [{ org: 'bench', tier: 'enterprise', key, ratePerS: 10_000_000, maxInFlight: CONNECTIONS }],
    startAt: now(),
    durationMs: SOAK_MAX_S * 1000,
    maxRequests: SOAK_MAX_REQUESTS,
    overrunMs: 0,
    sink: (o) => {
      aggregator.add(o);
      recorder.record(o);
    },
  });
  await recorder.close();
  await driver.close();
  clearInterval(sampler);
  const end = mb();
  peak = Math.max(peak, end);
  const fileMb = statSync(join(dir, OBSERVATIONS_FILE)).size / 1024 / 1024;
  rmSync(dir, { recursive: true, force: true });
  return {
    requests: stats.completed + stats.failed,
    seconds: (now() - started) / 1000,
    rssStartMb: start,
    rssPeakMb: peak,
    rssEndMb: end,
    ndjsonMb: fileMb,
    timeline,
  };
}

type ChildMode =
  | 'tiergate-throughput'
  | 'autocannon-throughput'
  | 'soak'
  | 'busy'
  | `pacing-${'tiergate' | 'autocannon'}-${number}`;

/** Saturate the target from a process of its own (autocannon, few connections) until killed. */
function busyTarget(edge: string, key: string): () => void {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', 'busy'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_EDGE: edge, BENCH_KEY: key },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return () => child.kill('SIGTERM');
}

/**
 * Throughput rounds and the soak each run in a fresh process: neither client inherits the other's
 * heap, JIT state or garbage, and the soak's RSS is the driver's alone.
 */
async function inChild<T>(mode: ChildMode, edge: string, key: string): Promise<T> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--child', mode, ...(quick ? ['--quick'] : [])],
    {
      cwd: ROOT,
      // The key travels in the environment, never in arguments.
      env: { ...process.env, BENCH_EDGE: edge, BENCH_KEY: key },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`bench child ${mode} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}

/** A throughput round: warm the client for a while, then measure. */
interface Throughput {
  readonly rps: number;
  /** Client CPU (user + system) per request, µs: the client's own cost, whatever the server's speed. */
  readonly cpuUsPerRequest: number;
}

async function throughputRound(client: 'tiergate' | 'autocannon', edge: string, key: string): Promise<Throughput> {
  const measure = client === 'tiergate' ? driverThroughput : autocannonThroughput;
  await measure(edge, key, WARMUP_S);
  const cpu = process.cpuUsage();
  const rps = await measure(edge, key, THROUGHPUT_S);
  const used = process.cpuUsage(cpu);
  return { rps, cpuUsPerRequest: (used.user + used.system) / (rps * THROUGHPUT_S) };
}

/** A pacing run after a short warm-up at the same rate (the JIT, the connections). */
async function pacingRun(engine: 'tiergate' | 'autocannon', edge: string, key: string, rate: number): Promise<Pacing> {
  const run = engine === 'tiergate' ? driverPacing : autocannonPacing;
  await run(edge, key, rate, 2);
  return run(edge, key, rate);
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const mode = process.argv[childAt + 1] as ChildMode;
  const edge = process.env.BENCH_EDGE!;
  const key = process.env.BENCH_KEY!;
  const pacingMode = /^pacing-(tiergate|autocannon)-(\d+)$/.exec(mode);
  if (mode === 'busy') {
    // Bounded: the parent kills it after the pacing run; it ends by itself well after that.
    await autocannon({
      url: `${edge}${PATH}`,
      connections: BUSY_CONNECTIONS,
      pipelining: 1,
      duration: 120,
      headers: { [recruitingApi.headers.apiKey]: key },
    });
    process.exit(0);
  }
  const result =
    mode === 'soak'
      ? await soak(edge, key)
      : pacingMode
        ? await pacingRun(pacingMode[1] as 'tiergate' | 'autocannon', edge, key, Number(pacingMode[2]))
        : await throughputRound(mode === 'tiergate-throughput' ? 'tiergate' : 'autocannon', edge, key);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const target = await startTargetProcess();
try {
  const admin = new AdminClient(target.admin);
  const org = await admin.createOrg('enterprise', 'bench', { read: 1_000_000_000, concurrency: 1_000_000 });
  const { key } = await admin.createKey(org.id, ['jobs.read'], 'test');
  // Warm the target's JIT: its throughput climbs for several seconds after start.
  await autocannonThroughput(target.edge, key, WARMUP_S * 2);
  // Alternate which goes first, so neither benefits from running later; compare medians.
  const rounds: { tiergate: Throughput; autocannon: Throughput }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const first = i % 2 === 0 ? 'tiergate' : 'autocannon';
    const a = await inChild<Throughput>(`${first}-throughput`, target.edge, key);
    const b = await inChild<Throughput>(
      `${first === 'tiergate' ? 'autocannon' : 'tiergate'}-throughput`,
      target.edge,
      key,
    );
    rounds.push(first === 'tiergate' ? { tiergate: a, autocannon: b } : { tiergate: b, autocannon: a });
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((x, y) => x - y),
      50,
    )!;
  const best = {
    tiergate: median(rounds.map((r) => r.tiergate.rps)),
    autocannon: median(rounds.map((r) => r.autocannon.rps)),
  };
  const cpu = {
    tiergate: median(rounds.map((r) => r.tiergate.cpuUsPerRequest)),
    autocannon: median(rounds.map((r) => r.autocannon.cpuUsPerRequest)),
  };
  // Ratios within a round (the two ran back to back), then their median: a machine whose load drifts
  // between rounds moves both sides of a ratio alike.
  const ratio = {
    rps: median(rounds.map((r) => r.tiergate.rps / r.autocannon.rps)),
    cpu: median(rounds.map((r) => r.tiergate.cpuUsPerRequest / r.autocannon.cpuUsPerRequest)),
  };
  // Pacing: each run in a fresh process, the median jitter of PACING_RUNS runs.
  const pacing: Pacing[] = [];
  for (const rate of [1000, 5000]) {
    for (const engine of ['tiergate', 'autocannon'] as const) {
      const runs: Pacing[] = [];
      for (let i = 0; i < PACING_RUNS; i++)
        runs.push(await inChild<Pacing>(`pacing-${engine}-${rate}`, target.edge, key));
      runs.sort((a, b) => a.jitterP99Ms - b.jitterP99Ms);
      pacing.push(runs[Math.floor((runs.length - 1) / 2)]!);
    }
  }
  // The driver at 5,000 req/s while another process keeps the target's core full.
  const busyRuns: Pacing[] = [];
  for (let i = 0; i < PACING_RUNS; i++) {
    const stop = busyTarget(target.edge, key);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      busyRuns.push(await inChild<Pacing>('pacing-tiergate-5000', target.edge, key));
    } finally {
      stop();
    }
  }
  busyRuns.sort((a, b) => a.jitterP99Ms - b.jitterP99Ms);
  const busy = busyRuns[Math.floor((busyRuns.length - 1) / 2)]!;
  const soaked = await inChild<Awaited<ReturnType<typeof soak>>>('soak', target.edge, key);

  const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const lines = [
    `throughput (${CONNECTIONS} connections, ${THROUGHPUT_S} s after ${WARMUP_S} s warm-up, each in a fresh process; median of ${rounds.length}):`,
    `                                   tiergate (headers captured)   autocannon (plain)   ratio (median of per-round ratios)`,
    `  req/s                            ${f(best.tiergate).padStart(27)}   ${f(best.autocannon).padStart(18)}   ${f(ratio.rps, 2).padStart(5)}   (aim ≥ 1.00)`,
    `  client CPU µs/request            ${f(cpu.tiergate, 1).padStart(27)}   ${f(cpu.autocannon, 1).padStart(18)}   ${f(ratio.cpu, 2).padStart(5)}   (aim ≤ 1.00)`,
    `  rounds (tiergate/autocannon req/s)        ${rounds.map((r) => `${f(r.tiergate.rps)}/${f(r.autocannon.rps)}`).join('  ')}`,
    `pacing (${PACING_S} s, median of ${PACING_RUNS}; busy: ${BUSY_CONNECTIONS}-connection autocannon on the target meanwhile):`,
    `  ${'engine'.padEnd(22)} ${'target'.padStart(8)} ${'achieved'.padStart(11)} ${'accuracy'.padStart(10)} ${'jitter p99'.padStart(12)} ${'jitter max'.padStart(12)}`,
    ...[...pacing, { ...busy, engine: 'tiergate, target busy' }].map(
      (p) =>
        `  ${p.engine.padEnd(22)} ${f(p.targetRps).padStart(8)} ${f(p.achievedRps).padStart(11)} ${f(p.accuracy, 3).padStart(10)} ${`${f(p.jitterP99Ms, 2)} ms`.padStart(12)} ${`${f(p.jitterMaxMs, 1)} ms`.padStart(12)}`,
    ),
    `soak: ${f(soaked.requests)} requests in ${f(soaked.seconds, 1)} s (${f(soaked.requests / soaked.seconds)} req/s), observations (gzip) ${f(soaked.ndjsonMb, 1)} MB`,
    `  RSS start ${f(soaked.rssStartMb)} MB, peak ${f(soaked.rssPeakMb)} MB, end ${f(soaked.rssEndMb)} MB   (aim: flat, ≤ 200 MB)`,
    `  every 5 s, RSS/heap MB: ${soaked.timeline.map((t) => `${t.rssMb}/${t.heapMb}`).join(' ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  const report = {
    bench: 'load',
    quick,
    node: process.version,
    at: new Date().toISOString(),
    summary: { rpsRatio: ratio.rps, cpuPerRequestRatio: ratio.cpu, jitterP99MsAt5000TargetBusy: busy.jitterP99Ms },
    throughput: {
      connections: CONNECTIONS,
      seconds: THROUGHPUT_S,
      warmupSeconds: WARMUP_S,
      rounds,
      median: best,
      ratio: ratio.rps,
      cpuUsPerRequest: cpu,
      cpuRatio: ratio.cpu,
    },
    pacing,
    pacingTargetBusy: { backgroundConnections: BUSY_CONNECTIONS, runs: busyRuns, median: busy },
    soak: soaked,
  };
  writeFileSync(join(ROOT, 'reports', 'bench-load.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote reports/bench-load.json\n`);
} finally {
  target.stop();
}
