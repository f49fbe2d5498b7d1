/**
 * REVOKE-LATENCY with vantage points, on recorded probes (no network): vantages on clocks skewed by
 * known offsets against edges whose own clock is off too. Every probe's Date is what a server on
 * that clock stamps; a probe takes 4 ms. The expected offsets and moments come from the skews the
 * data were made with, never from the code under test.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import type { Observation } from '../../src/measure/observation.ts';
import { revokeLatencyVerdict, type LatencyData } from '../../src/verdicts/revoke-latency.ts';
import { placeVantage, serverOffsets, type VantagePoint } from '../../src/verdicts/support/vantage-bounds.ts';
import { obs, resetObservations } from '../helpers/observations.ts';
import { clean, EDGES, evidence, run } from '../helpers/revocation-fixtures.ts';

/** The fixtures' revoke call, on the run's wall clock (revokeStartedWall). */
const REVOKE_WALL = 1_700_000_000_000;
/** The edges' clock is this far ahead of true time; the run's clock is true time. */
const EDGE_CLOCK_MS = 1234;
const KEY = 'xh_test_…AAAA';

/** Probes every 25 ms from 2 s before the revoke call to 4 s after, by a sender whose clock is `skewMs` ahead; rejected from `rejectAtMs` after the revoke call. */
function probes(
  edge: string,
  skewMs: number,
  rejectAtMs: number,
  key = KEY,
  node = { name: edge, clockMs: EDGE_CLOCK_MS },
): Observation[] {
  const out: Observation[] = [];
  for (let t = -2000; t <= 4000; t += 25) {
    const sentWall = REVOKE_WALL + t + skewMs;
    out.push(
      obs({
        edge,
        key,
        method: 'HEAD',
        sentAt: sentWall,
        sentWall,
        latencyMs: 4,
        clockOffsetMs: node.clockMs - skewMs,
        status: t + 2 < rejectAtMs ? 200 : 401,
        edgeNode: node.name,
        phase: 'vantage',
        check: 'REVOKE-LATENCY',
      }),
    );
  }
  return out;
}

const runTrial = () => run({ probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) });
/** The run's own probes, for its clock: on the edges it probed, on true time. */
const runProbes = () => EDGES.flatMap((e) => probes(e, 0, 300));
const point = (name: string, skewMs: number, edges: Readonly<Record<string, number>>): VantagePoint => ({
  name,
  probes: Object.entries(edges).flatMap(([edge, rejectAt]) => probes(edge, skewMs, rejectAt)),
});

function judged(points: readonly VantagePoint[], dateLagMs = 0) {
  const e = { ...evidence([runTrial()]), vantages: { run: 'this run', runProbes: runProbes(), points, dateLagMs } };
  const found = revokeLatencyVerdict(e);
  return { found, data: found.data as LatencyData };
}

beforeEach(() => resetObservations());

describe('a vantage clock placed against the run’s', () => {
  test.each([0, 7300, -4200, 999])('a vantage %i ms ahead is placed there, within a few ms', (skewMs) => {
    const run = serverOffsets(runProbes(), 0);
    const placed = placeVantage(run, point('v', skewMs, { 'edge-0': 300, 'edge-1': 300 }), 0);
    // run = vantage + offset: a vantage `skewMs` ahead needs −skewMs.
    expect(placed.offset!.low).toBeLessThanOrEqual(-skewMs);
    expect(placed.offset!.high).toBeGreaterThanOrEqual(-skewMs);
    expect(placed.offset!.high - placed.offset!.low).toBeLessThan(70);
    expect(placed.servers).toEqual(['edge-0 (node edge-0)', 'edge-1 (node edge-1)']);
  });

  test('the Date lag allowed widens the placement by twice the lag, and still holds the truth', () => {
    const run = serverOffsets(runProbes(), 500);
    const placed = placeVantage(run, point('v', 7300, { 'edge-0': 300 }), 500);
    expect(placed.offset!.low).toBeLessThanOrEqual(-7300);
    expect(placed.offset!.high).toBeGreaterThanOrEqual(-7300);
    expect(placed.offset!.high - placed.offset!.low).toBeGreaterThanOrEqual(1000);
  });

  test('a vantage that probed no edge the run probed cannot be placed: the verdict is inconclusive and says why', () => {
    const { found } = judged([point('island', 0, { 'edge-9': 300 })]);
    expect(found.verdict).toBe('inconclusive');
    expect(found.reasons).toEqual([{ code: 'vantage-shares-no-server', vantage: 'island' }]);
  });

  test('behind one edge, two nodes whose clocks are 700 ms apart: a vantage is placed through the node both reached, never across nodes', () => {
    const nodeA = { name: 'a', clockMs: EDGE_CLOCK_MS };
    const nodeB = { name: 'b', clockMs: EDGE_CLOCK_MS + 700 };
    const run = serverOffsets([...probes('edge-0', 0, 300, KEY, nodeA), ...probes('edge-0', 0, 300, KEY, nodeB)], 0);
    const throughA = placeVantage(run, { name: 'v', probes: probes('edge-0', 7300, 300, KEY, nodeA) }, 0);
    expect(throughA.servers).toEqual(['edge-0 (node a)']);
    expect(throughA.offset!.low).toBeLessThanOrEqual(-7300);
    expect(throughA.offset!.high).toBeGreaterThanOrEqual(-7300);
    // The run reached only node a, the vantage only node b: nothing in common to place it by.
    const onlyA = serverOffsets(probes('edge-0', 0, 300, KEY, nodeA), 0);
    expect(placeVantage(onlyA, { name: 'v', probes: probes('edge-0', 0, 300, KEY, nodeB) }, 0).offset).toBeNull();
  });

  test('a server whose Date headers disagree with themselves places nothing; the others still place the vantage', () => {
    const stepped = probes('edge-1', 0, 300).map((p, i) =>
      i > 100 ? { ...p, date: new Date(Date.parse(p.date!) + 5000).toUTCString() } : p,
    );
    const run = serverOffsets([...probes('edge-0', 0, 300), ...stepped], 0);
    expect(run.get('edge-1 (node edge-1)')).toBeNull();
    const placed = placeVantage(run, point('v', 2500, { 'edge-0': 300, 'edge-1': 300 }), 0);
    expect(placed.servers).toEqual(['edge-0 (node edge-0)']);
    expect(placed.offset!.low).toBeLessThanOrEqual(-2500);
    expect(placed.offset!.high).toBeGreaterThanOrEqual(-2500);
    // Through the stepped server alone, nothing places it.
    const onlyStepped = placeVantage(run, point('v', 2500, { 'edge-1': 300 }), 0);
    expect(onlyStepped.offset).toBeNull();
    expect(onlyStepped.reason).toEqual({
      code: 'vantage-dates-disagree',
      vantage: 'v',
      servers: ['edge-1 (node edge-1)'],
    });
  });

  test('two servers placing a vantage 5 s apart place it nowhere', () => {
    const run = serverOffsets(runProbes(), 0);
    // The vantage's probes of edge-1 stamped as if its clock were 5 s further ahead than for edge-0.
    const torn: VantagePoint = { name: 'v', probes: [...probes('edge-0', 0, 300), ...probes('edge-1', 5000, 300)] };
    const placed = placeVantage(run, torn, 0);
    expect(placed.offset).toBeNull();
    expect(placed.reason).toEqual({
      code: 'vantage-placements-disjoint',
      vantage: 'v',
      servers: ['edge-0 (node edge-0)', 'edge-1 (node edge-1)'],
    });
    expect(judged([torn]).found.reasons).toEqual([placed.reason]);
  });
});

describe('REVOKE-LATENCY seen from several vantage points', () => {
  test('quick edges from every vantage, one of them 7.3 s ahead: pass, on one table of vantage point × edge', () => {
    const { found, data } = judged([
      point('near', 0, { 'edge-0': 300, 'edge-1': 300, 'edge-2': 300 }),
      point('skewed', 7300, { 'edge-0': 300, 'edge-1': 320, 'edge-2': 300 }),
    ]);
    expect(found.verdict).toBe('pass');
    expect(data.edges.map((e) => e.edge)).toEqual([
      'near: edge-0',
      'near: edge-1',
      'near: edge-2',
      'skewed: edge-0',
      'skewed: edge-1',
      'skewed: edge-2',
      'this run: edge-0',
      'this run: edge-1',
      'this run: edge-2',
    ]);
    // Each vantage bracket holds the moment the data were made with (300 or 320 ms).
    for (const row of data.trials.filter((r) => !r.edge.startsWith('this run'))) {
      const truth = row.edge === 'skewed: edge-1' ? 320 : 300;
      expect(row.lowerMs!).toBeLessThanOrEqual(truth);
      expect(row.upperMs!).toBeGreaterThanOrEqual(truth);
    }
    expect(
      data.vantages!.map((v) => [
        v.vantage,
        Math.abs(v.offsetMs! + (v.vantage === 'skewed' ? 7300 : 0)) <= v.uncertaintyMs!,
      ]),
    ).toEqual([
      ['near', true],
      ['skewed', true],
    ]);
  });

  test('one vantage sees a fourth edge reject 3.4 s after the revoke call: fail, naming the vantage and the edge', () => {
    const { found } = judged([
      point('near', 0, { 'edge-0': 300 }),
      point('far', -2500, { 'edge-0': 300, 'edge-3': 3400 }),
    ]);
    expect(found.verdict).toBe('fail');
    expect(found.reasons).toEqual([
      expect.objectContaining({ code: 'still-admitted-past-sla', edge: 'far: edge-3', trial: 1, slaMs: 3000 }),
    ]);
    const late = found.reasons![0] as { admittedMs: number };
    expect(late.admittedMs).toBeGreaterThanOrEqual(3000);
    expect(late.admittedMs).toBeLessThan(4000);
  });

  test('the same slow edge with a second of Date lag allowed: the bracket straddles 3 s, never a fail', () => {
    const { found } = judged([point('far', -2500, { 'edge-0': 300, 'edge-3': 3400 })], 1000);
    expect(found.verdict).toBe('inconclusive');
    expect(found.reasons).toEqual([
      expect.objectContaining({ code: 'bracket-straddles-sla', edge: 'far: edge-3', trial: 1, slaMs: 3000 }),
    ]);
  });

  test('a 401 a vantage saw before the revoke call began does not close its bracket', () => {
    const transient = point('v', 0, { 'edge-0': 300 });
    const early = transient.probes.find((p) => p.sentWall === REVOKE_WALL - 100)!;
    const probesWithBlip = transient.probes.map((p) => (p === early ? { ...p, status: 401 } : p));
    const { data } = judged([{ name: 'v', probes: probesWithBlip }]);
    const row = data.trials.find((r) => r.edge === 'v: edge-0')!;
    expect(row.upperMs!).toBeGreaterThanOrEqual(300);
  });

  test('a vantage that stops probing soon after the rejections still closes its bracket with the default Date lag: pass, every bracket wider but under 3 s', () => {
    const settledEarly = (name: string, skewMs: number): VantagePoint => ({
      name,
      probes: probes('edge-0', skewMs, 300).filter((p) => p.sentWall - skewMs <= REVOKE_WALL + 500),
    });
    const { found, data } = judged([settledEarly('near', 0), settledEarly('skewed', 7300)], 500);
    expect(found.reasons).toBeUndefined();
    expect(found.verdict).toBe('pass');
    const near = data.trials.find((r) => r.edge === 'near: edge-0')!;
    expect(near.upperMs!).toBeGreaterThanOrEqual(300);
    expect(near.upperMs!).toBeLessThan(3000);
  });

  test('an edge that rejects, admits again, then rejects for good: the bracket ends at the rejection after the last admission', () => {
    const flapping = point('v', 0, { 'edge-0': 300 });
    const flapped = flapping.probes.map((p) =>
      p.sentWall - REVOKE_WALL >= 300 && p.sentWall - REVOKE_WALL < 600
        ? { ...p, status: p.sentWall - REVOKE_WALL < 400 ? 401 : 200 }
        : p,
    );
    const { data } = judged([{ name: 'v', probes: flapped }]);
    const row = data.trials.find((r) => r.edge === 'v: edge-0')!;
    expect(row.lowerMs!).toBeGreaterThanOrEqual(500);
    expect(row.upperMs!).toBeGreaterThanOrEqual(600);
  });

  test('probes of another key are not this trial’s', () => {
    const other: VantagePoint = { name: 'v', probes: probes('edge-0', 0, -1000, 'xh_test_…ZZZZ') };
    const { found } = judged([other]);
    expect(found.verdict).toBe('inconclusive');
    expect(found.reasons).toEqual([
      expect.objectContaining({ code: 'no-rejection-seen', edge: 'v: edge-0', trial: 1, unusableProbes: 0 }),
    ]);
  });
});
