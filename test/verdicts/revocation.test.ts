/** The four revocation verdicts on recorded probe data (no network). */
import { describe, expect, test } from 'vitest';
import { revokeLatencyVerdict } from '../../src/verdicts/revoke-latency.ts';
import { revokeStickyVerdict } from '../../src/verdicts/revoke-sticky.ts';
import { authRevokedVerdict } from '../../src/checks/auth-revoked.ts';
import { rotationVerdict } from '../../src/verdicts/rotation.ts';
import { edgeBounds, percentile } from '../../src/verdicts/support/revocation-bounds.ts';
import { revocationCsv } from '../../src/revocation/csv.ts';
import { CLOCK_NOTE_START } from '../../src/verdicts/support/revocation-method.ts';
import type { RevocationProbeRun } from '../../src/measure/revocation-records.ts';
import { reasonText } from '../../src/catalogue/reasons/index.ts';
import {
  clean,
  cleanRun,
  EDGES,
  evidence,
  REVOKE_AT,
  RTT,
  run,
  type Timeline,
} from '../helpers/revocation-fixtures.ts';

const all = (e: ReturnType<typeof evidence>) => ({
  latency: revokeLatencyVerdict(e),
  sticky: revokeStickyVerdict(e),
  final: authRevokedVerdict(e),
  rotation: rotationVerdict(e),
});

describe('bounds', () => {
  test('lower = send of the last admitted probe, upper = receipt of the first rejection, from the revoke call', () => {
    const bounds = edgeBounds(run({ probes: { 'edge-0': clean(300) } }), 401);
    expect(bounds).toHaveLength(1);
    expect(bounds[0]).toMatchObject({
      edge: 'edge-0',
      lowerMs: 290,
      upperMs: 300 + RTT,
      widthMs: 10 + RTT,
      unusableProbes: 0,
      revokeCallMs: 3,
    });
  });

  test('unusable probes neither narrow a bracket nor count as rejections', () => {
    const timeline = [
      [-10, 200],
      [0, 200],
      [10, 429],
      [20, null],
      [30, 503],
      [40, 401],
    ] as const;
    const [b] = edgeBounds(run({ probes: { 'edge-0': timeline } }), 401);
    expect(b).toMatchObject({
      lowerMs: 0,
      upperMs: 40 + RTT,
      unusableProbes: 3,
      unusable: { rateLimited: 1, transport: 1, otherStatus: 1 },
    });
  });

  test('a lower bound never goes below the revoke call', () => {
    const [b] = edgeBounds(
      run({
        probes: {
          'edge-0': [
            [-20, 200],
            [5, 401],
          ],
        },
      }),
      401,
    );
    expect(b!.lowerMs).toBe(0);
  });

  test('nearest-rank percentiles', () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    expect([percentile(values, 50), percentile(values, 95), percentile(values, 99), percentile([], 50)]).toEqual([
      10,
      19,
      20,
      null,
    ]);
  });
});

describe('a clean target', () => {
  test('all four pass, with the chart data and per-edge figures', () => {
    const v = all(evidence([cleanRun(1), cleanRun(2)]));
    expect([v.latency.verdict, v.sticky.verdict, v.final.verdict, v.rotation.verdict]).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
    ]);
    const data = v.latency.data!;
    expect(data.slaMs).toBe(3000);
    expect(data.trials).toHaveLength(6);
    expect(data.overall).toMatchObject({
      brackets: 6,
      p50Ms: 301,
      p95Ms: 301,
      maxMs: 301,
      shareUnderSla: 1,
      medianWidthMs: 11,
      unusableProbes: 0,
    });
    expect(data.edges.map((e) => e.edge)).toEqual([...EDGES]);
  });
});

describe('a slow edge', () => {
  test('REVOKE-LATENCY fails naming the edge and trial when its lower bound reaches the SLA', () => {
    const slow = run({ trial: 2, probes: { 'edge-0': clean(300), 'edge-1': clean(300), 'edge-2': clean(3500) } });
    const v = revokeLatencyVerdict(evidence([cleanRun(1), slow]));
    expect(v.verdict).toBe('fail');
    const lastAdmitted = slow.probes.find(
      (p) => p.edge === 'edge-2' && p.phase === 'probe' && p.sentAt === REVOKE_AT + 3490,
    );
    expect(v.reasons).toEqual([
      {
        code: 'still-admitted-past-sla',
        edge: 'edge-2',
        node: 'edge-2',
        trial: 2,
        probeId: lastAdmitted!.id,
        admittedMs: 3490,
        afterReturnMs: 3487,
        rejectedByMs: 3501,
        slaMs: 3000,
      },
    ]);
    expect(v.evidence).toContain(lastAdmitted!.id);
  });

  test('an edge that never rejects and still admits past the SLA fails', () => {
    const never = run({
      stoppedBy: 'max-time',
      probes: { 'edge-0': clean(300), 'edge-1': clean(99_999, 3200) },
      finals: { 'edge-1': 200 },
    });
    const latency = revokeLatencyVerdict(evidence([never]));
    expect(latency.verdict).toBe('fail');
    expect(latency.reasons).toEqual([
      expect.objectContaining({
        code: 'still-admitted-past-sla',
        edge: 'edge-1',
        admittedMs: 3200,
        rejectedByMs: null,
      }),
    ]);
    const final = authRevokedVerdict(evidence([never]));
    expect(final.verdict).toBe('fail');
    expect(final.reasons).toEqual([
      { code: 'revoked-key-admitted', edge: 'edge-1', trial: 1, status: 200, probeId: expect.any(Number) },
    ]);
    expect(revokeStickyVerdict(evidence([never])).reasons).toEqual([
      { code: 'probing-hit-time-bound', trial: 1, maxMs: 8500 },
    ]);
  });

  test('a bracket straddling the SLA is inconclusive', () => {
    const straddle = run({
      probes: {
        'edge-0': clean(300),
        'edge-1': [
          [2990, 200],
          [3000, 429],
          [3010, 401],
        ],
      },
    });
    const v = revokeLatencyVerdict(evidence([straddle]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      {
        code: 'bracket-straddles-sla',
        edge: 'edge-1',
        node: 'edge-1',
        trial: 1,
        lowerMs: 2990,
        upperMs: 3011,
        slaMs: 3000,
      },
      { code: 'unusable-probes', probes: 1, rateLimited: 1 },
    ]);
  });
});

describe('a flapping edge', () => {
  const flapping = [...clean(300, 490), [500, 200], [510, 200], [520, 401], [800, 401]] as const;
  const flaps = run({ probes: { 'edge-0': clean(300), 'edge-1': clean(300), 'edge-2': flapping } });

  test('REVOKE-STICKY fails, showing the re-admitting probe', () => {
    const v = revokeStickyVerdict(evidence([flaps]));
    expect(v.verdict).toBe('fail');
    const readmitted = flaps.probes.find((p) => p.edge === 'edge-2' && p.sentAt === REVOKE_AT + 500)!;
    const rejection = flaps.probes.find((p) => p.edge === 'edge-2' && p.sentAt === REVOKE_AT + 300)!;
    expect(v.reasons).toEqual([
      {
        code: 'readmitted-after-rejection',
        edge: 'edge-2',
        trial: 1,
        status: 200,
        probeId: readmitted.id,
        rejectionProbeId: rejection.id,
        afterRevokeMs: 500,
        afterRejectionMs: 500 - 300 - RTT,
        admissions: 2,
      },
    ]);
    expect(v.evidence).toContain(readmitted.id);
    expect(v.data!.readmissions).toHaveLength(2);
  });

  test('REVOKE-LATENCY judges the first rejection: still a pass', () => {
    expect(revokeLatencyVerdict(evidence([flaps])).verdict).toBe('pass');
  });
});

describe('a 429-only edge', () => {
  const only429 = run({
    probes: { 'edge-0': clean(300), 'edge-1': Array.from({ length: 50 }, (_, i) => [i * 10, 429] as const) },
  });

  test('REVOKE-LATENCY is inconclusive and counts the unusable probes', () => {
    const v = revokeLatencyVerdict(evidence([only429]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      { code: 'no-rejection-seen', edge: 'edge-1', node: 'edge-1', trial: 1, lastAdmittedMs: 0, unusableProbes: 50 },
      { code: 'unusable-probes', probes: 50, rateLimited: 50 },
    ]);
    expect((v.data as { overall: { unusableProbes: number; rateLimitedProbes: number } }).overall).toMatchObject({
      unusableProbes: 50,
      rateLimitedProbes: 50,
    });
  });

  test('REVOKE-STICKY cannot pass an edge it never saw reject', () => {
    const v = revokeStickyVerdict(evidence([only429]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([{ code: 'edge-never-rejected', edge: 'edge-1', trial: 1 }]);
  });
});

describe('a revoke hook failure', () => {
  const failed = run({
    stoppedBy: 'revoke-failed',
    revokeError: 'the revoke command exited with status 1: permission denied for xh_test_…AAAA',
    probes: { 'edge-0': clean(99_999, 200), 'edge-1': clean(99_999, 200) },
  });

  test('every verdict is inconclusive, and each gives the hook output and the keys it left live', () => {
    const problem = { code: 'keys-left-live', keys: ['xh_test_…BBBB'], stoppedBy: 'revoke-hook-failed' } as const;
    const v = all(evidence([failed], 3, [problem]));
    expect([v.latency.verdict, v.sticky.verdict, v.final.verdict, v.rotation.verdict]).toEqual([
      'inconclusive',
      'inconclusive',
      'inconclusive',
      'inconclusive',
    ]);
    const coverage = [
      { code: 'trials-not-run', ran: 1, planned: 3 },
      { code: 'revoke-hook-failed', trial: 1, hookError: failed.revokeError },
      problem,
    ];
    expect(v.latency.reasons).toEqual(coverage);
    expect(v.sticky.reasons).toEqual(coverage);
    expect(v.final.reasons).toEqual(coverage);
    // Before the revoke call the successor was admitted on both edges; after it, nothing was judged.
    expect(v.rotation.reasons).toEqual(coverage);
  });

  test('with other trials passing, the run is still inconclusive, not pass', () => {
    expect(revokeLatencyVerdict(evidence([cleanRun(1), { ...failed, trial: 2 }])).verdict).toBe('inconclusive');
  });

  test('a key never confirmed is never judged, naming the edges that never admitted it', () => {
    const confirmed = run({ revoked: false, stoppedBy: 'not-confirmed', probes: { 'edge-0': [], 'edge-1': [] } });
    const unconfirmed = {
      ...confirmed,
      probes: confirmed.probes.map((p) => (p.phase === 'confirm' && p.edge === 'edge-1' ? { ...p, status: 401 } : p)),
    };
    const v = revokeLatencyVerdict(evidence([unconfirmed]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([{ code: 'key-not-confirmed', trial: 1, edges: ['edge-1'] }]);
  });

  test('a trial whose revoke call never returned is never judged: no verdict passes on it', () => {
    const unreturned = run({ probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])), revokeCallMs: null });
    const v = all(evidence([unreturned]));
    expect([v.latency.verdict, v.sticky.verdict, v.final.verdict, v.rotation.verdict]).toEqual([
      'inconclusive',
      'inconclusive',
      'inconclusive',
      'inconclusive',
    ]);
    for (const f of Object.values(v)) expect(f.reasons).toEqual([{ code: 'revoke-call-unreturned', trial: 1 }]);
  });

  test('trials cut short by Ctrl-C are one interruption; no trial at all is said so', () => {
    const aborted = (trial: number) => run({ trial, revoked: false, stoppedBy: 'aborted', probes: { 'edge-0': [] } });
    const v = revokeLatencyVerdict(evidence([cleanRun(1), aborted(2), aborted(3)]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([{ code: 'interrupted', wouldHaveBeen: '' }]);
    expect(authRevokedVerdict(evidence([], 2)).reasons).toEqual([{ code: 'no-trial-ran' }]);
  });
});

describe('AUTH-REVOKED', () => {
  test('a final 200 or 403 fails; a final 429 is inconclusive', () => {
    const base = { probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) };
    const admitted = authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 200 } })]));
    expect(admitted.verdict).toBe('fail');
    expect(admitted.reasons).toEqual([
      { code: 'revoked-key-admitted', edge: 'edge-1', trial: 1, status: 200, probeId: expect.any(Number) },
    ]);
    const forbidden = authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 403 } })]));
    expect(forbidden.verdict).toBe('fail');
    expect(forbidden.reasons).toEqual([
      {
        code: 'revoked-key-wrong-status',
        edge: 'edge-1',
        trial: 1,
        status: 403,
        rejectStatus: 401,
        probeId: expect.any(Number),
      },
    ]);
    const limited = authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 429 } })]));
    expect(limited.verdict).toBe('inconclusive');
    expect(limited.reasons).toEqual([
      { code: 'final-probe-unusable', edge: 'edge-1', trial: 1, outcome: '429', probeId: expect.any(Number) },
    ]);
  });

  test('a judged trial without the final probe of an edge is inconclusive', () => {
    const full = run({ probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) });
    const missing = { ...full, probes: full.probes.filter((p) => !(p.phase === 'final' && p.edge === 'edge-2')) };
    const v = authRevokedVerdict(evidence([missing]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([{ code: 'no-final-probe', edge: 'edge-2', trial: 1 }]);
  });
});

describe('ROTATION', () => {
  const base = { probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) };
  test('a successor rejected after the revocation fails, naming the edge', () => {
    const v = rotationVerdict(evidence([run({ ...base, successorAfter: { 'edge-0': 401 } })]));
    expect(v.verdict).toBe('fail');
    expect(v.reasons).toEqual([
      {
        code: 'successor-rejected',
        edge: 'edge-0',
        trial: 1,
        phase: 'after-revoke',
        status: 401,
        probeId: expect.any(Number),
      },
    ]);
  });
  test('a successor rejected before the revocation fails', () => {
    const v = rotationVerdict(evidence([run({ ...base, successorBefore: { 'edge-2': 401 } })]));
    expect(v.verdict).toBe('fail');
    expect(v.reasons).toEqual([
      {
        code: 'successor-rejected',
        edge: 'edge-2',
        trial: 1,
        phase: 'before-revoke',
        status: 401,
        probeId: expect.any(Number),
      },
    ]);
  });
  test('a successor answered 429, or never probed, is inconclusive', () => {
    const limited = run({ ...base, successorAfter: { 'edge-1': 429 } });
    const unprobed = {
      ...limited,
      probes: limited.probes.filter((p) => !(p.phase === 'successor-before' && p.edge === 'edge-0')),
    };
    const v = rotationVerdict(evidence([unprobed]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      { code: 'successor-not-probed', edge: 'edge-0', trial: 1, phase: 'before-revoke' },
      {
        code: 'successor-probe-unusable',
        edge: 'edge-1',
        trial: 1,
        phase: 'after-revoke',
        outcome: '429',
        probeId: expect.any(Number),
      },
    ]);
  });
  test('no successor is inconclusive with the provisioning error', () => {
    const v = rotationVerdict(evidence([run({ ...base, successor: false })]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      {
        code: 'no-successor-key',
        trial: 1,
        provisionError: 'the provision command exited with status 1: quota of keys reached',
      },
    ]);
  });
});

describe('coverage', () => {
  test('fewer trials than planned is inconclusive', () => {
    const problems = [
      { code: 'provisioning-failed', error: 'all 2 disposable keys are used' },
      { code: 'cleanup-revoke-failed', key: 'xh_test_…CCCC', error: 'the revoke command exited with status 1' },
    ] as const;
    const v = revokeLatencyVerdict(evidence([cleanRun(1)], 20, problems));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([{ code: 'trials-not-run', ran: 1, planned: 20 }, ...problems]);
  });
});

test('revocation.csv: one row per trial and edge, no key', () => {
  const csv = revocationCsv([cleanRun(1), cleanRun(2)], 401);
  const lines = csv.trim().split('\n');
  expect(lines[0]).toBe('trial,edge,edgeNode,lowerMs,upperMs,widthMs,unusableProbes,revokeCallMs,stoppedBy');
  expect(lines).toHaveLength(7);
  expect(lines[1]).toBe('1,edge-0,edge-0,290,301,11,0,3,settled');
  expect(csv).not.toMatch(/xh_/);
});

describe('REVOKE-LATENCY: what the trials prove', () => {
  test('20 of 20 within on every edge: at least 86.1 % at 95 % (0.05^(1/20), the closed form), the slowest bounding about p86', () => {
    const v = revokeLatencyVerdict(evidence(Array.from({ length: 20 }, (_, i) => cleanRun(i + 1))));
    expect(v.verdict).toBe('pass');
    const confidence = v.data!.confidence!;
    expect(confidence).toMatchObject({ trials: 20, within: 20, level: 0.95 });
    expect(confidence.lowerBound).toBeCloseTo(0.05 ** (1 / 20), 8);
    expect(confidence.maxBoundsQuantile).toBeCloseTo(0.05 ** (1 / 20), 8);
    expect(confidence.target).toBeNull();
    expect(v.data!.slaMs).toBe(3000);
  });

  test('a trial whose bound straddles the SLA counts as not within (SciPy 1.17.1: beta.ppf(0.05, 1, 2) = 0.025321)', () => {
    const straddle = run({
      trial: 2,
      probes: {
        'edge-0': clean(300),
        'edge-1': [
          [2990, 200],
          [3000, 429],
          [3010, 401],
        ],
      },
    });
    const confidence = revokeLatencyVerdict(evidence([cleanRun(1), straddle])).data!.confidence!;
    expect(confidence).toMatchObject({ trials: 2, within: 1 });
    expect(confidence.lowerBound).toBeCloseTo(0.025321, 5);
  });

  test('a target the trials prove: pass, the target in the expectation and the note (59 of 59: 0.05^(1/59) = 0.9505 ≥ 95 %)', () => {
    const v = revokeLatencyVerdict({
      ...evidence(Array.from({ length: 59 }, (_, i) => cleanRun(i + 1))),
      target: { share: 0.95, level: 0.95 },
    });
    expect(v.verdict).toBe('pass');
    // The target: 95 % of revocations within the 3000 ms SLA, at 95 % confidence; reached by a bound of 95.05 %.
    expect(v.data).toMatchObject({
      slaMs: 3000,
      plannedTrials: 59,
      confidence: { trials: 59, within: 59, level: 0.95, target: { share: 0.95, trialsNeeded: 59, reached: true } },
    });
    expect(v.data!.confidence!.lowerBound).toBeCloseTo(0.9505, 4);
    expect(v.reasons).toBeUndefined();
  });

  test('a target too few trials prove (58 of 58: 0.05^(1/58) = 0.9497 < 95 %): inconclusive, saying what proving it takes', () => {
    const v = revokeLatencyVerdict({
      ...evidence(Array.from({ length: 58 }, (_, i) => cleanRun(i + 1))),
      target: { share: 0.95, level: 0.95 },
    });
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      {
        code: 'confidence-target-not-reached',
        share: 0.95,
        level: 0.95,
        slaMs: 3000,
        lowerBound: v.data!.confidence!.lowerBound,
        trialsNeeded: 59,
      },
    ]);
    expect(v.data!.confidence!.lowerBound).toBeCloseTo(0.05 ** (1 / 58), 8);
    expect(reasonText(v.reasons![0]!)).toBe(
      'the target 95 % of revocations within 3.00 s, at 95 % confidence: not reached (the bound is 94.97 %; proving it takes 59 trials, none slower)',
    );
  });

  test("a target's level is the statement's: 20 of 20 at 90 % (0.10^(1/20) = 0.8913)", () => {
    const confidence = revokeLatencyVerdict({
      ...evidence(Array.from({ length: 20 }, (_, i) => cleanRun(i + 1))),
      target: { share: 0.85, level: 0.9 },
    }).data!.confidence!;
    expect(confidence.level).toBe(0.9);
    expect(confidence.lowerBound).toBeCloseTo(0.1 ** (1 / 20), 8);
    expect(confidence.target).toEqual({ share: 0.85, trialsNeeded: 15, reached: true });
  });
});

/**
 * Several probes in flight per edge, from afar: each probe is decided by the edge somewhere between
 * its send and its answer, answers cross, and a probe sent later may be decided earlier. The verdicts
 * see only sends, answers and statuses; these tests draw the moments the edge decided each probe (the
 * split of every round trip into its way there and back) and hold the verdicts to every split.
 */
describe('answers that cross', () => {
  /** A seeded generator (mulberry32): the same draws on every run. */
  function seeded(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /** What the edge did, as offsets from the revoke call: when it rejects (and when it admits again, for a flap). */
  interface EdgeTruth {
    readonly rejectsFrom: number;
    readonly readmits?: { readonly from: number; readonly until: number };
  }
  const rejects = (truth: EdgeTruth, at: number) =>
    at >= truth.rejectsFrom && !(truth.readmits && at >= truth.readmits.from && at < truth.readmits.until);

  /**
   * One edge probed every 10 ms from -100 ms to `untilMs`, every probe's round trip drawn from 60 to
   * 100 ms and split at random between its way there and back; its status is what the edge did at
   * the moment the probe reached it. Also the moments of the last admission and first rejection.
   */
  function probeFromAfar(random: () => number, truth: EdgeTruth, untilMs: number) {
    const timeline: [number, number, number][] = [];
    let lastAdmittedAt = -Infinity;
    let firstRejectedAt = Infinity;
    for (let sent = -100; sent <= untilMs; sent += 10) {
      const roundTrip = 60 + 40 * random();
      const decided = sent + roundTrip * random();
      const rejected = rejects(truth, decided);
      if (rejected) firstRejectedAt = Math.min(firstRejectedAt, decided);
      else lastAdmittedAt = Math.max(lastAdmittedAt, decided);
      timeline.push([sent, rejected ? 401 : 200, roundTrip]);
    }
    return { timeline, lastAdmittedAt, firstRejectedAt };
  }

  // edge-2, recorded: the probe sent at 290 ms was slow on its way there and was decided after the one
  // sent at 300 ms and 310 ms, which the edge still admitted; the first answer of a rejection is the
  // probe sent at 320 ms (at 400 ms), before the one sent at 290 ms (at 440 ms).
  const crossing: Timeline = [
    ...clean(300, 280).map(([t, s]) => [t, s, 80] as const),
    [290, 401, 150],
    [300, 200, 80],
    [310, 200, 80],
    [320, 401, 80],
    ...clean(330, 800)
      .filter(([t]) => t >= 330)
      .map(([t, s]) => [t, s, 80] as const),
  ];
  const crossed = run({ probes: { 'edge-0': clean(300), 'edge-1': clean(300), 'edge-2': crossing }, revokeCallMs: 80 });

  test('the bracket runs from the last admission sent before the first rejection was answered to that answer', () => {
    const b = edgeBounds(crossed, 401).find((x) => x.edge === 'edge-2')!;
    expect(b).toMatchObject({ lowerMs: 310, upperMs: 400, widthMs: 90 });
    expect(b.lastAdmitted!.sentAt - REVOKE_AT).toBe(310);
    expect(b.firstRejected!.sentAt - REVOKE_AT).toBe(320);
  });

  test('admissions sent while a rejection was in flight are no flap: REVOKE-STICKY and REVOKE-LATENCY pass', () => {
    const v = all(evidence([crossed]));
    expect([v.latency.verdict, v.sticky.verdict, v.final.verdict, v.rotation.verdict]).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
    ]);
  });

  test('the sweep: under every split of the round trips a sticky edge could have shown these answers, the bracket holds its moment', () => {
    const [send, receipt] = [crossing.map(([t]) => t), crossing.map(([t, , rtt]) => t + (rtt ?? 1))];
    const b = edgeBounds(crossed, 401).find((x) => x.edge === 'edge-2')!;
    const random = seeded(7);
    let sticky = 0;
    for (let draw = 0; draw < 5000; draw++) {
      // Each probe decided somewhere between its send and its answer.
      const decided = send.map((s, i) => s + (receipt[i]! - s) * random());
      const admitted = decided.filter((_, i) => crossing[i]![1] === 200);
      const rejected = decided.filter((_, i) => crossing[i]![1] === 401);
      // A sticky edge shows these answers under this split only if it admitted all before it rejected any.
      if (Math.max(...admitted) >= Math.min(...rejected)) continue;
      sticky += 1;
      expect(b.lowerMs!).toBeLessThanOrEqual(Math.max(...admitted));
      expect(b.upperMs!).toBeGreaterThanOrEqual(Math.min(...rejected));
    }
    // Sticky splits exist: a REVOKE-STICKY fail on these answers would be false.
    expect(sticky).toBeGreaterThan(0);
  });

  test('a hundred sticky edges probed from afar: every bracket holds the moment, none flaps, narrower than two round trips', () => {
    const random = seeded(2026);
    const widths: number[] = [];
    for (let trial = 1; trial <= 100; trial++) {
      // The revoke call takes 80 ms; the server takes it somewhere on the way, and its edges act up to 2.99 s later.
      const arrives = 80 * random();
      const truths = EDGES.map(() => ({ rejectsFrom: arrives + 100 + 2890 * random() }));
      const sims = truths.map((truth) => probeFromAfar(random, truth, truth.rejectsFrom + 600));
      const r = run({
        trial,
        probes: Object.fromEntries(EDGES.map((e, i) => [e, sims[i]!.timeline])),
        revokeCallMs: 80,
      });
      const e = evidence([r]);
      expect(revokeStickyVerdict(e).verdict).toBe('pass');
      expect(revokeLatencyVerdict(e).verdict).not.toBe('fail');
      for (const [i, b] of edgeBounds(r, 401).entries()) {
        expect(b.lowerMs!).toBeLessThanOrEqual(sims[i]!.lastAdmittedAt);
        expect(b.upperMs!).toBeGreaterThanOrEqual(sims[i]!.firstRejectedAt);
        widths.push(b.widthMs!);
      }
    }
    widths.sort((a, b) => a - b);
    expect(percentile(widths, 50)!).toBeLessThan(2 * 60);
  });

  test('an edge past the SLA still fails from afar, and one that flaps still fails REVOKE-STICKY', () => {
    const random = seeded(11);
    const slow = probeFromAfar(random, { rejectsFrom: 3500 }, 4100);
    const late = run({ probes: { 'edge-0': clean(300), 'edge-1': slow.timeline }, revokeCallMs: 80 });
    expect(revokeLatencyVerdict(evidence([late])).verdict).toBe('fail');
    // revocation-flaps: admits again 200 ms after it began rejecting, for 300 ms.
    const flapping = probeFromAfar(random, { rejectsFrom: 300, readmits: { from: 500, until: 800 } }, 1400);
    const flaps = run({ probes: { 'edge-0': clean(300), 'edge-1': flapping.timeline }, revokeCallMs: 80 });
    expect(revokeStickyVerdict(evidence([flaps])).verdict).toBe('fail');
    expect(revokeLatencyVerdict(evidence([flaps])).verdict).toBe('pass');
  });
});

describe('where the clock starts', () => {
  const lateBy = (lastAdmitted: number) =>
    run({
      probes: {
        'edge-0': clean(300),
        'edge-1': [
          [lastAdmitted - 10, 200],
          [lastAdmitted, 200],
          [lastAdmitted + 10, 401],
        ],
      },
      revokeCallMs: 80,
    });

  test('an admission past the SLA from the send, but within it from when the server may have received the call: inconclusive', () => {
    const v = revokeLatencyVerdict(evidence([lateBy(3010)]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.reasons).toEqual([
      {
        code: 'admitted-within-call-time',
        edge: 'edge-1',
        node: 'edge-1',
        trial: 1,
        admittedMs: 3010,
        revokeCallMs: 80,
        upperMs: 3021,
        slaMs: 3000,
      },
    ]);
  });

  test('the notes say where the clock starts, and in which trials no connection was open before the call', () => {
    const clock = (runs: ReturnType<typeof run>[]) =>
      revokeLatencyVerdict(evidence(runs)).notes.find((n) => n.startsWith(CLOCK_NOTE_START))!;
    const base = { probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])), revokeCallMs: 80 };
    expect(clock([run(base), run({ ...base, trial: 2 })])).toBe(
      `${CLOCK_NOTE_START}every bound counts from when the revoke call was sent, on a connection already open (no handshake inside it). The revocation cannot take effect before the server has received the call, so every bound is later than the true latency by at most the call's way there, which is shorter than the whole call (up to 80 ms here): an upper bound under 3.00 s shows the SLA kept, and a lower bound shows it missed only when past 3.00 s by the call's whole time too`,
    );
    const mixed = clock([
      run(base),
      run({ ...base, trial: 2, revokeConnection: { state: 'cold', why: 'HEAD / refused' } }),
      run({ ...base, trial: 3, revokeConnection: { state: 'none' } }),
    ]);
    expect(mixed).toContain('every bound counts from when the revoke call was sent. The revocation');
    expect(mixed).toContain(
      '; in trial 3 the hook had no connection to open beforehand (a command starts afresh each time), so whatever it starts and opens is inside the call',
    );
    expect(mixed).toContain(
      "; in trial 2 the call's connection could not be opened beforehand (HEAD / refused), so its handshake may be inside the call",
    );
  });

  test("past the SLA by the revoke call's own duration too: fail", () => {
    const v = revokeLatencyVerdict(evidence([lateBy(3080)]));
    expect(v.verdict).toBe('fail');
    expect(v.reasons).toEqual([
      {
        code: 'still-admitted-past-sla',
        edge: 'edge-1',
        node: 'edge-1',
        trial: 1,
        probeId: expect.any(Number),
        admittedMs: 3080,
        afterReturnMs: 3000,
        rejectedByMs: 3091,
        slaMs: 3000,
      },
    ]);
    const { probeId } = v.reasons![0] as { probeId: number };
    expect(reasonText(v.reasons![0]!)).toBe(
      `edge-1 still admitted the key 3.08 s after the revoke call in trial 1 (#${probeId}, 3.00 s after it returned), past 3.00 s, first rejected it by 3.09 s`,
    );
  });
});

describe('two nodes behind one edge address (a balancer spreading connections over both)', () => {
  /** A probe every 10 ms, 80 ms round trips, decided 40 ms after its send; alternate probes on node A's and B's connections. */
  function twoNodes(rejectA: number, rejectB: number): RevocationProbeRun {
    const timeline: [number, number, number][] = [];
    for (let t = -30, i = 0; t <= Math.max(rejectA, rejectB) + 600; t += 10, i++) {
      const rejectsFrom = i % 2 ? rejectA : rejectB;
      timeline.push([t, t + 40 < rejectsFrom ? 200 : 401, 80]);
    }
    const r = run({ probes: { 'edge-0': timeline }, revokeCallMs: 100 });
    let i = 0;
    const probes = r.probes.map((p) => (p.phase === 'probe' ? { ...p, edgeNode: i++ % 2 ? 'A' : 'B' } : p));
    return { ...r, probes };
  }

  test('each within the SLA in its own time: no flap, and a pass', () => {
    const e = evidence([twoNodes(1000, 1500)]);
    expect(revokeStickyVerdict(e).verdict).not.toBe('fail');
    expect(revokeLatencyVerdict(e).verdict).toBe('pass');
  });

  test('one node still admitting past the SLA fails REVOKE-LATENCY, though the other closed the bracket early', () => {
    const e = evidence([twoNodes(1000, 4000)]);
    const f = revokeLatencyVerdict(e);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      expect.objectContaining({ code: 'still-admitted-past-sla', edge: 'edge-0', node: 'B', trial: 1 }),
    ]);
    const late = f.reasons![0] as { admittedMs: number };
    expect(late.admittedMs).toBeGreaterThanOrEqual(3900);
    expect(late.admittedMs).toBeLessThan(4000);
  });
});
