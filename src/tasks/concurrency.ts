/**
 * CONCURRENCY-CAP: hold the cap's worth of slow uploads in flight and send one more request, a fast
 * read, at a moment planned from the run's own timings, so that the verdict can show from those
 * timings alone that every held upload was in service when it arrived (verdicts/concurrency-cap.ts).
 * Nothing here depends on how the server treats a malformed request, or on what it counts.
 *
 * One measurement: fast reads one after another (their fastest round trip and spread bound the
 * network); one fewer than the cap of uploads sent together; a margin later the control, the same read
 * with those held; once the control's slot is free, the last upload; then the extra, placed from when
 * the uploads really left (extraSendAt). The margins come from those bounds and the fastest upload
 * seen (support/held-timing.ts: planHold), the waits from the network's margins (measure/network.ts).
 * A measurement whose extra went too early or too late is repeated while the window's ingest quota has
 * room for another cap of uploads (uploads refused for quota would pass for the cap's refusals).
 */
import { endpointById } from '../contract/lookup.ts';
import type { WindowContext } from '../measure/window.ts';
import { sleep } from '../util/sleep.ts';
import { figuresOf } from '../contract/org-limits.ts';
import type { Edge, ProbeRequest } from '../measure/http-prober.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import { announcedWaitS } from '../measure/reset-format.ts';
import { uploadsToTest } from '../suite/announced-limit.ts';
import type { ConcurrencyPhase } from '../measure/tags.ts';
import {
  extraSendAt,
  fastestUploadMs,
  latencyOf,
  planHold,
  tooFastToHold,
  type HoldPlan,
} from '../verdicts/support/held-timing.ts';
import { heldUploadFigures } from '../measure/network.ts';
import type { Finding } from '../catalogue/types.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { requestFor } from '../measure/requests.ts';
import { inFreshWindow } from '../suite/fresh-window.ts';
import { defineTask, inconclusiveFinding, type Decisions } from '../suite/task.ts';
import { because } from '../catalogue/reasons/index.ts';

/** Fast reads timed before each measurement: their fastest and their spread bound its network. */
const ROUND_TRIP_READS = 5;
/** Round trips timed again at most this many times while too slow to place a request among held uploads. */
const QUIET_ATTEMPTS = 5;
/** Measurements per task at most (each spends a cap of ingest units). */
const MAX_ATTEMPTS = 3;
/** Reads each measurement sends besides the timed ones: the control and the extra. */
const PROBE_READS = 2;

export const concurrency = defineTask({
  kind: 'concurrency',
  decides: { 'CONCURRENCY-CAP': '' },
  consumes: 'ingest',
  readsToo: true,
  uploads: true,
  orgs: 1,
  placement: 'lane',
  // One measurement holds uploads for about one upload's time, and its reads go around them; more
  // measurements only while the window's quota and time allow.
  rounds: () => 2,
  describe:
    "the cap's worth of slow uploads held in flight, a read with one fewer held, then one more read with them all held",
  run: (context, task) => {
    const org = task.orgs[0]!;
    // One upload shows the ingest window fresh, and how long an upload takes before any is held.
    const upload = () =>
      context.prober.send(
        context.prober.edges[0]!,
        requestFor(endpointById(context.contract, 'resume-analysis'), org.primary.key, { runId: context.runId }),
        { check: 'CONCURRENCY-CAP', tier: org.tier, org: org.label, phase: 'hold' },
      );
    const uploads = endpointById(context.contract, 'resume-analysis').path;
    return inFreshWindow(context, task, 'ingest', { first: upload, uploads }, (window, first) =>
      measureCap(context, org, window, first),
    );
  },
});

/** What the measurements so far saw: the round trips and uploads every later one plans and judges by. */
interface Seen {
  readonly roundTrips: Observation[];
  readonly uploads: Observation[];
}

/**
 * The task's body in its fresh ingest window, after the upload that showed it (`first`): measure until
 * one decides, or the quota has no room for another.
 */
async function measureCap(
  context: SuiteContext,
  org: OrgHandle,
  window: WindowContext,
  first: Observation,
): Promise<Decisions<'CONCURRENCY-CAP'>> {
  const figures = figuresOf(context.contract, org);
  const cap = figures.concurrency.value;
  const profile = context.profileOf(org.tier);
  const limit = uploadsToTest(figures.ingest, first);
  // Where one counter holds both classes, the reads spend the ingest quota too.
  const units = cap + (profile?.classesIndependent.value === false ? ROUND_TRIP_READS + PROBE_READS : 0);
  // What is left in the window: the server's own Remaining after the first upload, else the figure less what counted.
  let room = first.rateLimit.remaining.value ?? limit - window.prior.length - 1;
  const seen: Seen = { roundTrips: [], uploads: [first] };
  let finding: Finding | null = null;
  let attempts = 0;
  while (attempts < MAX_ATTEMPTS && room >= units && !context.signal.aborted) {
    attempts += 1;
    room -= units;
    finding = await measureOnce(context, org, cap, seen);
    if (finding.measureAgain !== 'this-window') break;
  }
  if (finding === null) {
    const why = context.signal.aborted
      ? because('interrupted', { wouldHaveBeen: '' })
      : because('no-room-to-measure', { room, needed: units });
    return {
      'CONCURRENCY-CAP': inconclusiveFinding(
        `room for the ${cap} held uploads`,
        why,
        [],
        ["uploads refused for quota would pass for the cap's refusals: nothing was held"],
      ),
    };
  }
  if (finding.verdict === 'inconclusive' && attempts > 1) {
    finding = {
      ...finding,
      notes: [
        ...finding.notes,
        `measured ${attempts} times in the window, as many as its ingest quota (${limit}) has room for`,
      ],
    };
  }
  // Timings a moment spoiled, the window's quota spent on them: another window may decide it.
  if (finding.measureAgain === 'this-window') finding = { ...finding, measureAgain: 'next-window' };
  return { 'CONCURRENCY-CAP': finding };
}

async function measureOnce(context: SuiteContext, org: OrgHandle, cap: number, seen: Seen): Promise<Finding> {
  const edge = context.prober.edges[0]!;
  const tags = { check: 'CONCURRENCY-CAP', tier: org.tier, org: org.label } as const;
  // A planned send carries the moment it was due: how late its timer fired is in the observations.
  const send = (request: ProbeRequest, phase: ConcurrencyPhase, intendedAt?: number) =>
    context.prober.send(edge, request, { ...tags, phase, ...(intendedAt === undefined ? {} : { intendedAt }) });
  const read = requestFor(endpointById(context.contract, 'jobs-list'), org.primary.key);
  const upload = requestFor(endpointById(context.contract, 'resume-analysis'), org.primary.key, {
    runId: context.runId,
  });
  // Open the connections first (unauthenticated HEADs touch no organization's cap or quota), so the
  // held requests leave at once instead of queueing behind TCP handshakes.
  await Promise.all(
    Array.from({ length: cap + 1 }, () => send({ method: 'HEAD', path: '/recruiter/bootstrap', key: null }, 'warm-up')),
  );
  const trips = await quietRoundTrips(context, edge, () => send(read, 'round-trip'), fastestUploadMs(seen.uploads));
  seen.roundTrips.push(...trips);
  const refused = trips.find((o) => !isAdmitted(o));
  if (refused) {
    const finding = inconclusiveFinding(
      'reads admitted, to time a round trip and to test the cap with',
      because('refused-before-held', {
        request: refused.id,
        status: refused.status,
        error: refused.error?.code ?? null,
      }),
      trips.map((o) => o.id),
      ["the extra request is a read: a read refused for its quota would pass for the cap's refusal"],
    );
    // A network that lost the reads may not lose them next time: another window may decide.
    return refused.status === null ? { ...finding, measureAgain: 'next-window' } : finding;
  }
  // This measurement's own round trips bound its network: an earlier one's slow moment is not its own.
  const plan = holdPlanOf(context, edge, trips, fastestUploadMs(seen.uploads));
  if (plan === null) return inconclusiveFinding('round trips timed', because('interrupted', { wouldHaveBeen: '' }));

  const heldAt = context.prober.now();
  const first = Array.from({ length: cap - 1 }, () => send(upload, 'hold'));
  const controlDue = heldAt + plan.controlAfterMs;
  await sleep(controlDue - context.prober.now(), context.signal);
  const control = await send(read, 'control', controlDue);
  const lastDue = context.prober.now() + plan.slotWaitMs;
  await sleep(plan.slotWaitMs, context.signal);
  const lastAt = context.prober.now();
  const last = send(upload, 'hold', lastDue);
  // The extra's place by the figures as the verdict will take them: the control's round trip among
  // the fast reads, the timers' lateness so far as λ.
  const lateMs = Math.max(control.sentAt - controlDue, lastAt - lastDue);
  const figures = heldUploadFigures([...trips, control].map(latencyOrNaN), lateMs) ?? plan.figures;
  // Due when planned, even where a stall since the last upload has passed it: that lateness is λ too.
  const extraDue = extraSendAt(plan, figures, { heldAt, lastAt });
  await sleep(extraDue - context.prober.now(), context.signal);
  const extra = await send(read, 'extra', extraDue);
  const held = await Promise.all([...first, last]);

  const earlierUploads = [...seen.uploads];
  seen.uploads.push(...held);
  return context.judgements.judge('concurrencyCapVerdict', {
    held,
    extra,
    control,
    roundTrips: trips,
    earlierUploads,
    figure: figuresOf(context.contract, org).concurrency,
    rejectedStatus: context.contract.statuses.concurrencyCapped,
  });
}

const latencyOrNaN = (o: Observation): number => latencyOf(o) ?? Number.NaN;

/** The plan of one measurement: its round trips' bounds, the fastest upload seen, and the wait for a slot to free. */
function holdPlanOf(
  context: SuiteContext,
  edge: Edge,
  trips: readonly Observation[],
  fastestMs: number | null,
): HoldPlan | null {
  // How late the timers fire is seen as the measurement sends (extraSendAt), not planned for.
  const figures = heldUploadFigures(trips.map(latencyOrNaN), 0);
  return figures && planHold(figures, fastestMs, context.network.margins(edge.label).slotFreedMs);
}

/**
 * Fast reads timed one after another. A round trip slowed by a moment's load leaves no room among
 * held uploads: timed again, a few times at most, before anything is held (the round trips are reads;
 * no upload is spent). Returns the last timing, or the first with a read refused or lost.
 */
async function quietRoundTrips(
  context: SuiteContext,
  edge: Edge,
  readOnce: () => Promise<Observation>,
  fastestMs: number | null,
): Promise<Observation[]> {
  let trips: Observation[] = [];
  for (let attempt = 1; attempt <= QUIET_ATTEMPTS && !context.signal.aborted; attempt++) {
    trips = await timeRoundTrips(context, readOnce);
    if (fastestMs === null || trips.some((o) => !isAdmitted(o))) break;
    const plan = holdPlanOf(context, edge, trips, fastestMs);
    if (plan === null || !tooFastToHold(plan.figures, fastestMs, plan.slotWaitMs)) break;
    await sleep(context.network.margins(edge.label).retimeAfterMs, context.signal);
  }
  return trips;
}

/**
 * Fast reads one after another. Refused (the read quota used up by an earlier check), or leaving
 * none for the control and the extra: wait for the read window to pass (the refusal's Retry-After,
 * else a window) and read again, once.
 */
async function timeRoundTrips(context: SuiteContext, readOnce: () => Promise<Observation>): Promise<Observation[]> {
  const readAll = async () => {
    const trips: Observation[] = [];
    for (let i = 0; i < ROUND_TRIP_READS && !context.signal.aborted; i++) {
      // A read lost on the way times nothing: sent again, once.
      const o = await readOnce();
      trips.push(o.status === null && !context.signal.aborted ? await readOnce() : o);
    }
    return trips;
  };
  const trips = await readAll();
  const left = trips[trips.length - 1]?.rateLimit.remaining.value ?? null;
  const refused = trips.find((o) => !isAdmitted(o));
  if (!refused && (left === null || left >= PROBE_READS)) return trips;
  const waitS = refused ? announcedWaitS(refused) : null;
  await sleep(
    Math.min(waitS === null ? context.windowMs : waitS * 1000, context.windowMs) + context.network.margins().waitOutMs,
    context.signal,
  );
  return readAll();
}
