/**
 * One revocation trial (§5.8, §5.9, §8.3). The driver records, it never judges:
 * 1. confirm the key, and its successor (ROTATION), are admitted on every edge;
 * 2. probe every edge on a fixed slot grid (`intervalMs`), whatever the round trip: a probe goes at
 *    every slot while earlier ones are out, up to as many in flight per edge as the round trips
 *    measured to it call for (measure/network.ts probePace: one on loopback), never more than the
 *    trial's share (`inFlightCeiling`), spread over a round trip when held to fewer, on connections
 *    opened first (HttpProber.warm); a slot that falls while that many are out is skipped and
 *    counted. Answers may then cross: the verdicts allow for it (verdicts/support/revocation-bounds.ts);
 * 3. `leadMs` into the probing, call the revoke hook, recording when it was called and returned; its
 *    connection was opened just before the probing (KeyRevoker.warm), so that the call the SLA clock
 *    starts at holds no handshake;
 * 4. keep probing until every edge has rejected the key and then for `settleMs` (flapping), never
 *    longer than `maxMs` after the revoke call;
 * 5. one final probe per edge (AUTH-REVOKED), and the successor once more on every edge.
 * Every probe goes through the HttpProber, so every one is in the observations file.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TierName } from '../contract/types.ts';
import type { Edge, HttpProber, ProbeRequest } from '../measure/http-prober.ts';
import { isAdmittedStatus } from '../measure/observation.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { KeyHandle, KeyRevoker } from '../contract/handles.ts';
import { redactKey } from '../contract/keys.ts';
import { bounded } from '../util/bounded.ts';
import {
  probeRecord,
  type ProbePacing,
  type ProbeRecord,
  type ProbeStop,
  type RevokeConnection,
  type RevocationProbeRun,
} from '../measure/revocation-records.ts';
import type { ProbePhase } from '../measure/tags.ts';
import { messageOf } from '../util/errors.ts';
import { probePace, probeRoundTripMs } from '../measure/network.ts';

export interface TrialTiming {
  /** Probe slot spacing per edge, ms. */
  readonly intervalMs: number;
  /** How long to keep probing after every edge rejected, ms. */
  readonly settleMs: number;
  /** Probing never lasts longer than this after the revoke call, ms. */
  readonly maxMs: number;
  /** How long to try to see a key admitted on every edge before revoking, ms. */
  readonly confirmMs: number;
  /** How long probing runs before the revoke call, ms. */
  readonly leadMs: number;
  /** Guard on the revoke hook, on top of the hook's own timeout, ms. */
  readonly revokeTimeoutMs: number;
}

export interface TrialOptions {
  readonly prober: HttpProber;
  readonly hook: KeyRevoker;
  readonly trial: number;
  readonly key: KeyHandle;
  readonly successor: KeyHandle | null;
  readonly successorError: string | null;
  readonly timing: TrialTiming;
  /** The probe request for a key (HEAD /recruiter/bootstrap). */
  readonly request: (key: string) => ProbeRequest;
  /** Status meaning "rejected as revoked" (401 by the auth-status assumption). */
  readonly rejectStatus: number;
  readonly tags: { readonly tier: TierName | null; readonly org: string | null };
  /** Client wall clock, epoch ms. */
  readonly wallNow: () => number;
  readonly signal: AbortSignal;
  /** Called when the revoke hook has returned without error. */
  readonly onRevoked?: () => void;
  /**
   * Where the slot grid falls on the prober's clock, modulo `intervalMs`: trials running at once on
   * different phases take turns instead of sending together. Absent: the grid starts at once.
   */
  readonly slotPhaseMs?: number;
  /** The most probes this trial keeps in flight to one edge, whatever the round trip asks for (parallel.ts inFlightCeiling). */
  readonly inFlightCeiling: number;
}

/** What the dense loop's stop rule sees. */
export interface LoopView {
  readonly now: number;
  readonly revokeStartedAt: number | null;
  readonly revoke: 'not-called' | 'pending' | 'returned' | 'failed';
  /** Per edge, when its first rejection arrived (headersAt), or null. */
  readonly firstRejections: readonly (number | null)[];
  readonly aborted: boolean;
}

/** The dense loop's stop rule; null: keep probing. Pure. */
export function stopReason(view: LoopView, timing: Pick<TrialTiming, 'settleMs' | 'maxMs'>): ProbeStop | null {
  if (view.aborted) return 'aborted';
  if (view.revoke === 'failed') return 'revoke-failed';
  if (view.revokeStartedAt === null) return null;
  if (view.now >= view.revokeStartedAt + timing.maxMs) return 'max-time';
  const rejections = view.firstRejections;
  if (view.revoke !== 'returned' || rejections.some((r) => r === null)) return null;
  const lastEdge = Math.max(...(rejections as number[]));
  return view.now >= lastEdge + timing.settleMs ? 'settled' : null;
}

const PHASE_CHECK: Readonly<Record<ProbePhase, CheckId>> = {
  confirm: 'REVOKE-LATENCY',
  probe: 'REVOKE-LATENCY',
  final: 'AUTH-REVOKED',
  'successor-before': 'ROTATION',
  'successor-after': 'ROTATION',
};

const CONFIRM_RETRY_MS = 50;
const MAX_CONFIRM_ROUNDS = 100;

/** The first moment from `now` on at `phaseMs` modulo `intervalMs` (`now` itself without a phase). */
function gridStart(now: number, intervalMs: number, phaseMs: number | undefined): number {
  if (phaseMs === undefined) return now;
  return now + ((((phaseMs - now) % intervalMs) + intervalMs) % intervalMs);
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return;
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** What a trial's phases share: its options, and the probes and notes it records. */
interface Trial {
  readonly o: TrialOptions;
  readonly probes: ProbeRecord[];
  readonly notes: string[];
}

/** Sends one probe through the prober and records it; `intendedAt`: the probe's slot, so that late sends show in the observations file. */
async function sendProbe(
  t: Trial,
  edge: Edge,
  key: string,
  phase: ProbePhase,
  intendedAt?: number,
): Promise<ProbeRecord> {
  const { o } = t;
  const observation = await o.prober.send(edge, o.request(key), {
    check: PHASE_CHECK[phase],
    phase: `${phase}/${o.trial}`,
    tier: o.tags.tier,
    org: o.tags.org,
    ...(intendedAt === undefined ? {} : { intendedAt }),
  });
  const record = probeRecord(observation, phase);
  t.probes.push(record);
  return record;
}

/** Probe the edges not yet admitting, every CONFIRM_RETRY_MS, until all admit or the time is up. */
async function confirmAdmitted(t: Trial, key: string, phase: ProbePhase): Promise<string[]> {
  const { prober, timing, signal } = t.o;
  let pending = [...prober.edges];
  const deadline = prober.now() + timing.confirmMs;
  for (let round = 0; round < MAX_CONFIRM_ROUNDS && pending.length > 0 && !signal.aborted; round++) {
    const answers = await Promise.all(pending.map((edge) => sendProbe(t, edge, key, phase)));
    pending = pending.filter((_, i) => !isAdmittedStatus(answers[i]!.status));
    if (pending.length === 0 || prober.now() + CONFIRM_RETRY_MS > deadline) break;
    await pause(CONFIRM_RETRY_MS, signal);
  }
  return pending.map((e) => e.label);
}

/** The run's fields known before any probe. */
function runBase(o: TrialOptions) {
  return {
    trial: o.trial,
    edges: o.prober.edges.map((e) => e.label),
    key: redactKey(o.key.key),
    successorKey: o.successor ? redactKey(o.successor.key) : null,
    successorError: o.successorError,
    intervalMs: o.timing.intervalMs,
    settleMs: o.timing.settleMs,
    maxMs: o.timing.maxMs,
  };
}

/** Confirms the key, then its successor, admitted on every edge; the edges that never admitted the key. */
async function confirmKeys(t: Trial): Promise<string[]> {
  const unconfirmed = await confirmAdmitted(t, t.o.key.key, 'confirm');
  if (t.o.successor) {
    const notAdmitted = await confirmAdmitted(t, t.o.successor.key, 'successor-before');
    if (notAdmitted.length > 0)
      t.notes.push(`the successor key was not admitted on ${notAdmitted.join(', ')} before the revoke call`);
  }
  return unconfirmed;
}

/** The run of a trial that never called the revoke hook: the key unconfirmed, or Ctrl-C. */
function unrevokedRun(t: Trial, base: ReturnType<typeof runBase>, unconfirmed: readonly string[]): RevocationProbeRun {
  if (unconfirmed.length > 0)
    t.notes.unshift(
      `the key was not admitted on ${unconfirmed.join(', ')} within ${t.o.timing.confirmMs} ms: the revoke hook was not called`,
    );
  return {
    ...base,
    revokeStartedAt: null,
    revokeStartedWall: null,
    revokeReturnedAt: null,
    revokeError: null,
    stoppedBy: t.o.signal.aborted ? 'aborted' : 'not-confirmed',
    revokeConnection: null,
    pacing: [],
    skippedSlots: 0,
    probes: t.probes,
    notes: t.notes,
  };
}

/** What the dense loop's edges and its revoke call share. */
interface DenseLoop {
  readonly t: Trial;
  /** Per edge (in the prober's order), how many probes it keeps in flight, and why. */
  readonly pacing: readonly ProbePacing[];
  /** Per edge, when its first rejection after the revoke call arrived (headersAt), or null. */
  readonly firstRejections: (number | null)[];
  readonly revoke: RevokeCall;
  skippedSlots: number;
  stoppedBy: ProbeStop | null;
  readonly startAt: number;
  readonly hardEnd: number;
  readonly maxSlots: number;
}

/**
 * Per edge, the probes in flight the round trips measured to it call for (the trial's confirmation
 * probes have just measured them), held to the trial's ceiling.
 */
function paceOf(o: TrialOptions): ProbePacing[] {
  const { prober, timing } = o;
  return prober.edges.map((edge): ProbePacing => {
    const figures = prober.network.figures(edge.label);
    const pace = probePace(figures, timing.intervalMs, o.inFlightCeiling);
    return { edge: edge.label, ...pace, slowRoundTripMs: Math.round(probeRoundTripMs(figures) * 10) / 10 };
  });
}

/** Opens the connections the probes to each edge keep in flight, beyond the one the confirmation used. */
async function openProbeConnections(o: TrialOptions, pacing: readonly ProbePacing[]): Promise<void> {
  const { prober } = o;
  await Promise.all(
    prober.edges.map((edge, i) => (pacing[i]!.inFlight > 1 ? prober.warm(edge, pacing[i]!.inFlight) : null)),
  );
}

/** The dense loop's state: one slot grid for all edges, its pace, and its hard bounds. */
function denseLoop(t: Trial, pacing: readonly ProbePacing[]): DenseLoop {
  const { prober, timing } = t.o;
  const startAt = gridStart(prober.now(), timing.intervalMs, t.o.slotPhaseMs);
  // Hard bounds, whatever the hook does: slots and time.
  const hardEnd = startAt + timing.leadMs + timing.revokeTimeoutMs + timing.maxMs;
  const maxSlots = Math.ceil((hardEnd - startAt) / timing.intervalMs) + 1;
  return {
    t,
    pacing,
    firstRejections: prober.edges.map(() => null),
    revoke: { state: 'not-called', startedAt: null, startedWall: null, returnedAt: null, error: null },
    skippedSlots: 0,
    stoppedBy: null,
    startAt,
    hardEnd,
    maxSlots,
  };
}

/** The stop rule on the loop as it stands; once it says stop, it says so for good. */
function loopStop(d: DenseLoop): ProbeStop | null {
  const { prober, signal, timing } = d.t.o;
  d.stoppedBy ??= stopReason(
    {
      now: prober.now(),
      revokeStartedAt: d.revoke.startedAt,
      revoke: d.revoke.state,
      firstRejections: d.firstRejections,
      aborted: signal.aborted,
    },
    timing,
  );
  return d.stoppedBy;
}

/** Sends one dense-loop probe at `slot`, noting the edge's first rejection answered after the revoke call began. */
async function probeAtSlot(d: DenseLoop, edge: Edge, index: number, slot: number): Promise<void> {
  const { key, rejectStatus } = d.t.o;
  const record = await sendProbe(d.t, edge, key.key, 'probe', slot);
  const revokeAt = d.revoke.startedAt;
  const answeredSince = record.headersAt !== null && revokeAt !== null && record.headersAt >= revokeAt;
  if (record.status === rejectStatus && answeredSince && d.firstRejections[index] === null) {
    d.firstRejections[index] = record.headersAt;
  }
}

/**
 * One edge's prober: a probe at every slot of its pace (every slot, unless held to fewer in flight
 * than the round trip asks for) until the loop stops, up to the pace's probes in flight; a slot that
 * falls while that many are out is skipped, as are the slots that begin while it waits for one to
 * come back (a probe never goes late). Returns once every probe it sent is answered.
 */
async function probeEdgeUntilStopped(d: DenseLoop, edge: Edge, index: number): Promise<void> {
  const { prober, signal } = d.t.o;
  const { inFlight, everyMs } = d.pacing[index]!;
  const out = new Set<Promise<void>>();
  // A probe that throws (not a failed request: the prober records those) ends the edge's probing, and is thrown once the others are back.
  const thrown: unknown[] = [];
  let slot = d.startAt;
  for (let sent = 0; sent < d.maxSlots && thrown.length === 0 && loopStop(d) === null && prober.now() < d.hardEnd; ) {
    await pause(slot - prober.now(), signal);
    if (loopStop(d) !== null) break;
    const room = out.size < inFlight;
    if (room) {
      const probe: Promise<void> = probeAtSlot(d, edge, index, slot)
        .catch((error: unknown) => void thrown.push(error))
        .finally(() => out.delete(probe));
      out.add(probe);
      sent += 1;
    } else await Promise.race(out);
    // The next slot not yet begun; the ones that began meanwhile (and this one, if it had no room) are skipped.
    const advance = Math.max(1, Math.ceil((prober.now() - slot) / everyMs));
    d.skippedSlots += room ? advance - 1 : advance;
    slot += advance * everyMs;
  }
  await Promise.all(out);
  if (thrown.length > 0) throw thrown[0];
}

/** Most tries at reading both clocks without a pause between them; then the last reading stands. */
const PAIRED_READ_TRIES = 4;
/** A gap between the two monotonic reads longer than this is a pause (a GC, a busy core), ms. */
const PAIRED_READ_GAP_MS = 0.5;

/**
 * The monotonic and the wall clock read at one moment: the wall clock between two monotonic reads,
 * read again while a pause falls between them (bounded). A pause between a lone pair would set the
 * wall time that stands beside the brackets (server times, other vantages) that pause away from
 * them. `at` is the later monotonic read: the revoke call begins after it.
 */
export function readTogether(monotonic: () => number, wall: () => number): { at: number; wall: number } {
  let before = monotonic();
  let read = wall();
  let after = monotonic();
  for (let tries = 1; tries < PAIRED_READ_TRIES && after - before > PAIRED_READ_GAP_MS; tries++) {
    before = monotonic();
    read = wall();
    after = monotonic();
  }
  return { at: after, wall: read };
}

/**
 * Opens the revoke call's connection (KeyRevoker.warm), bounded like the call; a failure is recorded
 * and the trial goes on: its revoke call may then carry a handshake, which REVOKE-LATENCY says.
 */
async function warmRevokeCall(o: TrialOptions): Promise<RevokeConnection> {
  const warm = o.hook.warm;
  if (!warm) return { state: 'none' };
  const guard = o.timing.revokeTimeoutMs;
  try {
    await bounded(warm.call(o.hook), guard, () => new Error(`no answer within ${guard} ms`));
    return { state: 'warm' };
  } catch (error) {
    return { state: 'cold', why: messageOf(error) };
  }
}

/** Calls the revoke hook, bounded, recording when it was called and returned, or how it failed. */
function callRevokeHook(d: DenseLoop): Promise<void> {
  const { o } = d.t;
  const { prober, timing } = o;
  const revoke = d.revoke;
  const start = readTogether(() => prober.now(), o.wallNow);
  revoke.startedWall = start.wall;
  revoke.startedAt = start.at;
  revoke.state = 'pending';
  return bounded(
    o.hook.revokeKey(o.key),
    timing.revokeTimeoutMs,
    () => new Error(`the revoke hook did not return within ${timing.revokeTimeoutMs} ms`),
  ).then(
    () => {
      revoke.returnedAt = prober.now();
      revoke.state = 'returned';
      o.onRevoked?.();
    },
    (error: unknown) => {
      revoke.returnedAt = prober.now();
      revoke.error = messageOf(error);
      revoke.state = 'failed';
    },
  );
}

/** Probes every edge on the slot grid at `pacing`, revokes `leadMs` in, and watches every edge until refused and settled. */
async function probeThroughRevocation(
  t: Trial,
  pacing: readonly ProbePacing[],
): Promise<{ d: DenseLoop; reason: ProbeStop }> {
  const { prober, timing, signal } = t.o;
  // The dense loop: one slot grid for all edges, each edge its own prober.
  const d = denseLoop(t, pacing);
  const loops = Promise.all(prober.edges.map((edge, index) => probeEdgeUntilStopped(d, edge, index)));

  await pause(d.startAt + timing.leadMs - prober.now(), signal);
  let revoking: Promise<void> = Promise.resolve();
  if (!signal.aborted) revoking = callRevokeHook(d);
  await loops;
  await revoking;
  const reason: ProbeStop = loopStop(d) ?? (d.revoke.state === 'failed' ? 'revoke-failed' : 'max-time');
  return { d, reason };
}

/** One final probe per edge (AUTH-REVOKED), and the successor once more on every edge. */
async function probeAfterRevocation(t: Trial): Promise<void> {
  const { prober, key } = t.o;
  await Promise.all(prober.edges.map((edge) => sendProbe(t, edge, key.key, 'final')));
  const successor = t.o.successor;
  if (successor) await Promise.all(prober.edges.map((edge) => sendProbe(t, edge, successor.key, 'successor-after')));
}

export async function runTrial(o: TrialOptions): Promise<RevocationProbeRun> {
  const t: Trial = { o, probes: [], notes: [] };
  const base = runBase(o);
  const unconfirmed = await confirmKeys(t);
  if (unconfirmed.length > 0 || o.signal.aborted) return unrevokedRun(t, base, unconfirmed);

  // Every connection the probing and the revoke call take is open before either is timed.
  const pacing = paceOf(o);
  const [revokeConnection] = await Promise.all([warmRevokeCall(o), openProbeConnections(o, pacing)]);
  const { d, reason } = await probeThroughRevocation(t, pacing);
  if (reason === 'max-time')
    t.notes.push(
      `probing stopped ${o.timing.maxMs} ms after the revoke call, before every edge had rejected and settled`,
    );
  if (reason === 'settled' || reason === 'max-time') await probeAfterRevocation(t);
  return {
    ...base,
    revokeStartedAt: d.revoke.startedAt,
    revokeStartedWall: d.revoke.startedWall,
    revokeReturnedAt: d.revoke.returnedAt,
    revokeError: d.revoke.error,
    stoppedBy: reason,
    revokeConnection,
    pacing: d.pacing,
    skippedSlots: d.skippedSlots,
    probes: t.probes,
    notes: t.notes,
  };
}

interface RevokeCall {
  state: LoopView['revoke'];
  startedAt: number | null;
  startedWall: number | null;
  returnedAt: number | null;
  error: string | null;
}
