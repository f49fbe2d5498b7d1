/**
 * Folds load observations, one at a time, into what the LOAD-THRESHOLDS verdicts need: per org per
 * quota window, counts of admitted and rejected requests and the lowest Remaining seen; per phase,
 * an HDR latency histogram per status. Memory grows with orgs × windows and statuses, never with
 * requests: the observations themselves stream to NDJSON through the recorder.
 */
import { TOO_MANY_REQUESTS, type TierName } from '../contract/types.ts';
import { isAdmitted, type Observation } from './observation.ts';
import { plausibleReset } from './plausible-reset.ts';
import { dateHeaderSeconds } from './http-date.ts';
import { LatencyHistogram } from './histogram.ts';
import { latencyOf } from './outcome.ts';

/** Ids kept per window and phase as evidence; enough to cite, bounded. */
const EVIDENCE_PER_KIND = 3;

/** How a window was identified: X-RateLimit-Reset, or (Reset implausible) the Date header's fixed window. */
export type WindowBasis = 'reset' | 'date' | 'mixed';

export interface WindowTally {
  readonly org: string;
  readonly tier: TierName | null;
  /** Window identity: its end, epoch seconds (the plausible Reset, or the Date-derived fixed-window end). */
  readonly endS: number;
  readonly basis: WindowBasis;
  /** Phases that sent traffic into the window (one, unless a window straddled a phase change). */
  readonly phases: readonly string[];
  /** 2xx responses: requests the server counted. */
  readonly admitted: number;
  /** 429 responses. */
  readonly rejected: number;
  /** Other statuses and transport failures. */
  readonly other: number;
  /** 429s that said Remaining > 0: rejected although the server itself reported quota left. */
  readonly rejectedWithRemaining: number;
  /** Highest X-RateLimit-Limit seen in the window. */
  readonly limitHeader: number | null;
  /** Lowest X-RateLimit-Remaining on an admitted response. */
  readonly minRemainingAdmitted: number | null;
  /** The last admitted observations (the excess ones when the window over-admits). */
  readonly lastAdmittedIds: readonly number[];
  /** The first 429s of the window. */
  readonly firstRejectedIds: readonly number[];
}

export interface StatusBucket {
  /** HTTP status, or null for "no response" (transport failure). */
  readonly status: number | null;
  readonly count: number;
  readonly latency: LatencyHistogram;
}

export interface PhaseSummary {
  readonly tier: TierName | null;
  readonly phase: string;
  readonly orgs: number;
  readonly count: number;
  /** Run-relative ms: the first intended (or actual) send, and the last response's end. */
  readonly startedAt: number;
  readonly endedAt: number;
  /** Client wall clock at the first send, epoch ms. */
  readonly startedWall: number;
  readonly buckets: readonly StatusBucket[];
  /** How many latencies were measured from the intended send time, and how many from the actual send. */
  readonly latencyBasis: { readonly intended: number; readonly sent: number };
  /** Responses whose window could not be identified (no plausible Reset and no Date). */
  readonly unattributed: number;
  readonly unattributedIds: readonly number[];
}

export interface LoadSummary {
  readonly windowS: number;
  readonly phases: readonly PhaseSummary[];
  readonly windows: readonly WindowTally[];
}

interface MutableWindow {
  org: string;
  tier: TierName | null;
  endS: number;
  basis: WindowBasis;
  phases: Set<string>;
  admitted: number;
  rejected: number;
  other: number;
  rejectedWithRemaining: number;
  limitHeader: number | null;
  minRemainingAdmitted: number | null;
  lastAdmittedIds: number[];
  firstRejectedIds: number[];
}

interface MutablePhase {
  tier: TierName | null;
  phase: string;
  orgs: Set<string>;
  count: number;
  startedAt: number;
  endedAt: number;
  startedWall: number;
  buckets: Map<number, { status: number | null; count: number; latency: LatencyHistogram }>;
  intended: number;
  sent: number;
  unattributed: number;
  unattributedIds: number[];
}

/** Status key for the bucket map: -1 stands for "no response". */
const NO_RESPONSE = -1;

export class LoadAggregator {
  readonly #windowS: number;
  readonly #windows = new Map<string, MutableWindow>();
  readonly #phases = new Map<string, MutablePhase>();
  /** The phase and window the last observation went to: the next one almost always goes there too. */
  #lastPhase: MutablePhase | null = null;
  #lastWindow: MutableWindow | null = null;

  constructor(windowS: number) {
    this.#windowS = windowS;
  }

  add(o: Observation): void {
    const phase = this.#phase(o);
    const { ms, basis } = latencyOf(o);
    phase.count += 1;
    phase[basis] += 1;
    phase.startedAt = Math.min(phase.startedAt, o.intendedAt ?? o.sentAt);
    phase.endedAt = Math.max(phase.endedAt, o.doneAt);
    phase.startedWall = Math.min(phase.startedWall, o.sentWall);
    if (o.org !== null) phase.orgs.add(o.org);
    const statusKey = o.status ?? NO_RESPONSE;
    let bucket = phase.buckets.get(statusKey);
    if (!bucket) {
      bucket = { status: o.status, count: 0, latency: new LatencyHistogram() };
      phase.buckets.set(statusKey, bucket);
    }
    bucket.count += 1;
    bucket.latency.record(ms);

    const identity = this.#windowOf(o);
    if (!identity) {
      phase.unattributed += 1;
      if (phase.unattributedIds.length < EVIDENCE_PER_KIND) phase.unattributedIds.push(o.id);
      return;
    }
    const window = this.#window(o, identity.endS, identity.basis);
    window.phases.add(o.phase);
    const { limit, remaining } = o.rateLimit;
    if (limit.value !== null) window.limitHeader = Math.max(window.limitHeader ?? 0, limit.value);
    if (isAdmitted(o)) {
      window.admitted += 1;
      if (remaining.value !== null) {
        window.minRemainingAdmitted = Math.min(window.minRemainingAdmitted ?? remaining.value, remaining.value);
      }
      window.lastAdmittedIds.push(o.id);
      if (window.lastAdmittedIds.length > EVIDENCE_PER_KIND) window.lastAdmittedIds.shift();
    } else if (o.status === TOO_MANY_REQUESTS) {
      window.rejected += 1;
      if (remaining.value !== null && remaining.value > 0) window.rejectedWithRemaining += 1;
      if (window.firstRejectedIds.length < EVIDENCE_PER_KIND) window.firstRejectedIds.push(o.id);
    } else {
      window.other += 1;
    }
  }

  summary(): LoadSummary {
    const phases = [...this.#phases.values()].map(
      (p): PhaseSummary => ({
        tier: p.tier,
        phase: p.phase,
        orgs: p.orgs.size,
        count: p.count,
        startedAt: p.startedAt,
        endedAt: p.endedAt,
        startedWall: p.startedWall,
        buckets: [...p.buckets.values()].map((b) => ({ ...b })),
        latencyBasis: { intended: p.intended, sent: p.sent },
        unattributed: p.unattributed,
        unattributedIds: [...p.unattributedIds],
      }),
    );
    const windows = [...this.#windows.values()]
      .map(
        (w): WindowTally => ({
          ...w,
          phases: [...w.phases],
          lastAdmittedIds: [...w.lastAdmittedIds],
          firstRejectedIds: [...w.firstRejectedIds],
        }),
      )
      .sort((a, b) => a.endS - b.endS || a.org.localeCompare(b.org));
    return { windowS: this.#windowS, phases, windows };
  }

  /** The window a response belongs to: its plausible Reset, else the fixed window its Date falls in. */
  #windowOf(o: Observation): { endS: number; basis: 'reset' | 'date' } | null {
    const reset = plausibleReset(o, this.#windowS);
    if (reset !== null) return { endS: reset, basis: 'reset' };
    if (o.date === null) return null;
    const dateS = dateHeaderSeconds(o.date);
    if (!Number.isFinite(dateS)) return null;
    return { endS: (Math.floor(dateS / this.#windowS) + 1) * this.#windowS, basis: 'date' };
  }

  #phase(o: Observation): MutablePhase {
    let phase = this.#lastPhase;
    if (phase !== null && phase.phase === o.phase && phase.tier === o.tier) return phase;
    const key = `${o.tier ?? ''}\u0000${o.phase}`;
    phase = this.#phases.get(key) ?? null;
    if (!phase) {
      phase = {
        tier: o.tier,
        phase: o.phase,
        orgs: new Set(),
        count: 0,
        startedAt: Number.POSITIVE_INFINITY,
        endedAt: Number.NEGATIVE_INFINITY,
        startedWall: Number.POSITIVE_INFINITY,
        buckets: new Map(),
        intended: 0,
        sent: 0,
        unattributed: 0,
        unattributedIds: [],
      };
      this.#phases.set(key, phase);
    }
    this.#lastPhase = phase;
    return phase;
  }

  #window(o: Observation, endS: number, basis: 'reset' | 'date'): MutableWindow {
    const org = o.org ?? '(no org)';
    let window = this.#lastWindow;
    if (window === null || window.endS !== endS || window.org !== org) {
      const key = `${org}\u0000${endS}`;
      window = this.#windows.get(key) ?? null;
      if (!window) {
        window = {
          org,
          tier: o.tier,
          endS,
          basis,
          phases: new Set(),
          admitted: 0,
          rejected: 0,
          other: 0,
          rejectedWithRemaining: 0,
          limitHeader: null,
          minRemainingAdmitted: null,
          lastAdmittedIds: [],
          firstRejectedIds: [],
        };
        this.#windows.set(key, window);
      }
      this.#lastWindow = window;
    }
    if (window.basis !== basis) window.basis = 'mixed';
    return window;
  }
}

/** Aggregate a finite set of observations (tests, small runs). */
export function summarizeObservations(observations: Iterable<Observation>, windowS: number): LoadSummary {
  const aggregator = new LoadAggregator(windowS);
  for (const o of observations) aggregator.add(o);
  return aggregator.summary();
}
