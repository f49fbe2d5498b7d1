/**
 * The network between the harness and a deployment, as this run measured it, and every margin that
 * depends on it (README "How it measures", "At a distance"). A margin is a function of the figures
 * below and nothing else: the round trips of requests sent into a quiet edge (no body to process,
 * no burst to wait behind: the time is the network's, not the server's work) and how late this
 * machine's timers fire. A run at 1 ms round trips and one at 100 ± 20 ms get different margins from the same
 * rules; every margin a verdict rests on is handed to it in its input, so `tiergate verify` judges
 * with the same one, and the figures and margins in force are written into results.json.
 *
 * Not here: allowances that come from a header's resolution (a Reset in whole seconds, Date floored
 * to the second: measure/reset-format.ts) and the server clock's rate (measure/window.ts). No
 * network makes those smaller, and none makes them larger.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { LatencyHistogram } from './histogram.ts';

/** What the run measured of the network to one deployment (or one edge of it). */
export interface NetworkFigures {
  /** Round trips the figures rest on (0: none yet; the margins then rest on the floors alone). */
  readonly samples: number;
  readonly minMs: number;
  readonly medianMs: number;
  /** A slow round trip: what a series is planned by. */
  readonly p90Ms: number;
  readonly maxMs: number;
  /** How far round trips stray above the path's own (p90 less the fastest): jitter and queueing. */
  readonly spreadMs: number;
  /** How late this machine's timers fire (the event loop's delay, 99th percentile). */
  readonly timerLateMs: number;
}

/**
 * Every margin that depends on the network, by name. Each is its floor (what a loaded two-core
 * machine's timers need where the network adds nothing) or more, as the round trips demand.
 */
export interface NetworkMargins {
  /**
   * Past a window's end before a request surely falls in the next one (windows/keeper.ts): timers,
   * and the jitter of a request's way to the server (one sent as the window ends arrives up to the
   * spread later than one sent before it).
   */
  readonly windowEndMs: number;
  /**
   * Openers start this long before an announced end (windows/keeper.ts): the first must reach the
   * server before the end so that the one after it pins the boundary; a few slow round trips.
   */
  readonly openerLeadMs: number;
  /**
   * The last read of a series' watch, or of the discovery's follow-ups, stays this far before the
   * end of the window it must fall in (suite/watch.ts, profile/discover.ts): it has to reach the
   * server and be counted there before that end, whichever share of its round trip the way there is.
   */
  readonly lastReadClearanceMs: number;
  /**
   * How long after a request's answer its connection is free again on the server's side (a slot of
   * a concurrency cap, a parse's worker): a server may hold the slot until its answer's last bytes
   * are taken, a slow round trip after the first ones left (tasks/concurrency.ts); on loopback, a few
   * of its own ticks. No timer term: a timer of ours that fires late only lengthens the wait.
   */
  readonly slotFreedMs: number;
  /** Waiting out a server's announced wait (Retry-After, a window's end): timers that fire late or a millisecond early. */
  readonly waitOutMs: number;
  /**
   * Before timing round trips again where a moment's load made them too slow to plan by (the
   * harness's own bursts, another task's): long enough for the moment to pass, a few slow round trips
   * at least (tasks/concurrency.ts).
   */
  readonly retimeAfterMs: number;
  /**
   * A read meant to fall just before a boundary the discovery expects (profile/window-algorithm.ts
   * secondRoundAt) goes this far before it: it must reach the server on the near side, whichever share
   * of its round trip the way there is, and the boundary's own doubt besides.
   */
  readonly beforeBoundaryMs: number;
}

/**
 * Pause between openers once a window's end is near (windows/keeper.ts): pacing, not a margin. Each
 * opener waits for its answer, so a round trip lies between two anyway.
 */
export const OPENER_PAUSE_MS = 10;

/** Where the network adds nothing: the margins a loaded two-core machine's timers and event loop need. */
const FLOORS = {
  windowEndMs: 60,
  openerLeadMs: 300,
  lastReadClearanceMs: 100,
  slotFreedMs: 20,
  waitOutMs: 20,
  retimeAfterMs: 100,
  beforeBoundaryMs: 150,
} as const satisfies NetworkMargins;

/** Slow round trips (p90) in each margin that must cover a request reaching the server. */
const OPENER_LEAD_TRIPS = 3;
const CLEARANCE_TRIPS = 3;
/** Slow round trips (p90) between timings of the round trips. */
const RETIME_TRIPS = 3;

/** The margins the figures call for. Pure: the same figures give the same margins (verify replays them). */
export function networkMargins(f: NetworkFigures): NetworkMargins {
  const timers = f.timerLateMs;
  return {
    windowEndMs: Math.max(FLOORS.windowEndMs, timers) + f.spreadMs,
    openerLeadMs: Math.max(FLOORS.openerLeadMs, timers + OPENER_LEAD_TRIPS * f.p90Ms),
    lastReadClearanceMs: Math.max(FLOORS.lastReadClearanceMs, timers + CLEARANCE_TRIPS * f.p90Ms),
    slotFreedMs: Math.max(FLOORS.slotFreedMs, f.p90Ms + f.spreadMs),
    waitOutMs: Math.max(FLOORS.waitOutMs, timers) + f.spreadMs,
    retimeAfterMs: Math.max(FLOORS.retimeAfterMs, timers + RETIME_TRIPS * f.p90Ms),
    beforeBoundaryMs: Math.max(FLOORS.beforeBoundaryMs, timers + f.p90Ms + f.spreadMs),
  };
}

/**
 * The bounds a timing argument over requests held on the server rests on (CONCURRENCY-CAP's held
 * uploads: verdicts/support/held-timing.ts derives each), from one measurement's own fast reads, so
 * that `tiergate verify` judges again by the same. Times are the client's: s sent, h answer read.
 */
export interface HeldUploadFigures {
  /** Fast reads the figures rest on. */
  readonly reads: number;
  /** m: the fastest round trip of a fast read; the path's two ways together (u + d) take no longer. */
  readonly fastestTripMs: number;
  /** M: the slowest round trip of a fast read. */
  readonly slowestTripMs: number;
  /** σ: how far either way of any request strays above the path's own: M − m, at least STRAY_FLOOR_MS. */
  readonly strayMs: number;
  /** λ: how long after it arrived an answer may be read: as late as this machine's timers fired while the requests went out. */
  readonly readLateMs: number;
  /** (A) held i reached the server before x when s_x − s_i is more than this: σ. */
  readonly arrivedAfterMs: number;
  /** (B) x reached the server before held i's answer left it when h_i − s_x is more than this: m + 2σ + λ. */
  readonly arrivedBeforeAnswerMs: number;
  /** (C) x's answer left the server before held i's when h_i − h_x is more than this: σ + λ. */
  readonly answeredBeforeMs: number;
}

/**
 * Where the round trips spread less: two threads of a loaded two-core machine (the target's and
 * ours, on loopback) answer and read some way apart.
 */
export const STRAY_FLOOR_MS = 1;

/** The bounds from the round trips of a measurement's fast reads (any order) and its timers' lateness; null without a round trip. */
export function heldUploadFigures(roundTripsMs: readonly number[], timerLateMs: number): HeldUploadFigures | null {
  const trips = roundTripsMs.filter((ms) => Number.isFinite(ms) && ms >= 0);
  if (trips.length === 0) return null;
  const fastest = Math.min(...trips);
  const slowest = Math.max(...trips);
  const stray = Math.max(slowest - fastest, STRAY_FLOOR_MS);
  const late = Math.max(0, timerLateMs);
  return {
    reads: trips.length,
    fastestTripMs: fastest,
    slowestTripMs: slowest,
    strayMs: stray,
    readLateMs: late,
    arrivedAfterMs: stray,
    arrivedBeforeAnswerMs: fastest + 2 * stray + late,
    answeredBeforeMs: stray + late,
  };
}

/**
 * How a prober keeps one edge probed every `intervalMs` whatever the round trip (the revocation
 * trials, revocation/probe.ts), by what was measured to that edge.
 */
export interface ProbePace {
  /**
   * Probes in flight the round trip calls for, so that one goes at every slot while earlier ones are
   * out: one for each interval a slow round trip spans (probeRoundTripMs). One where the round trip
   * is shorter than the interval, as on loopback.
   */
  readonly asked: number;
  /** Probes kept in flight: `asked`, held to the prober's ceiling. */
  readonly inFlight: number;
  /**
   * A probe every so many ms: the interval, or where `inFlight` is held below `asked`, the multiple of
   * it that spreads those probes over the fastest round trip (sent in a burst, they would come back
   * together, and leave a round trip between bursts). The fastest, because the others stretch with
   * the machine's and the server's load, the probes' own included; where the round trip is longer,
   * the next probe waits for one to come back, as it would anyway.
   */
  readonly everyMs: number;
}

/**
 * The slow round trip a probe is taken to be out for, ms: the median, and as much again as it strays
 * above the fastest. A few outliers (a connection's handshakes, a pause) move neither, where they
 * would move a p90 taken from the few round trips measured before the first trial.
 */
export function probeRoundTripMs(f: NetworkFigures): number {
  return 2 * f.medianMs - f.minMs;
}

/** The pace the figures call for at `intervalMs`, with at most `ceiling` probes in flight. Pure. */
export function probePace(f: NetworkFigures, intervalMs: number, ceiling = Number.POSITIVE_INFINITY): ProbePace {
  const asked = Math.max(1, Math.ceil(probeRoundTripMs(f) / intervalMs));
  const inFlight = Math.max(1, Math.min(asked, ceiling));
  const everyMs =
    inFlight < asked ? Math.max(1, Math.ceil(f.minMs / (inFlight * intervalMs))) * intervalMs : intervalMs;
  return { asked, inFlight, everyMs };
}

/**
 * A network of round trips `roundTripMs` ± `jitterMs` (uniform), as a run with many samples would
 * measure it: for the dry run's arithmetic, and for tests that compare margins between distances.
 */
export function roundTripModel(roundTripMs: number, jitterMs = 0, timerLateMs = 0): NetworkFigures {
  const min = Math.max(0, roundTripMs - jitterMs);
  const p90 = roundTripMs + 0.8 * jitterMs;
  return {
    samples: 1000,
    minMs: min,
    medianMs: roundTripMs,
    p90Ms: p90,
    maxMs: roundTripMs + jitterMs,
    spreadMs: p90 - min,
    timerLateMs,
  };
}

/** No round trip measured yet: the margins rest on their floors. */
export const UNMEASURED: NetworkFigures = Object.freeze({ ...roundTripModel(0), samples: 0 });

/** Round trips kept per edge: recent ones, so a network that slows down moves the figures. */
const KEPT = 128;

/** Percentile `p` (0-1) of sorted values, nearest rank. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** Figures from round trips (any order) and the timers' lateness. */
export function figuresOf(roundTrips: readonly number[], timerLateMs: number): NetworkFigures {
  if (roundTrips.length === 0) return { ...UNMEASURED, timerLateMs };
  const sorted = [...roundTrips].sort((a, b) => a - b);
  const [min, p90] = [sorted[0]!, percentile(sorted, 0.9)];
  return {
    samples: sorted.length,
    minMs: min,
    medianMs: percentile(sorted, 0.5),
    p90Ms: p90,
    maxMs: sorted.at(-1)!,
    spreadMs: p90 - min,
    timerLateMs,
  };
}

/** How late timers fire, measured on this machine over the run (a source the meter reads). */
export interface TimerLateness {
  lateMs(): number;
  close(): void;
}

/** The event loop's own delay, from Node's histogram: its 99th percentile less the sampling interval. */
export function eventLoopLateness(): TimerLateness {
  const resolutionMs = 10;
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    lateMs: () => (histogram.count === 0 ? 0 : Math.max(0, histogram.percentile(99) / 1e6 - resolutionMs)),
    close: () => histogram.disable(),
  };
}

/**
 * The run's round trips, per edge: the prober reports each request without a body that was sent
 * while few others of ours were in flight on its edge (a burst's answers wait behind each other on
 * the server: that is its work, not the network's).
 */
export class NetworkMeter {
  readonly #byEdge = new Map<string, number[]>();
  /** Every round trip of the run, in bounded memory (revocation probes send thousands). */
  readonly #all = new LatencyHistogram();
  readonly #timers: TimerLateness;

  constructor(timers: TimerLateness = { lateMs: () => 0, close: () => {} }) {
    this.#timers = timers;
  }

  roundTrip(edge: string, ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const kept = this.#byEdge.get(edge) ?? [];
    kept.push(ms);
    if (kept.length > KEPT) kept.shift();
    this.#byEdge.set(edge, kept);
    this.#all.record(ms);
  }

  /** The recent figures of one edge, or of every edge together. */
  figures(edge?: string): NetworkFigures {
    const trips = edge === undefined ? [...this.#byEdge.values()].flat() : (this.#byEdge.get(edge) ?? []);
    return figuresOf(trips, this.#timers.lateMs());
  }

  /** The margins by the recent figures of one edge, or of every edge together. */
  margins(edge?: string): NetworkMargins {
    return networkMargins(this.figures(edge));
  }

  /** Every round trip of the run, for results.json. */
  runFigures(): NetworkFigures {
    const at = (p: number) => this.#all.percentileMs(p) ?? 0;
    if (this.#all.count === 0) return { ...UNMEASURED, timerLateMs: this.#timers.lateMs() };
    return {
      samples: this.#all.count,
      minMs: at(0),
      medianMs: at(50),
      p90Ms: at(90),
      maxMs: at(100),
      spreadMs: at(90) - at(0),
      timerLateMs: this.#timers.lateMs(),
    };
  }

  close(): void {
    this.#timers.close();
  }
}
