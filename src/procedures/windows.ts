/**
 * Fresh windows per organization and quota class, scheduled from the limiter profile (README "How
 * it measures"). Every request the harness sends is seen here (recorder listener), so
 * the keeper knows, per organization and class, when the harness last sent and the latest window end
 * the server announced. A quota check then starts:
 *
 * - on clock-aligned windows, at once in the window under way while most of it is left, if the
 *   organization sent nothing in it but the request that showed it open (a Retry-After wait-out, the
 *   discovery's last read; in the window's ledger); else right after the server shows the next
 *   boundary (polled), with the poll that showed it in the window's ledger if the server counted it;
 * - on windows that start at the first request and on refilling limiters: once every window holding
 *   an earlier request of the organization is surely over (a full window after its last request, and
 *   past any end the server announced), so the check's first request opens a window of its own;
 * - when the profile could not tell: both, one after the other. Taking an aligned limiter for one
 *   that starts at the first request could start a check mid-window; the other way round only costs
 *   polls, so doubt goes to the aligned side.
 */
import { endpointById, quotaClassOfPath } from '../contract/lookup.ts';
import type { Contract, QuotaClass, TierName } from '../contract/types.ts';
import { awaitFreshWindow, sleep, windowOpenedBetween, type WindowSyncResult } from '../measure/window-sync.ts';
import type { HttpProber, ProbeRequest } from '../measure/http-prober.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import { announcedWaitS, endEstimateOf, resetFormatOf } from '../measure/reset-format.ts';
import type { LimiterProfile, WindowPhase } from '../profile/types.ts';
import type { WindowContext } from '../measure/window.ts';
import type { OrgHandle } from './handles.ts';

export interface WindowKeeperOptions {
  readonly contract: Contract;
  readonly prober: HttpProber;
  readonly windowMs: number;
  readonly signal: AbortSignal;
  readonly clockOffsetMs: () => number;
  /** ± bound of that estimate, ms. */
  readonly clockUncertaintyMs: () => number;
  /** Our wall clock, epoch ms. */
  readonly wallNow: () => number;
  /** The profile learned for a tier, once discovery finished (null: not learned). */
  readonly profileOf: (tier: TierName) => LimiterProfile | null;
}

interface Seen {
  /** When the server last answered a request of this organization and class: it counted it by then. */
  lastAnsweredAt: number;
  /** The last two answered requests of this organization and class, in the order answered. */
  previous: Observation | null;
  last: Observation | null;
  /** Latest end of a window the server announced for this organization and class, monotonic ms. */
  announcedEnd: number;
}

/** A window under way (opened by our last request, or untouched) is taken for a check while no more than this share of it is gone. */
const CARRY_WITHIN = 1 / 3;
/**
 * The discovery reads an announced end as rounded up; a server that rounds to nearest or down ends its
 * windows up to a second later than the phase it placed (see roundingAllowanceMs). Where waiting costs
 * nothing but a poll (taking a window under way), the whole second is allowed for: before the check
 * starts, and off the window's sure end.
 */
const ROUNDING_ALLOWANCE_MS = 1000;
/** Margin past a window's end before a request counts as in the next one: timers and rounding. */
const END_MARGIN_MS = 60;

/** How many recent answers, per tier and class, the round-trip estimate is taken over. */
const ROUND_TRIPS_KEPT = 32;
/** A window under way is taken only with this many times the time its check needs left in it. */
const NEED_MARGIN = 2;

export class WindowKeeper {
  readonly #options: WindowKeeperOptions;
  readonly #seen = new Map<string, Seen>();
  /** Recent round-trip times (ms) per tier and class, newest last. */
  readonly #roundTripTimes = new Map<string, number[]>();

  constructor(options: WindowKeeperOptions) {
    this.#options = options;
  }

  /** Recorder listener: every observation of an organization, whatever sent it. */
  observe(o: Observation): void {
    if (o.org === null) return;
    const quotaClass = quotaClassOfPath(this.#options.contract, o.path);
    const key = `${o.org}|${quotaClass}`;
    // Checks send admitted reads and uploads: a HEAD poll, a 429 or a revocation probe is cheaper.
    if (isAdmitted(o) && o.method !== 'HEAD') {
      const trips = this.#roundTripTimes.get(`${o.tier}|${quotaClass}`) ?? [];
      trips.push(o.doneAt - o.sentAt);
      if (trips.length > ROUND_TRIPS_KEPT) trips.shift();
      this.#roundTripTimes.set(`${o.tier}|${quotaClass}`, trips);
    }
    const seen = this.#seen.get(key) ?? { lastAnsweredAt: -Infinity, previous: null, last: null, announcedEnd: -Infinity };
    // A window a request opened starts when the server took it, at the latest when it answered.
    seen.lastAnsweredAt = Math.max(seen.lastAnsweredAt, o.headersAt ?? o.doneAt);
    if (o.status !== null) [seen.previous, seen.last] = [seen.last, o];
    const offset = this.#options.clockOffsetMs();
    const end = endEstimateOf(o, resetFormatOf(o, this.#options.windowMs, offset), offset, this.#options.clockUncertaintyMs());
    // A Reset further away than two windows is garbage, not a schedule (HDR-RESET judges it).
    if (end && end.latest - o.sentAt <= 2 * this.#options.windowMs) seen.announcedEnd = Math.max(seen.announcedEnd, end.latest);
    const wait = o.status === this.#options.contract.statuses.rateLimited ? announcedWaitS(o) : null;
    if (wait !== null && o.headersAt !== null && wait * 1000 <= 2 * this.#options.windowMs) {
      seen.announcedEnd = Math.max(seen.announcedEnd, o.headersAt + Math.ceil(wait) * 1000);
    }
    this.#seen.set(key, seen);
  }

  /**
   * Wait for a window of `quotaClass` that is fresh on every one of `orgs` (ORG-ISOLATED needs two),
   * and say how it opens. `roundTrips`: the check's requests that go one after another (a batch
   * counts once); a window under way is taken only with time enough left for them. Bounded: at most
   * two windows and a second of waiting, plus the sync.
   */
  async fresh(orgs: readonly OrgHandle[], quotaClass: QuotaClass, roundTrips = 0): Promise<WindowSyncResult> {
    const { prober, windowMs, signal } = this.#options;
    const first = orgs[0]!;
    const profile = this.#options.profileOf(first.tier);
    const algorithm = profile?.[quotaClass].algorithm.value ?? 'unknown';
    // Read and ingest on one counter: a window of either class is the same window.
    const classes: readonly QuotaClass[] = profile?.classesIndependent.value === false ? ['read', 'ingest'] : [quotaClass];
    // Without rate-limit headers a poll shows nothing, and may count unseen: wait by the clock instead.
    const boundary =
      profile?.headers.value === false ? () => this.#clockBoundary(orgs, classes, profile.read.phase.value) : () => this.#alignedBoundary(first, quotaClass);
    if (algorithm === 'fixed-aligned') {
      const under = this.#openedByLast(orgs, quotaClass) ?? this.#untouchedCurrent(orgs, classes);
      return under && this.#leavesEnough(under.window, first, quotaClass, roundTrips) ? under : boundary();
    }
    // Every earlier window of these organizations over: a full window after the last request, and
    // past the latest end the server announced (bounded, should a server announce nonsense).
    const now = prober.now();
    const over = Math.max(
      ...orgs.flatMap((org) =>
        classes.map((c) => {
          const seen = this.#seen.get(`${org.label}|${c}`);
          return seen ? Math.max(seen.lastAnsweredAt + windowMs, seen.announcedEnd) : -Infinity;
        }),
      ),
    );
    const until = Math.min(over + END_MARGIN_MS, now + 2 * windowMs + 1000);
    await sleep(until - now, signal);
    if (signal.aborted) return { ok: false, reason: 'interrupted', polls: [] };
    // Not known to start at the first request: also wait for a clock-aligned boundary. Safe for both
    // kinds (a poll that opens a first-request window shows it), at the cost of up to one window.
    if (algorithm === 'unknown') return boundary();
    return {
      ok: true,
      polls: [],
      window: { openedAt: prober.now(), openedUncertaintyMs: 0, lengthMs: windowMs, resetEpochS: null, opensAtFirstRequest: true, prior: [], placeBy: 'timing' },
    };
  }

  /**
   * Whether a window under way is sure to last for the check: its round trips at the tier's recent
   * round-trip time (median of the last few answers of the class), with a margin. A round-trip time
   * not yet seen leaves only checks that need none.
   */
  #leavesEnough(window: WindowContext, org: OrgHandle, quotaClass: QuotaClass, roundTrips: number): boolean {
    const sureLeft = window.openedAt + window.lengthMs - window.openedUncertaintyMs - this.#options.prober.now();
    if (roundTrips === 0) return sureLeft > END_MARGIN_MS;
    const trips = [...(this.#roundTripTimes.get(`${org.tier}|${quotaClass}`) ?? [])].sort((a, b) => a - b);
    if (trips.length === 0) return false;
    const median = trips[Math.floor(trips.length / 2)]!;
    return sureLeft >= NEED_MARGIN * roundTrips * median + END_MARGIN_MS;
  }

  /**
   * The window the organization's last request of the class was seen to open (a Retry-After wait-out
   * ends that way), while most of it is left: a check can start in it at once, with that request in
   * its ledger, instead of waiting a window for the next boundary. One organization only, and only
   * when that request was the organization's last of the class (nothing else of ours in the window).
   */
  #openedByLast(orgs: readonly OrgHandle[], quotaClass: QuotaClass): Extract<WindowSyncResult, { ok: true }> | null {
    const { prober, windowMs } = this.#options;
    if (orgs.length !== 1) return null;
    const org = orgs[0]!;
    const seen = this.#seen.get(`${org.label}|${quotaClass}`);
    const profile = this.#options.profileOf(org.tier);
    // Only the server's own Remaining says whether that request counted (its ledger): without it, poll.
    if (!seen?.previous || !seen.last || !isAdmitted(seen.last) || !profile) return null;
    if (seen.last.rateLimit.limit.value === null || seen.last.rateLimit.remaining.value === null) return null;
    const window = windowOpenedBetween(seen.previous, seen.last, {
      windowMs,
      clockOffsetMs: this.#options.clockOffsetMs(),
      pollCounts: null,
      resetHoldsStill: profile.read.resetSteady.value === true,
    });
    if (window === null || prober.now() - window.openedAt > windowMs * CARRY_WITHIN) return null;
    return { ok: true, polls: [], window };
  }

  /**
   * On clock-aligned windows, the window under way when none of `orgs` has sent a request of the
   * classes since it began (by the boundaries the discovery placed, with their doubt), while most of
   * it is left: as fresh as the next one, with nothing in its ledger, and a window sooner.
   */
  #untouchedCurrent(orgs: readonly OrgHandle[], classes: readonly QuotaClass[]): Extract<WindowSyncResult, { ok: true }> | null {
    const { prober, windowMs } = this.#options;
    const profile = this.#options.profileOf(orgs[0]!.tier);
    const phase = profile?.read.phase.value;
    if (!phase || profile.headers.value === false) return null;
    const doubt = phase.doubtMs + ROUNDING_ALLOWANCE_MS;
    const sinceBoundary = this.#sinceBoundary(phase);
    if (sinceBoundary < doubt + END_MARGIN_MS || sinceBoundary > windowMs * CARRY_WITHIN) return null;
    const openedAt = prober.now() - sinceBoundary;
    // A request answered after the boundary's earliest time may count in this window.
    const touched = orgs.some((org) => classes.some((c) => (this.#seen.get(`${org.label}|${c}`)?.lastAnsweredAt ?? -Infinity) >= openedAt - doubt));
    if (touched) return null;
    return {
      ok: true,
      polls: [],
      // Placed by the Reset its responses share where Reset holds still, as after a poll: the boundary
      // is only known within its doubt, and timing would shrink the window by it.
      window: {
        openedAt,
        openedUncertaintyMs: doubt,
        lengthMs: windowMs,
        resetEpochS: null,
        opensAtFirstRequest: false,
        prior: [],
        placeBy: profile.read.resetSteady.value === true ? 'reset' : 'timing',
      },
    };
  }

  /**
   * ms since the last boundary the discovery's phase places, through the clock offset it was placed
   * with: the instant it found on our clock, repeated every window. (Through today's estimate, the
   * boundary would move by the estimate's change since, which no doubt of today's covers.)
   */
  #sinceBoundary(phase: WindowPhase): number {
    const { windowMs } = this.#options;
    const serverNow = this.#options.wallNow() + phase.clockOffsetMs - phase.ms;
    return serverNow - Math.floor(serverNow / windowMs) * windowMs;
  }

  /**
   * The next boundary by the server's clock that none of `orgs` has sent a request of the classes
   * after: where the discovery's phase places them (through the clock estimate it was placed with),
   * else at multiples of the window (through today's estimate, from Date); passed by the doubt of
   * either, and no request sent. (The boundary nearest ahead may, within its doubt, have passed
   * already, with a request of ours after it: then the one after.) The window is taken to open as
   * early as it could have: a timer that fires late moves none of it.
   */
  async #clockBoundary(orgs: readonly OrgHandle[], classes: readonly QuotaClass[], phase: WindowPhase | null): Promise<WindowSyncResult> {
    const { prober, windowMs, signal } = this.#options;
    // A phase placed by a countdown rounded down lies later than this (see ROUNDING_ALLOWANCE_MS); allowing
    // for it here would take twice as much off every window a check can measure in, which 2 s windows
    // cannot spare. Read as rounded up, as delay-seconds are written.
    const doubt = phase ? phase.doubtMs : this.#options.clockUncertaintyMs();
    const now = prober.now();
    let next = now + windowMs - this.#sinceBoundary(phase ?? { ms: 0, doubtMs: 0, clockOffsetMs: this.#options.clockOffsetMs() });
    const lastAnswered = Math.max(...orgs.flatMap((org) => classes.map((c) => this.#seen.get(`${org.label}|${c}`)?.lastAnsweredAt ?? -Infinity)));
    while (next - doubt <= lastAnswered + END_MARGIN_MS) next += windowMs;
    await sleep(next + doubt + END_MARGIN_MS - now, signal);
    if (signal.aborted) return { ok: false, reason: 'interrupted', polls: [] };
    return {
      ok: true,
      polls: [],
      window: { openedAt: next - doubt, openedUncertaintyMs: 0, lengthMs: windowMs, resetEpochS: null, opensAtFirstRequest: false, prior: [], placeBy: 'timing' },
    };
  }

  #alignedBoundary(org: OrgHandle, quotaClass: QuotaClass): Promise<WindowSyncResult> {
    const { prober, windowMs, signal } = this.#options;
    return awaitFreshWindow(
      prober,
      prober.edges[0]!,
      { check: 'WINDOW-SYNC', tier: org.tier, org: org.label },
      {
        windowMs,
        clockOffsetMs: this.#options.clockOffsetMs(),
        densePollMs: 10,
        signal,
        request: this.#pollFor(org, quotaClass),
        pollCounts: quotaClass === 'read' ? (this.#options.profileOf(org.tier)?.counts.head.value ?? null) : null,
        // Only a Reset seen to hold still marks boundaries: one that drifts advances every second.
        resetHoldsStill: this.#options.profileOf(org.tier)?.read.resetSteady.value === true,
      },
    );
  }

  /** What reports a class's window: HEAD /recruiter/bootstrap for reads; for ingest, an empty bulk upload (refused 400, by design counting nothing). */
  #pollFor(org: OrgHandle, quotaClass: QuotaClass): ProbeRequest {
    const { contract } = this.#options;
    if (quotaClass === 'read') {
      const head = endpointById(contract, 'bootstrap-head');
      return { method: head.method, path: head.path, key: org.primary.key };
    }
    const bulk = endpointById(contract, 'resume-analysis-bulk');
    return { method: bulk.method, path: bulk.path, key: org.primary.key, headers: { 'content-type': 'application/json' }, body: '{"resumes":[]}' };
  }
}
