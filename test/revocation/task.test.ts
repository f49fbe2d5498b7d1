/**
 * Revocation trials against the reference target over loopback (3 edges, 300 ms propagation): the
 * clean target passes and every bracket holds the moment the target says the edge began rejecting;
 * each revocation fault fails the check it breaks.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { CheckResult } from '../../src/catalogue/types.ts';
import type { LatencyRow } from '../../src/verdicts/revoke-latency.ts';
import { edgeBounds, edgeProbes } from '../../src/verdicts/support/revocation-bounds.ts';
import { runRevocationTrials } from '../../src/revocation/trials.ts';
import { adminApiHook } from '../../src/provision/hooks/admin-api.ts';
import { requestFor } from '../../src/measure/requests.ts';
import { revocationTiming } from '../../src/revocation/task.ts';
import { endpointById } from '../../src/contract/lookup.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { AdminRevocation } from '../../src/reference-server/admin-client.ts';
import type { RunEvent } from '../../src/results/events.ts';
import { unissuedKey } from '../../src/contract/keys.ts';
import { HookError } from '../../src/provision/hooks/hook-error.ts';
import { CLOCK_NOTE_START } from '../../src/verdicts/support/revocation-method.ts';
import { recordingAdminHook, runRevocation, startHarness, type Harness } from '../helpers/revocation-harness.ts';

const DELAY_MS = 300;
const SHAPE = { trials: 2, intervalMs: 10, settleMs: 400 };
/**
 * The harness's wall clock is whole ms on both sides (the target's revocation time and ours at the
 * revoke call), and our wall read may sit up to half a millisecond before the revoke call's start.
 */
const CLOCK_GRAIN_MS = 2;

let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const byId = (results: readonly CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r]));

describe('the clean target', () => {
  test('every bracket holds the moment the target applied the revocation on that edge', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS });
    const revocations: AdminRevocation[] = [];
    const head = endpointById(recruitingApi, 'bootstrap-head');
    const outcome = await runRevocationTrials({
      prober: harness.context(null).prober,
      hook: recordingAdminHook(harness.admin, revocations),
      org: harness.org,
      trials: SHAPE.trials,
      chains: 1,
      timing: revocationTiming(SHAPE, recruitingApi.revocationSlaMs),
      // A Starter organization's cap of 5 over 3 edges: one probe in flight per edge.
      inFlightCeiling: 1,
      request: (key) => requestFor(head, key),
      rejectStatus: 401,
      provisionTimeoutMs: 10_000,
      wallNow: harness.wallNow,
      signal: new AbortController().signal,
    });
    expect(outcome.problems).toEqual([]);
    expect(outcome.runs.map((r) => r.stoppedBy)).toEqual(['settled', 'settled']);
    expect(revocations).toHaveLength(SHAPE.trials + 1); // the last successor is revoked in clean-up
    for (const run of outcome.runs) {
      const revocation = revocations[run.trial - 1]!;
      const revokeCallMs = run.revokeReturnedAt! - run.revokeStartedAt!;
      for (const b of edgeBounds(run, 401)) {
        // When the target says this edge began rejecting, in ms from our revoke call.
        const effective = revocation.edges.find((e) => e.edge === b.edge)!.effectiveAt - run.revokeStartedWall!;
        expect(effective).toBeGreaterThanOrEqual(DELAY_MS - CLOCK_GRAIN_MS);
        expect(effective).toBeLessThanOrEqual(DELAY_MS + revokeCallMs + CLOCK_GRAIN_MS);
        // The bracket holds it, and so holds the configured delay.
        expect(b.lowerMs!).toBeLessThanOrEqual(effective + CLOCK_GRAIN_MS);
        expect(b.upperMs!).toBeGreaterThanOrEqual(effective - CLOCK_GRAIN_MS);
        expect(b.lowerMs!).toBeLessThanOrEqual(DELAY_MS + revokeCallMs + CLOCK_GRAIN_MS);
        expect(b.upperMs!).toBeGreaterThanOrEqual(DELAY_MS - CLOCK_GRAIN_MS);
        // As tight as the sampling allows: the rejection is the very next probe after the admission,
        // so the width is one send gap plus that probe's round trip.
        const probes = edgeProbes(run, b.edge);
        const i = probes.indexOf(b.lastAdmitted!);
        expect(probes[i + 1]).toBe(b.firstRejected);
        expect(b.widthMs!).toBeCloseTo(b.firstRejected!.headersAt! - b.lastAdmitted!.sentAt, 6);
        expect(b.edgeNode).toBe(b.edge);
      }
    }
  });

  test('the task passes all four checks and writes revocation.csv without keys', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS });
    const dir = await mkdtemp(join(tmpdir(), 'tiergate-revocation-'));
    try {
      const results = await runRevocation(harness.context(adminApiHook(harness.admin), dir), harness.org, SHAPE);
      const checks = byId(results);
      expect(Object.keys(checks).sort()).toEqual(['AUTH-REVOKED', 'REVOKE-LATENCY', 'REVOKE-STICKY', 'ROTATION']);
      for (const r of results)
        expect({ id: r.id, verdict: r.verdict, reasons: r.reasons }).toMatchObject({ verdict: 'pass' });
      const rows = (checks['REVOKE-LATENCY']!.data as { trials: LatencyRow[] }).trials;
      expect(rows).toHaveLength(SHAPE.trials * 3);
      const csv = await readFile(join(dir, 'revocation.csv'), 'utf8');
      expect(csv.trim().split('\n')).toHaveLength(1 + SHAPE.trials * 3);
      expect(csv).not.toMatch(/xh_test_[A-Za-z0-9]{32}/);
      // Every probe is an observation, and none holds a full key.
      expect(harness.observations.length).toBeGreaterThan(100);
      expect(JSON.stringify(harness.observations)).not.toMatch(/xh_test_[A-Za-z0-9]{32}/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('without a key hook the four checks are skipped with the reason', async () => {
    harness = await startHarness();
    const results = await runRevocation(harness.context(null), harness.org, SHAPE);
    expect(results.map((r) => r.verdict)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(results.map((r) => r.reasons)).toEqual(Array(4).fill([{ code: 'no-revocation-hook' }]));
    expect(harness.observations).toHaveLength(0);
  });
});

describe("the revoke call's connection", () => {
  const clockNote = (results: readonly CheckResult[]) =>
    byId(results)['REVOKE-LATENCY']!.notes.find((n) => n.startsWith(CLOCK_NOTE_START)) ?? '';

  test('opened before the call where the hook can: the clock starts on a connection already open', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS });
    const results = await runRevocation(harness.context(adminApiHook(harness.admin)), harness.org, {
      ...SHAPE,
      trials: 1,
    });
    expect(byId(results)['REVOKE-LATENCY']!.verdict).toBe('pass');
    expect(clockNote(results)).toContain(
      'every bound counts from when the revoke call was sent, on a connection already open (no handshake inside it)',
    );
  });

  test('a warm that fails is noted, and the trial is judged all the same', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS });
    const hook = {
      ...adminApiHook(harness.admin),
      warm: async () => {
        throw new HookError('HOOK_FAILED', 'HEAD / refused');
      },
    };
    const results = await runRevocation(harness.context(hook), harness.org, { ...SHAPE, trials: 1 });
    expect(byId(results)['REVOKE-LATENCY']!.verdict).toBe('pass');
    expect(clockNote(results)).not.toContain('already open');
    expect(clockNote(results)).toContain(
      "in every trial the call's connection could not be opened beforehand (HEAD / refused), so its handshake may be inside the call",
    );
  });

  test('a hook with none to open (a command) says its start-up is inside the call', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS });
    const results = await runRevocation(harness.context(recordingAdminHook(harness.admin, [])), harness.org, {
      ...SHAPE,
      trials: 1,
    });
    expect(clockNote(results)).toContain('in every trial the hook had no connection to open beforehand');
  });
});

describe('revocation faults', () => {
  test('slow-revocation: REVOKE-LATENCY fails naming the slow edge', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS, faults: ['slow-revocation'] });
    const results = byId(
      await runRevocation(harness.context(adminApiHook(harness.admin)), harness.org, { ...SHAPE, settleMs: 300 }),
    );
    const latency = results['REVOKE-LATENCY']!;
    expect(latency.verdict).toBe('fail');
    expect(latency.reasons.length).toBeGreaterThan(0);
    for (const late of latency.reasons) {
      expect(late).toMatchObject({ code: 'still-admitted-past-sla', edge: 'edge-2', slaMs: 3000 });
      expect((late as { admittedMs: number }).admittedMs).toBeGreaterThanOrEqual(3000);
    }
    const rows = (latency.data as { trials: LatencyRow[] }).trials;
    for (const row of rows) {
      if (row.edge === 'edge-2') expect(row.lowerMs!).toBeGreaterThanOrEqual(3000);
      else expect(row.upperMs!).toBeLessThan(3000);
    }
    // The slow edge still rejects for good in the end.
    expect(results['AUTH-REVOKED']!.verdict).toBe('pass');
    expect(results['REVOKE-STICKY']!.verdict).toBe('pass');
  });

  test('revocation-flaps: REVOKE-STICKY fails, showing the re-admission on the flapping edge', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS, faults: ['revocation-flaps'] });
    const results = byId(
      await runRevocation(harness.context(adminApiHook(harness.admin)), harness.org, { ...SHAPE, settleMs: 500 }),
    );
    const sticky = results['REVOKE-STICKY']!;
    expect(sticky.verdict).toBe('fail');
    expect(sticky.reasons[0]).toMatchObject({
      code: 'readmitted-after-rejection',
      edge: 'edge-2',
      trial: 1,
      status: 200,
    });
    for (const r of sticky.reasons) expect(r).toMatchObject({ code: 'readmitted-after-rejection', edge: 'edge-2' });
    const again = (sticky.data as { readmissions: { edge: string; afterRejectionMs: number }[] }).readmissions;
    expect(new Set(again.map((r) => r.edge))).toEqual(new Set(['edge-2']));
    for (const r of again) expect(r.afterRejectionMs).toBeGreaterThan(0);
    expect(sticky.evidence.length).toBeGreaterThan(0);
    expect(results['REVOKE-LATENCY']!.verdict).toBe('pass');
  });
});

describe('probes that prove nothing', () => {
  test('head-counts: 429s are counted as unusable probes, never taken for rejections, with a warning', async () => {
    harness = await startHarness({ revocationDelayMs: DELAY_MS, variants: ['head-counts'] });
    const context = harness.context(adminApiHook(harness.admin));
    // Leave the org 9 HEADs in a fresh window: 3 + 3 to confirm the key and its successor, 3 for the
    // first probe slot. Every later probe is a 429 until the revocation makes the edges answer 401
    // (authentication comes before the quota).
    const edge = context.prober.edges[0]!;
    const head = requestFor(endpointById(recruitingApi, 'bootstrap-head'), harness.org.primary.key);
    // Tagged as what they are alike: window-sync polls (HEAD /recruiter/bootstrap), judged by no check.
    const tags = { check: 'WINDOW-SYNC', phase: 'window-sync', tier: null, org: null } as const;
    let first = await context.prober.send(edge, head, tags);
    const msLeft = first.rateLimit.reset.value! * 1000 - Date.now();
    if (msLeft < 5000) {
      await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
      first = await context.prober.send(edge, head, tags);
    }
    for (let remaining = first.rateLimit.remaining.value!; remaining > 9; remaining--)
      await context.prober.send(edge, head, tags);
    const events: RunEvent[] = [];
    const results = byId(
      await runRevocation({ ...context, emit: (e: RunEvent) => events.push(e) }, harness.org, { ...SHAPE, trials: 1 }),
    );
    const latency = results['REVOKE-LATENCY']!;
    const data = latency.data as {
      overall: { unusableProbes: number; rateLimitedProbes: number };
      trials: LatencyRow[];
    };
    for (const row of data.trials) {
      expect(row.unusableProbes).toBeGreaterThan(0);
      expect(row.upperMs!).toBeGreaterThanOrEqual(DELAY_MS - CLOCK_GRAIN_MS);
    }
    expect(data.overall.rateLimitedProbes).toBeGreaterThan(0);
    expect(latency.reasons).toContainEqual({
      code: 'unusable-probes',
      probes: data.overall.unusableProbes,
      rateLimited: data.overall.rateLimitedProbes,
    });
    expect(events.some((e) => e.type === 'warning' && e.message.includes('answered 429'))).toBe(true);
  });

  test('a key never admitted is never revoked: inconclusive, naming the edges', async () => {
    harness = await startHarness();
    let revoked = 0;
    const hook = {
      kind: 'command' as const,
      provisionKey: async () => ({ label: 'bogus', key: unissuedKey('xh_test_'), id: 'bogus', scopes: 'all' as const }),
      revokeKey: async () => {
        revoked += 1;
      },
    };
    const results = byId(
      await runRevocation(harness.context(hook), harness.org, { ...SHAPE, trials: 1 }, { confirmMs: 200 }),
    );
    expect(results['REVOKE-LATENCY']!.verdict).toBe('inconclusive');
    expect(results['REVOKE-LATENCY']!.reasons).toEqual([
      { code: 'key-not-confirmed', trial: 1, edges: ['edge-0', 'edge-1', 'edge-2'] },
    ]);
    expect(results['ROTATION']!.verdict).toBe('fail'); // the "successor" is rejected before any revocation
    expect(revoked).toBe(2); // clean-up only: the unconfirmed key and the successor, never a measured trial
  });
});
