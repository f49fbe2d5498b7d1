/**
 * Revocation trials several at once, against the reference target over loopback: how many run at
 * once, the rotation chains they form, their numbering, progress, Ctrl-C and the limits on how many
 * (the organization's concurrency cap, a short list of disposable keys). Judged by what was recorded:
 * the probes (observations, tagged with their trial) and the run's events, never by durations.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import type { LatencyData } from '../../src/verdicts/revoke-latency.ts';
import type { Observation } from '../../src/measure/observation.ts';
import type { RevocationProbeRun } from '../../src/measure/revocation-records.ts';
import { runRevocationTrials } from '../../src/revocation/trials.ts';
import { inFlightCeiling } from '../../src/revocation/parallel.ts';
import { revocationTiming } from '../../src/revocation/task.ts';
import { requestFor } from '../../src/measure/requests.ts';
import { endpointById } from '../../src/contract/lookup.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { SCOPE_NAMES } from '../../src/contract/types.ts';
import type { AdminRevocation } from '../../src/reference-server/admin-client.ts';
import type { RunEvent } from '../../src/results/events.ts';
import { disposableListHook } from '../../src/provision/hooks/disposable.ts';
import { recordingAdminHook, runRevocation, startHarness, type Harness } from '../helpers/revocation-harness.ts';
import type { KeyHandle } from '../../src/contract/handles.ts';

/** Limits of the suite's own revocation organization: no cap near its probes. */
const OWN_LIMITS = { read: 1_000_000, ingest: 1_000_000, concurrency: 1_000 };
const SHAPE = { trials: 7, intervalMs: 10, settleMs: 300 };

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

/** Per trial, from its probes: when its first was sent and its last answered, and its probes per edge. */
function trialsOf(
  observations: readonly Observation[],
): Map<number, { start: number; end: number; byEdge: Map<string, Observation[]> }> {
  const trials = new Map<number, { start: number; end: number; byEdge: Map<string, Observation[]> }>();
  for (const o of observations) {
    const trial = Number(/\/(\d+)$/.exec(o.phase)?.[1]);
    if (!Number.isInteger(trial)) continue;
    const t = trials.get(trial) ?? { start: Infinity, end: -Infinity, byEdge: new Map<string, Observation[]>() };
    trials.set(trial, t);
    t.start = Math.min(t.start, o.sentAt);
    t.end = Math.max(t.end, o.doneAt);
    t.byEdge.set(o.edge, [...(t.byEdge.get(o.edge) ?? []), o]);
  }
  return trials;
}

/** The most trials that had a probe out or due at one moment. */
function mostAtOnce(observations: readonly Observation[]): number {
  const moments = [...trialsOf(observations).values()].flatMap((t) => [
    { at: t.start, step: 1 },
    { at: t.end, step: -1 },
  ]);
  moments.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const m of moments) most = Math.max(most, (now += m.step));
  return most;
}

/** The most probes one edge had in flight at once in the dense loop of one trial. */
function mostInFlight(observations: readonly Observation[], trial: number, edge: string): number {
  const probes = observations.filter((o) => o.phase === `probe/${trial}` && o.edge === edge);
  const moments = probes.flatMap((p) => [
    { at: p.sentAt, step: 1 },
    { at: p.doneAt, step: -1 },
  ]);
  moments.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const m of moments) most = Math.max(most, (now += m.step));
  return most;
}

/**
 * Within one trial, no edge had more probes in flight than the trial's pace for it; and where the
 * round trips measured called for one (shorter than the interval, as on a quiet loopback), one.
 */
function pacedAsRecorded(observations: readonly Observation[], runs: readonly RevocationProbeRun[]): boolean {
  return runs.every((run) =>
    run.pacing.every((p) => {
      const most = mostInFlight(observations, run.trial, p.edge);
      return most <= p.inFlight && (p.asked > 1 || most === 1);
    }),
  );
}

/** The rotation chains the runs form: each a list of trials, the successor of one the key of the next. */
function chainsOf(runs: readonly RevocationProbeRun[]): number[][] {
  const byKey = new Map(runs.map((r) => [r.key, r]));
  const successors = new Set(runs.map((r) => r.successorKey));
  return runs
    .filter((r) => !successors.has(r.key))
    .map((head) => {
      const chain: number[] = [];
      for (
        let run: RevocationProbeRun | undefined = head;
        run && chain.length <= runs.length;
        run = byKey.get(run.successorKey ?? '')
      )
        chain.push(run.trial);
      return chain;
    });
}

const verdicts = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r.verdict]));
const notesOf = (results: readonly CheckResult[]) => results.find((r) => r.id === 'REVOKE-LATENCY')!.notes.join('\n');
const latencyData = (results: readonly CheckResult[]) =>
  results.find((r) => r.id === 'REVOKE-LATENCY')!.data as LatencyData;

function trialsOptions(
  h: Harness,
  hook: Parameters<typeof runRevocationTrials>[0]['hook'],
  chains: number,
  signal = new AbortController().signal,
) {
  const head = endpointById(recruitingApi, 'bootstrap-head');
  const prober = h.context(null).prober;
  const room = { edges: 3, concurrencyCap: OWN_LIMITS.concurrency, connectionsPerEdge: prober.connectionsPerEdge };
  return {
    prober,
    hook,
    org: h.org,
    trials: SHAPE.trials,
    chains,
    timing: revocationTiming(SHAPE, recruitingApi.revocationSlaMs),
    inFlightCeiling: inFlightCeiling(room, chains),
    request: (key: string) => requestFor(head, key),
    rejectStatus: 401,
    provisionTimeoutMs: 10_000,
    wallNow: h.wallNow,
    signal,
  };
}

describe('trials at once', () => {
  test('three rotation chains: never more than three trials at once, each at its pace per edge, numbered by start', async () => {
    harness = await startHarness({ limits: OWN_LIMITS });
    const revocations: AdminRevocation[] = [];
    const outcome = await runRevocationTrials(
      trialsOptions(harness, recordingAdminHook(harness.admin, revocations), 3),
    );
    expect(outcome.problems).toEqual([]);
    expect(outcome.runs.map((r) => [r.trial, r.stoppedBy])).toEqual(
      Array.from({ length: SHAPE.trials }, (_, i) => [i + 1, 'settled']),
    );
    // The first trial runs alone until its revoke call returned; then the other chains join it.
    expect(mostAtOnce(harness.observations)).toBe(3);
    expect(pacedAsRecorded(harness.observations, outcome.runs)).toBe(true);
    // Numbered as they start.
    const trials = trialsOf(harness.observations);
    const starts = Array.from({ length: SHAPE.trials }, (_, i) => trials.get(i + 1)!.start);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // Three chains over all seven trials, each trial after the one whose successor it revokes.
    const chains = chainsOf(outcome.runs);
    expect(chains).toHaveLength(3);
    expect(chains.flat().sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    for (const chain of chains) {
      for (let i = 1; i < chain.length; i++)
        expect(trials.get(chain[i]!)!.start).toBeGreaterThanOrEqual(trials.get(chain[i - 1]!)!.end);
    }
    // Every successor was proven on every edge before and after its predecessor's revocation.
    for (const run of outcome.runs) {
      expect(run.probes.filter((p) => p.phase === 'successor-before' && p.status === 200)).toHaveLength(3);
      expect(run.probes.filter((p) => p.phase === 'successor-after' && p.status === 200)).toHaveLength(3);
    }
    // N trials on K chains: N + K keys, each chain's last successor revoked in clean-up.
    expect(revocations).toHaveLength(SHAPE.trials + 3);
  });

  test('the task runs four at once, says so in its notes, and reports its progress after every trial', async () => {
    harness = await startHarness({ limits: OWN_LIMITS });
    const events: RunEvent[] = [];
    const context = {
      ...harness.context(recordingAdminHook(harness.admin, [])),
      emit: (e: RunEvent) => events.push(e),
    };
    const results = await runRevocation(context, harness.org, { ...SHAPE, parallel: 4 });
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'pass',
      'REVOKE-STICKY': 'pass',
      'AUTH-REVOKED': 'pass',
      ROTATION: 'pass',
    });
    expect(mostAtOnce(harness.observations)).toBe(4);
    // Within each trial's share of the prober's connections per edge.
    const ceiling = inFlightCeiling({ edges: 3, concurrencyCap: OWN_LIMITS.concurrency, connectionsPerEdge: 8 }, 4);
    for (let trial = 1; trial <= SHAPE.trials; trial++)
      for (const edge of ['edge-0', 'edge-1', 'edge-2'])
        expect(mostInFlight(harness.observations, trial, edge)).toBeLessThanOrEqual(ceiling);
    expect(notesOf(results)).toContain('about 1200 per second (4 trials at once, each probing 3 edges every 10 ms)');
    const progress = events.filter((e) => e.type === 'task-progress');
    expect(progress.map((e) => [e.done, e.total, e.unit])).toEqual(
      Array.from({ length: SHAPE.trials }, (_, i) => [i + 1, SHAPE.trials, 'trials']),
    );
    expect(
      progress.every(
        (e) => e.task.kind === 'revocation' && e.task.orgs[0] === harness!.org.label && typeof e.etaMs === 'number',
      ),
    ).toBe(true);
    expect(progress.at(-1)!.etaMs).toBe(0);
  });

  test("the organization's concurrency cap holds every trial's probes: fewer at once, and a note says why", async () => {
    // A Starter organization (its tier's cap of 5) on two edges: two trials' probes fit, not three.
    harness = await startHarness({ edges: 2 });
    const results = await runRevocation(harness.context(recordingAdminHook(harness.admin, [])), harness.org, {
      ...SHAPE,
      trials: 4,
      parallel: 4,
    });
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'pass',
      'REVOKE-STICKY': 'pass',
      'AUTH-REVOKED': 'pass',
      ROTATION: 'pass',
    });
    expect(mostAtOnce(harness.observations)).toBe(2);
    expect(harness.observations.filter((o) => o.status === 429)).toEqual([]);
    expect(latencyData(results).parallel).toEqual({
      chains: 2,
      asked: 4,
      limits: [{ by: 'concurrency-cap', allows: 2, concurrencyCap: 5, edges: 2 }],
    });
  });

  test('a list of disposable keys too short for four chains: as many chains as it feeds, every trial run, said in the notes', async () => {
    harness = await startHarness({ limits: OWN_LIMITS });
    const admin = harness.admin;
    const orgId = harness.org.id!;
    // Seven trials on two chains need nine keys.
    const keys = await Promise.all(
      Array.from({ length: SHAPE.trials + 2 }, async () => admin.createKey(orgId, SCOPE_NAMES, 'test')),
    );
    const revoked: string[] = [];
    const hook = disposableListHook(
      keys.map((k) => ({ key: k.key, id: k.id })),
      {
        revokeKey: async (key) => {
          revoked.push(key.id!);
          await admin.revokeKey(key.id!);
        },
      },
    );
    const results = await runRevocation(harness.context(hook), harness.org, { ...SHAPE, parallel: 4 });
    expect(verdicts(results)).toEqual({
      'REVOKE-LATENCY': 'pass',
      'REVOKE-STICKY': 'pass',
      'AUTH-REVOKED': 'pass',
      ROTATION: 'pass',
    });
    expect(mostAtOnce(harness.observations)).toBe(2);
    expect(latencyData(results).parallel).toEqual({
      chains: 2,
      asked: 4,
      limits: [{ by: 'key-capacity', allows: 2, keys: SHAPE.trials + 2, trials: SHAPE.trials }],
    });
    // Every trial run, no key left behind.
    const codes = (results.find((r) => r.id === 'REVOKE-LATENCY')!.reasons ?? []).map((r) => r.code);
    for (const problem of ['trials-not-run', 'provisioning-failed', 'keys-left-live', 'cleanup-revoke-failed'])
      expect(codes).not.toContain(problem);
    // Every listed key revoked: by a trial, or each chain's last successor in clean-up.
    expect(revoked.sort()).toEqual(keys.map((k) => k.id).sort());
  });

  test('Ctrl-C stops every trial in flight, starts no other, and names the keys possibly still live', async () => {
    harness = await startHarness({ limits: OWN_LIMITS });
    const revocations: AdminRevocation[] = [];
    const controller = new AbortController();
    const admin = recordingAdminHook(harness.admin, revocations);
    // The first revoke call returns at once; the others wait for Ctrl-C, so those trials are surely in
    // flight when the first ends (on timing alone, under load, all three could settle together).
    let calls = 0;
    const interrupted = new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve()));
    const hook = {
      ...admin,
      revokeKey: async (key: KeyHandle) => (++calls === 1 ? admin.revokeKey(key) : interrupted),
    };
    const options = trialsOptions(harness, hook, 3, controller.signal);
    // Interrupted when the first trial ends: the other two chains' first trials are in flight.
    const outcome = await runRevocationTrials({ ...options, onTrial: () => controller.abort() });
    expect(outcome.runs.map((r) => [r.trial, r.stoppedBy])).toEqual([
      [1, 'settled'],
      [2, 'aborted'],
      [3, 'aborted'],
    ]);
    // No clean-up after Ctrl-C: each chain's successor stays live, and is named (redacted).
    expect(revocations.length).toBeLessThanOrEqual(3);
    expect(outcome.problems).toEqual([{ code: 'keys-left-live', keys: expect.any(Array), stoppedBy: 'interrupted' }]);
    const live = outcome.problems.flatMap((p) => (p.code === 'keys-left-live' ? p.keys : []));
    for (const run of outcome.runs) expect(live).toContain(run.successorKey);
    expect(live.join(' ')).not.toMatch(/xh_test_[A-Za-z0-9]{32}/);
  });
});
