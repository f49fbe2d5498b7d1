/** The four revocation verdicts on recorded probe data (no network). */
import { describe, expect, test } from 'vitest';
import { revokeLatencyVerdict } from '../../src/verdicts/revoke-latency.ts';
import { revokeStickyVerdict } from '../../src/verdicts/revoke-sticky.ts';
import { authRevokedVerdict } from '../../src/checks/auth-revoked.ts';
import { rotationVerdict } from '../../src/verdicts/rotation.ts';
import { edgeBounds, percentile } from '../../src/verdicts/support/revocation-bounds.ts';
import { revocationCsv } from '../../src/revocation/csv.ts';
import { clean, cleanRun, EDGES, evidence, REVOKE_AT, RTT, run } from '../helpers/revocation-fixtures.ts';

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
    expect(v.actual).toContain('edge-2');
    expect(v.actual).toContain('trial 2');
    expect(v.actual).not.toContain('edge-0');
    const lastAdmitted = slow.probes.find(
      (p) => p.edge === 'edge-2' && p.phase === 'probe' && p.sentAt === REVOKE_AT + 3490,
    );
    expect(v.evidence).toContain(lastAdmitted!.id);
  });

  test('an edge that never rejects and still admits past the SLA fails', () => {
    const never = run({
      stoppedBy: 'max-time',
      probes: { 'edge-0': clean(300), 'edge-1': clean(99_999, 3200) },
      finals: { 'edge-1': 200 },
    });
    expect(revokeLatencyVerdict(evidence([never])).verdict).toBe('fail');
    expect(authRevokedVerdict(evidence([never])).verdict).toBe('fail');
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
    expect(v.actual).toContain('straddling');
  });
});

describe('a flapping edge', () => {
  const flapping = [...clean(300, 490), [500, 200], [510, 200], [520, 401], [800, 401]] as const;
  const flaps = run({ probes: { 'edge-0': clean(300), 'edge-1': clean(300), 'edge-2': flapping } });

  test('REVOKE-STICKY fails, showing the re-admitting probe', () => {
    const v = revokeStickyVerdict(evidence([flaps]));
    expect(v.verdict).toBe('fail');
    const readmitted = flaps.probes.find((p) => p.edge === 'edge-2' && p.sentAt === REVOKE_AT + 500)!;
    expect(v.actual).toContain(`#${readmitted.id}`);
    expect(v.actual).toContain('edge-2');
    expect(v.evidence).toContain(readmitted.id);
    expect((v.data as { readmissions: unknown[] }).readmissions).toHaveLength(2);
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
    expect(v.actual).toContain('edge-1');
    expect(v.actual).toContain('no rejection seen');
    expect((v.data as { overall: { unusableProbes: number; rateLimitedProbes: number } }).overall).toMatchObject({
      unusableProbes: 50,
      rateLimitedProbes: 50,
    });
  });

  test('REVOKE-STICKY cannot pass an edge it never saw reject', () => {
    expect(revokeStickyVerdict(evidence([only429])).verdict).toBe('inconclusive');
  });
});

describe('a revoke hook failure', () => {
  const failed = run({
    stoppedBy: 'revoke-failed',
    revokeError: 'the revoke command exited with status 1: permission denied for xh_test_…AAAA',
    probes: { 'edge-0': clean(99_999, 200), 'edge-1': clean(99_999, 200) },
  });

  test('every verdict is inconclusive, and REVOKE-LATENCY shows the hook output', () => {
    const v = all(evidence([failed], 3, ['the revoke hook failed in trial 1: the remaining 2 trials were not run']));
    expect([v.latency.verdict, v.sticky.verdict, v.final.verdict, v.rotation.verdict]).toEqual([
      'inconclusive',
      'inconclusive',
      'inconclusive',
      'inconclusive',
    ]);
    expect(v.latency.actual).toContain('permission denied');
    expect(v.latency.notes.join(' ')).toContain('remaining 2 trials');
  });

  test('with other trials passing, the run is still inconclusive, not pass', () => {
    expect(revokeLatencyVerdict(evidence([cleanRun(1), { ...failed, trial: 2 }])).verdict).toBe('inconclusive');
  });

  test('a key never confirmed is never judged', () => {
    const unconfirmed = run({ revoked: false, stoppedBy: 'not-confirmed', probes: { 'edge-0': [] } });
    expect(revokeLatencyVerdict(evidence([unconfirmed])).verdict).toBe('inconclusive');
  });
});

describe('AUTH-REVOKED', () => {
  test('a final 200 or 403 fails; a final 429 is inconclusive', () => {
    const base = { probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) };
    expect(authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 200 } })])).verdict).toBe('fail');
    expect(authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 403 } })])).actual).toContain(
      '403 instead of 401',
    );
    expect(authRevokedVerdict(evidence([run({ ...base, finals: { 'edge-1': 429 } })])).verdict).toBe('inconclusive');
  });
});

describe('ROTATION', () => {
  const base = { probes: Object.fromEntries(EDGES.map((e) => [e, clean(300)])) };
  test('a successor rejected after the revocation fails, naming the edge', () => {
    const v = rotationVerdict(evidence([run({ ...base, successorAfter: { 'edge-0': 401 } })]));
    expect(v.verdict).toBe('fail');
    expect(v.actual).toContain('edge-0 in trial 1');
    expect(v.actual).toContain('after the old key was revoked');
  });
  test('a successor rejected before the revocation fails', () => {
    expect(rotationVerdict(evidence([run({ ...base, successorBefore: { 'edge-2': 401 } })])).actual).toContain(
      'before the old key was revoked',
    );
  });
  test('no successor is inconclusive with the provisioning error', () => {
    const v = rotationVerdict(evidence([run({ ...base, successor: false })]));
    expect(v.verdict).toBe('inconclusive');
    expect(v.actual).toContain('quota of keys reached');
  });
});

describe('coverage', () => {
  test('fewer trials than planned is inconclusive', () => {
    const v = revokeLatencyVerdict(
      evidence([cleanRun(1)], 20, ['trial 2: provisioning a key failed: all 2 disposable keys are used']),
    );
    expect(v.verdict).toBe('inconclusive');
    expect(v.actual).toContain('1 of 20 planned trials ran');
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
    expect(v.notes.join(' ')).toContain(
      '20 of 20 trials took effect on every edge within 3.00 s (a bound straddling it counts as not within): at 95 % confidence (one-sided, Clopper–Pearson), at least 86.1 % of revocations do; the slowest trial is a 95 % upper bound for about the 86th percentile (bounding p95 takes 59 trials, p99 299, none slower)',
    );
    expect(v.notes.join(' ')).toContain('Trials are taken as independent');
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
    expect(v.expected).toContain('; and 95 % of revocations within 3.00 s, at 95 % confidence');
    expect(v.data!.confidence!.target).toEqual({ share: 0.95, trialsNeeded: 59, reached: true });
    expect(v.notes.join(' ')).toContain(
      'Target 95 % of revocations within 3.00 s, at 95 % confidence: reached (the bound is 95.05 %)',
    );
  });

  test('a target too few trials prove (58 of 58: 0.05^(1/58) = 0.9497 < 95 %): inconclusive, saying what proving it takes', () => {
    const v = revokeLatencyVerdict({
      ...evidence(Array.from({ length: 58 }, (_, i) => cleanRun(i + 1))),
      target: { share: 0.95, level: 0.95 },
    });
    expect(v.verdict).toBe('inconclusive');
    expect(v.actual).toContain(
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
