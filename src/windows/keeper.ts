/**
 * Fresh windows per organization and quota class (README "How it measures"). Every request the
 * harness sends is seen here (recorder listener), so the keeper knows, per organization and class,
 * when the harness last sent and the end of the window the server last announced.
 *
 * A quota check's window is shown fresh by the server itself: the keeper sends the check's own first
 * request (the opener) once every earlier window of ours on its counters is over, and the answer's
 * Remaining says whether anything counted before it (Limit less the opener's units: nothing did), its
 * Reset when the window ends. Nothing else is assumed about how windows start, so one rule holds for
 * windows aligned to the clock and for windows that start at the first request, and no limiter
 * profile is needed first:
 *
 * - a window found under way with nothing of ours in it is taken when its announced end leaves the
 *   check time enough (the first task of a lane starts at once);
 * - else the keeper waits for its end, sending the opener again shortly before it and then densely:
 *   the first answer in the new window pins its boundary between that opener and the one before;
 * - a window the organization's last request showed fresh (a Retry-After wait-out) is taken with that
 *   request in its ledger.
 *
 * A server without rate-limit headers shows an opener nothing: there the windows are scheduled from
 * the limiter profile (its learned phase, by the clock), as before any check of such a server can run.
 */
import { quotaClassOfPath } from '../contract/lookup.ts';
import type { Contract, QuotaClass, TierName } from '../contract/types.ts';
import { sleep } from '../util/sleep.ts';
import type { HttpProber } from '../measure/http-prober.ts';
import { carriesRateHeaders, isAdmitted, type Observation } from '../measure/observation.ts';
import {
  EPOCH_S_FLOOR,
  announcedEnd,
  endEstimateOf,
  resetFormatOf,
  roundingAllowanceMs,
  type EndEstimate,
} from '../measure/reset-format.ts';
import type { LimiterProfile, WindowPhase } from '../profile/types.ts';
import { windowSafeEnd, type WindowContext } from '../measure/window.ts';
import { OPENER_PAUSE_MS, type NetworkMargins } from '../measure/network.ts';
import type { OrgHandle } from '../contract/handles.ts';

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
  /** The profile of a tier once its discovery is over (null: it learned nothing); at once where none runs. */
  readonly profileLearned: (tier: TierName) => Promise<LimiterProfile | null>;
  /** The network margins in force now (measure/network.ts): window ends and openers are placed by them. */
  readonly margins: () => NetworkMargins;
}

/** What a check hands the keeper: its own first request, and how long it needs once that is answered. */
export interface WindowRequest {
  /** Sends the check's first request; the keeper sends it until one opens a window the check can use. */
  readonly first: () => Promise<Observation>;
  /** Units the first request may count (1; a bulk upload: its resumes, or one where counted per upload). */
  readonly units: readonly number[];
  /** ms the check needs from its first answer on, given the latency of its requests of the class. */
  readonly needMs: (latencyMs: number) => number;
  /** Only a window that begins with the first request, or just before it (sustained load keeps to the server's windows). */
  readonly fromStart?: boolean;
}

export type FreshWindow =
  | { readonly ok: true; readonly window: WindowContext; readonly first: Observation }
  | { readonly ok: false; readonly reason: string; readonly polls: readonly Observation[] };

/**
 * A window an opener showed fresh; `justBegun`: it began with the opener, or just before it (pinned).
 * `knownMs`: the most of a window of this kind that can be known to last (a full one, unless its end
 * is known only to its announcement's resolution).
 */
interface PlacedWindow {
  readonly window: WindowContext;
  readonly justBegun: boolean;
  readonly knownMs?: number;
}

/** A window an opener found fresh: the requests of ours counted in it before (the ledger), and the answer before the first of them. */
interface Freshness {
  readonly prior: readonly Observation[];
  readonly answerBefore: Observation | null;
}

interface Seen {
  /** When the server last answered a request of this organization and class: it counted it by then. */
  lastAnsweredAt: number;
  /** The last three answered requests of this organization and class, in the order answered. */
  before: Observation | null;
  previous: Observation | null;
  last: Observation | null;
  /** The end of the window the last answer of this organization and class announced (null: it announced none), monotonic ms. */
  announced: EndEstimate | null;
}

/** Openers per window sought, at most (dense ones near a boundary included). */
const MAX_OPENERS = 400;
/**
 * Windows a search for a fresh one may take, and a few seconds beside: a Reset that drifts on a
 * loaded machine can spoil two in a row. Why three: docs/decisions/window-search-length.md
 */
const SEARCH_WINDOWS = 3;
const searchMs = (windowMs: number) => SEARCH_WINDOWS * windowMs + 5000;
/** Openers in a row without an answer before the keeper gives up. */
const MAX_SILENT = 3;
/** A window found under way is taken only with this many times the time its check needs left in it, */
const UNDER_WAY_MARGIN = 2;
/** ...and while at least this share of it is left (what a check watches after its 429). */
const LEFT_AT_LEAST = 1 / 3;
/** Which latency of the recent ones a check's need is planned by. */
export const NEED_QUANTILE = 0.9;
/** How many recent answers, per tier and class, the latency estimate is taken over. */
const LATENCIES_KEPT = 32;
/**
 * The discovery reads an announced end as rounded up; a server that rounds to nearest or down ends its
 * windows up to a second later than the phase it placed. Where a window is placed by that phase (a
 * Reset that moves), the whole second is allowed for.
 */
const ROUNDING_ALLOWANCE_MS = 1000;

export class WindowKeeper {
  readonly #options: WindowKeeperOptions;
  readonly #seen = new Map<string, Seen>();
  /** Recent latencies (ms) of admitted requests per tier and class, newest last. */
  readonly #latencies = new Map<string, number[]>();

  constructor(options: WindowKeeperOptions) {
    this.#options = options;
  }

  /** Recorder listener: every observation of an organization, whatever sent it. */
  observe(o: Observation): void {
    if (o.org === null) return;
    const quotaClass = quotaClassOfPath(this.#options.contract, o.path);
    // Checks send admitted reads and uploads: a HEAD or a 429 is cheaper.
    if (isAdmitted(o) && o.method !== 'HEAD') {
      // Per endpoint: a bulk upload answered at once (parsed later) says nothing of a single one's parse.
      const key = `${o.tier}|${quotaClass}|${o.path}`;
      const latencies = this.#latencies.get(key) ?? [];
      latencies.push(o.doneAt - o.sentAt);
      if (latencies.length > LATENCIES_KEPT) latencies.shift();
      this.#latencies.set(key, latencies);
    }
    const key = `${o.org}|${quotaClass}`;
    const seen = this.#seen.get(key) ?? {
      lastAnsweredAt: -Infinity,
      before: null,
      previous: null,
      last: null,
      announced: null,
    };
    // A window a request opened starts when the server took it, at the latest when it answered.
    seen.lastAnsweredAt = Math.max(seen.lastAnsweredAt, o.headersAt ?? o.doneAt);
    if (o.status !== null) [seen.before, seen.previous, seen.last] = [seen.previous, seen.last, o];
    if (o.status !== null) {
      const end = this.#endOf(o);
      // A Reset further away than two windows is garbage, not a schedule (HDR-RESET judges it).
      seen.announced = end && end.latest - o.sentAt <= 2 * this.#options.windowMs ? end : null;
    }
    this.#seen.set(key, seen);
  }

  /** A latency (the median, or `quantile`) of a tier's recent admitted requests of a class (to one endpoint, where `path` says), ms (null: none seen yet). */
  latencyMs(tier: TierName, quotaClass: QuotaClass, path?: string, quantile = 0.5): number | null {
    const prefix = `${tier}|${quotaClass}|`;
    const lists = [...this.#latencies].filter(([key]) =>
      path === undefined ? key.startsWith(prefix) : key === prefix + path,
    );
    const latencies = lists.flatMap(([, list]) => list).sort((a, b) => a - b);
    return latencies.length === 0
      ? null
      : latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * quantile))]!;
  }

  /**
   * Wait for a window of `quotaClass` that is fresh on every one of `orgs` (ORG-ISOLATED needs two)
   * and long enough for the check, and send the check's first request in it (on the first
   * organization). Bounded: at most SEARCH_WINDOWS windows and a few seconds of waiting, and MAX_OPENERS openers.
   */
  async fresh(orgs: readonly OrgHandle[], quotaClass: QuotaClass, request: WindowRequest): Promise<FreshWindow> {
    const { prober, windowMs, signal } = this.#options;
    const tier = orgs[0]!.tier;
    if (this.#options.profileOf(tier)?.headers.value === false) return this.#byTheClock(orgs, quotaClass, request);
    const openers: Observation[] = [];
    let deadline = prober.now() + searchMs(windowMs);
    // Reads may search once more, from when the limiter profile is learned, if it was not when the
    // search began: what it learns (a Reset that moves, where aligned windows begin) places windows
    // openers alone could not; a search started again without it pushes its own windows past its
    // deadline. (Uploads spend the customer's quota: one search only.)
    let profileAwaited = quotaClass !== 'read' || this.#options.profileOf(tier) !== null;
    /** The last opener that showed a window we could not use, when it came right before the next one. */
    let previous: Observation | null = null;
    while (openers.length < MAX_OPENERS && !signal.aborted) {
      // Only a request sent before this call may have opened a window for it (our own openers were judged).
      const wake = this.#pastOurWindows(orgs, this.#countersOf(tier, quotaClass), openers.length === 0);
      if (wake > deadline || prober.now() > deadline) {
        if (profileAwaited) break;
        profileAwaited = true;
        if ((await this.#options.profileLearned(tier)) === null || signal.aborted) break;
        [deadline, previous] = [prober.now() + searchMs(windowMs), null];
        continue;
      }
      await sleep(Math.max(wake - prober.now(), previous === null ? 0 : OPENER_PAUSE_MS), signal);
      if (signal.aborted) break;
      const o = await request.first();
      openers.push(o);
      if (o.status === null) {
        if (openers.slice(-MAX_SILENT).every((p) => p.status === null) && openers.length >= MAX_SILENT) {
          return {
            ok: false,
            reason: `no answer to ${MAX_SILENT} openers in a row (${o.error?.code ?? 'no response'})`,
            polls: openers,
          };
        }
        // The opener before it still bounds a boundary: had the lost one counted in a new window, the
        // next opener's Remaining would show it (not fresh), so a pin across it stays sound, only wider.
        continue;
      }
      // No rate-limit headers: an opener shows nothing; the learned clock phase places the windows.
      if (!carriesRateHeaders(o)) return this.#byTheClock(orgs, quotaClass, request);
      const fresh = this.#freshness(o, orgs[0]!, quotaClass, request.units);
      if (fresh === null) {
        previous = o;
        continue;
      }
      const placed = this.#placeWindow(o, fresh.prior.length === 0 ? previous : fresh.answerBefore, fresh.prior);
      const wanted = placed !== null && (placed.justBegun || request.fromStart !== true);
      // The need by a slow latency of the class (its 90th percentile): a window under way is a shortcut
      // that a check spilling past its end pays for with a window more.
      if (
        wanted &&
        this.#longEnough(
          placed,
          o,
          request.needMs(this.latencyMs(tier, quotaClass, undefined, NEED_QUANTILE) ?? o.doneAt - o.sentAt),
        )
      ) {
        return { ok: true, window: placed.window, first: o };
      }
      // Fresh, but too short (or its end unknown): the check waits for the one after it, which the next
      // opener may show begun since this one.
      previous = o;
    }
    const reason = signal.aborted
      ? 'interrupted'
      : `no window fresh and long enough for the check within ${Math.round(searchMs(windowMs) / 1000)} s (${openers.length} openers)`;
    return { ok: false, reason, polls: openers.slice(-2) };
  }

  /**
   * Whether a window leaves the check time enough. One just begun: the check's need, or as much as the
   * next one would leave (pinned between two openers, an opener's time after its start, its end known
   * as well as this one's), since waiting cannot buy more: the need is estimated from recent latencies,
   * which a burst's crowded ones inflate.
   * One found under way is a shortcut, taken with time to spare (latencies vary, most under load):
   * twice the need, and at least a third of it left (at 60 s windows a run that starts half a window
   * in then waits for no boundary).
   */
  #longEnough(placed: PlacedWindow, first: Observation, needMs: number): boolean {
    const { windowMs, prober } = this.#options;
    const { windowEndMs } = this.#options.margins();
    const left = windowSafeEnd(placed.window, first) - prober.now() - windowEndMs;
    if (!placed.justBegun) return left >= Math.max(UNDER_WAY_MARGIN * needMs, LEFT_AT_LEAST * windowMs);
    const openerMs = (first.headersAt ?? first.doneAt) - first.sentAt;
    const asGoodAsNext = (placed.knownMs ?? windowMs) - 2 * (OPENER_PAUSE_MS + openerMs) - windowEndMs;
    return left >= Math.min(needMs, asGoodAsNext);
  }

  /** The counters a window of `quotaClass` lives on: read and ingest on one counter are the same window. */
  #countersOf(tier: TierName, quotaClass: QuotaClass): readonly QuotaClass[] {
    return this.#options.profileOf(tier)?.classesIndependent.value === false ? ['read', 'ingest'] : [quotaClass];
  }

  /**
   * When the next opener may go: once every window holding a request of ours on these counters is
   * over. Where the server announced that window's end with a Remaining, a little before its earliest
   * (the openers then catch the boundary, each answer saying which window it fell in); with a Reset
   * but no Remaining, past its latest, allowing for rounding; where its Reset moves (the profile says
   * so) or none came, a full window after our last request, which no window holding it outlasts.
   */
  #pastOurWindows(orgs: readonly OrgHandle[], classes: readonly QuotaClass[], takeOpenedByLast: boolean): number {
    const { windowMs } = this.#options;
    const { windowEndMs, openerLeadMs } = this.#options.margins();
    let wake = -Infinity;
    for (const [i, org] of orgs.entries()) {
      // Only the opener's own organization shows its window's end to openers; the others' must surely be over.
      const probed = i === 0;
      const profile = this.#options.profileOf(org.tier);
      const movingReset = profile?.read.resetSteady.value === false;
      // Windows aligned to a phase the discovery placed end at its boundaries, Reset moving or not:
      // the next opener goes at the boundary after our last request, not a full window after it
      // (which would land at the same point of each window, creeping past a window's end). Where the
      // opener shows Remaining, openers go densely from the earliest the boundary may come (the
      // first fresh one pins it, as at an announced end); elsewhere, once it is surely past.
      const phase =
        movingReset && profile?.read.algorithm.value === 'fixed-aligned' ? (profile.read.phase.value ?? null) : null;
      // A bucket that gives quota back a little at a time is full again a window after our last
      // request; openers sent before would each take a token and keep it from filling.
      const refilling = profile?.read.algorithm.value === 'refilling';
      for (const quotaClass of classes) {
        const seen = this.#seen.get(`${org.label}|${quotaClass}`);
        if (!seen) continue;
        const end = movingReset ? null : seen.announced;
        const counted =
          seen.last?.rateLimit.remaining.value !== null && seen.last?.rateLimit.remaining.value !== undefined;
        // A request of ours that got no answer may have counted in a window none announced. The
        // opener's own Remaining shows that (not fresh); another organization's window, or one
        // without a Remaining, must surely be over: a full window after it.
        const unanswered =
          seen.last !== null && seen.lastAnsweredAt > (seen.last.headersAt ?? seen.last.doneAt) && !(counted && probed);
        // Our last request showed a window fresh when it came (a Retry-After wait-out): the opener may
        // find it still long enough, with that request in its ledger.
        const last = seen.last;
        const openedByLast =
          probed &&
          takeOpenedByLast &&
          last !== null &&
          isAdmitted(last) &&
          last.rateLimit.limit.value !== null &&
          last.rateLimit.remaining.value === last.rateLimit.limit.value - 1;
        const doubt = phase === null ? 0 : phase.doubtMs + ROUNDING_ALLOWANCE_MS;
        const at =
          phase !== null && !unanswered
            ? counted && probed
              ? // Dense openers from the earliest the boundary may come: the first fresh one pins it.
                Math.max(
                  seen.lastAnsweredAt,
                  this.#boundaryPast(seen.lastAnsweredAt - 2 * doubt - windowEndMs, phase, doubt, false) - doubt,
                )
              : this.#boundaryPast(seen.lastAnsweredAt, phase, doubt, false) + doubt + windowEndMs
            : end === null || unanswered || refilling
              ? seen.lastAnsweredAt + windowMs + windowEndMs
              : openedByLast
                ? -Infinity
                : counted && probed
                  ? end.earliest - openerLeadMs
                  : end.latest + roundingAllowanceMs(windowMs) + windowEndMs;
        wake = Math.max(wake, at);
      }
    }
    return wake;
  }

  /**
   * Whether the opener's answer shows a window the check may use: admitted, and by its Remaining
   * nothing counted before it (Limit less its units), or nothing but our own last request of the
   * class, which showed the window fresh and was the last of ours in it (a Retry-After wait-out: in the
   * ledger). Null when something else counted in it, or it was refused. Without a Remaining, only
   * our own ledger vouches: taken once the earlier windows are over (the wake-up already waited so).
   */
  #freshness(o: Observation, org: OrgHandle, quotaClass: QuotaClass, units: readonly number[]): Freshness | null {
    if (!isAdmitted(o)) return null;
    const { limit, remaining } = o.rateLimit;
    if (limit.value === null || remaining.value === null) return { prior: [], answerBefore: null };
    if (units.some((u) => remaining.value === limit.value! - u)) return { prior: [], answerBefore: null };
    const seen = this.#seen.get(`${org.label}|${quotaClass}`);
    // seen.last is the opener itself; the request before it opened the window it found.
    const opener = seen?.previous;
    if (
      !opener ||
      !isAdmitted(opener) ||
      opener.rateLimit.limit.value !== limit.value ||
      opener.rateLimit.remaining.value !== limit.value - 1
    )
      return null;
    if (opener.rateLimit.reset.raw !== o.rateLimit.reset.raw) return null;
    return units.some((u) => remaining.value === limit.value! - 1 - u)
      ? { prior: [opener], answerBefore: seen?.before ?? null }
      : null;
  }

  /**
   * The window the opener showed fresh. Pinned, where the opener before it fell in the window before
   * (refused, or Remaining lower): the boundary lies between that one's send and this one's answer.
   * Else found under way: its end is the one the server announced (the limiter profile places it more
   * finely: windows that start at the first request start with this opener; a Reset that moves is
   * placed by the learned phase). Null when nothing places its end.
   */
  #placeWindow(o: Observation, previous: Observation | null, prior: readonly Observation[]): PlacedWindow | null {
    const { windowMs } = this.#options;
    const profile = o.tier === null ? null : this.#options.profileOf(o.tier);
    const quotaClass = quotaClassOfPath(this.#options.contract, o.path);
    const algorithm = profile?.[quotaClass].algorithm.value ?? profile?.read.algorithm.value ?? 'unknown';
    const steady = profile?.read.resetSteady.value;
    const epochS =
      resetFormatOf(o, windowMs, this.#options.clockOffsetMs()) === 'epoch-seconds' ? o.rateLimit.reset.value : null;
    const base = { lengthMs: windowMs, resetEpochS: epochS, prior, opensAtFirstRequest: false };
    // The first answer of the window (the ledger's, else the opener's) and the one before it.
    const opening = prior[0] ?? o;
    // The window starts with the opener itself: placed exactly, whatever came before it.
    if ((algorithm === 'fixed-first-request' || algorithm === 'refilling') && prior.length === 0) {
      // A server that keeps window starts to whole seconds ends one before a full window after the
      // opener: where its Reset says so, the window ends no later than that. (A bucket's Reset is when
      // it is full again, no window's end.)
      // Such an end is known only to the Reset's resolution (a second, and the clock's doubt): no
      // window opened later is known to last longer than a full one less that.
      const announced = algorithm === 'fixed-first-request' ? this.#endOf(o) : null;
      const early = announced !== null && announced.latest < o.sentAt + windowMs;
      const window: WindowContext = {
        ...base,
        openedAt: o.sentAt,
        openedUncertaintyMs: 0,
        opensAtFirstRequest: true,
        placeBy: 'timing',
        ...(early ? { sureEndAt: announced.earliest } : {}),
      };
      return {
        window,
        justBegun: true,
        ...(early ? { knownMs: windowMs - (announced.latest - announced.earliest) } : {}),
      };
    }
    if (previous !== null && boundaryShown(previous, opening, steady ?? null)) {
      // The boundary fell after the one before was sent: the window lasts a full length from there.
      const window: WindowContext = {
        ...base,
        openedAt: opening.sentAt,
        openedUncertaintyMs: opening.sentAt - previous.sentAt,
        placeBy: steady === true ? 'reset' : 'timing',
      };
      return { window, justBegun: prior.length === 0 };
    }
    const phase = profile?.read.phase.value;
    if (steady === false) {
      if (algorithm !== 'fixed-aligned' || !phase) return null;
      const since = this.#sinceBoundary(phase);
      const doubt = phase.doubtMs + ROUNDING_ALLOWANCE_MS;
      // Within the boundary's doubt the opener may lie in the window before it: wait for the next.
      if (since < doubt + this.#options.margins().windowEndMs) return null;
      return {
        window: {
          ...base,
          openedAt: this.#options.prober.now() - since,
          openedUncertaintyMs: doubt,
          placeBy: 'timing',
        },
        justBegun: false,
      };
    }
    const end = this.#endOf(o);
    if (end === null) return null;
    const placeBy = epochS !== null ? 'reset' : 'timing';
    return {
      window: { ...base, openedAt: opening.sentAt, openedUncertaintyMs: 0, placeBy, sureEndAt: end.earliest },
      justBegun: false,
    };
  }

  /** The end of the window a response reports: its Reset in any format, else a 429's Retry-After. */
  #endOf(o: Observation): EndEstimate | null {
    const offset = this.#options.clockOffsetMs();
    const fromReset = endEstimateOf(
      o,
      resetFormatOf(o, this.#options.windowMs, offset),
      offset,
      this.#options.clockUncertaintyMs(),
    );
    if (fromReset) return fromReset;
    return o.status === this.#options.contract.statuses.rateLimited
      ? announcedEnd(o, this.#options.windowMs, offset)
      : null;
  }

  /**
   * A server without rate-limit headers: wait for its limiter profile, then for the next boundary its
   * learned phase places by the server's clock (no polls: they could count unseen) past every request
   * of ours, and send the check's first request. Without a phase, windows that start at the first
   * request (a full window after our last request) are all a server without headers lets us find.
   */
  async #byTheClock(orgs: readonly OrgHandle[], quotaClass: QuotaClass, request: WindowRequest): Promise<FreshWindow> {
    const { prober, windowMs, signal } = this.#options;
    const profile = await this.#options.profileLearned(orgs[0]!.tier);
    if (signal.aborted) return { ok: false, reason: 'interrupted', polls: [] };
    const classes = this.#countersOf(orgs[0]!.tier, quotaClass);
    const algorithm = profile?.read.algorithm.value ?? 'unknown';
    const lastAnswered = Math.max(
      ...orgs.flatMap((org) => classes.map((c) => this.#seen.get(`${org.label}|${c}`)?.lastAnsweredAt ?? -Infinity)),
    );
    // Not known to be aligned: every window holding our last request over first (a full window after it).
    const after = algorithm === 'fixed-aligned' ? lastAnswered : lastAnswered + windowMs;
    if (algorithm === 'fixed-first-request' || algorithm === 'refilling') {
      await sleep(after + this.#options.margins().windowEndMs - prober.now(), signal);
      if (signal.aborted) return { ok: false, reason: 'interrupted', polls: [] };
      const first = await request.first();
      return {
        ok: true,
        first,
        window: {
          openedAt: first.sentAt,
          openedUncertaintyMs: 0,
          lengthMs: windowMs,
          resetEpochS: null,
          opensAtFirstRequest: true,
          prior: [],
          placeBy: 'timing',
        },
      };
    }
    // Aligned, or unknown (taken as aligned: a window that starts at the first request lasts longer
    // than that). A phase placed by a countdown rounded down lies later than this (see
    // ROUNDING_ALLOWANCE_MS); allowing for it here would take twice as much off every window a check
    // can measure in, which 2 s windows cannot spare. Read as rounded up, as delay-seconds are written.
    const phase = profile?.read.phase.value ?? null;
    const doubt = phase ? phase.doubtMs : this.#options.clockUncertaintyMs();
    const now = prober.now();
    const next = this.#boundaryPast(
      after,
      phase ?? { ms: 0, doubtMs: 0, clockOffsetMs: this.#options.clockOffsetMs() },
      doubt,
      true,
    );
    await sleep(next + doubt + this.#options.margins().windowEndMs - now, signal);
    if (signal.aborted) return { ok: false, reason: 'interrupted', polls: [] };
    const first = await request.first();
    return {
      ok: true,
      first,
      window: {
        openedAt: next - doubt,
        openedUncertaintyMs: 0,
        lengthMs: windowMs,
        resetEpochS: null,
        opensAtFirstRequest: false,
        prior: [],
        placeBy: 'timing',
      },
    };
  }

  /**
   * Monotonic ms of the first boundary the phase places that, less its doubt, comes after `after`;
   * with `fromNow`, not before the next boundary from now.
   */
  #boundaryPast(after: number, phase: WindowPhase, doubt: number, fromNow: boolean): number {
    const { windowMs, prober } = this.#options;
    const { windowEndMs } = this.#options.margins();
    let next = prober.now() + windowMs - this.#sinceBoundary(phase);
    if (!fromNow && Number.isFinite(after))
      next -= Math.max(0, Math.floor((next - doubt - after - windowEndMs) / windowMs)) * windowMs;
    while (next - doubt <= after + windowEndMs) next += windowMs;
    return next;
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
}

/**
 * Whether a boundary fell between two answers of one counter (the later one admitted):
 * - Remaining back up under the same Limit (after a refusal: any Remaining), and the announced end
 *   moved on where both carry one (a refusal for the concurrency cap shows the window's own Reset);
 * - or the epoch Reset advanced where it is known to hold still within a window (an opener that
 *   counts nothing, a HEAD, shows no Remaining rising), or, unless it is known to move, where
 *   Remaining held (a Remaining that does not count down, on which only a Reset shows a boundary).
 */
function boundaryShown(before: Observation, after: Observation, resetSteady: boolean | null): boolean {
  const [a, b] = [before.rateLimit, after.rateLimit];
  if (a.limit.value !== b.limit.value || b.remaining.value === null) return false;
  const resetMoved = a.reset.raw !== null && b.reset.raw !== null && a.reset.raw !== b.reset.raw;
  const remainingBefore = before.status !== null && !isAdmitted(before) ? 0 : a.remaining.value;
  if (remainingBefore !== null && b.remaining.value > remainingBefore)
    return a.reset.raw === null || b.reset.raw === null || resetMoved;
  const advanced =
    resetMoved &&
    a.reset.value !== null &&
    b.reset.value !== null &&
    a.reset.value >= EPOCH_S_FLOOR &&
    b.reset.value > a.reset.value;
  return advanced && (resetSteady === true || (resetSteady === null && a.remaining.value === b.remaining.value));
}
