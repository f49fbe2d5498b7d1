/**
 * Revocation seen from several places (README "Revocation from several vantage points"): brackets
 * from probes that other machines sent (the k6 revocation script, one process per vantage point),
 * set against this run's revoke calls. A vantage's clock is never assumed to be the run's: each
 * response's Date header bounds the server's clock against the sender's (offsetBounds: Date has
 * one-second resolution, and the responses on either side of a tick edge narrow it), so a server
 * both the run and a vantage reached bounds the difference of their clocks, whatever that server's
 * own clock says. A server is an edge and the node it names (X-Edge-Node): behind one address two
 * nodes may keep different clocks; an edge that names no node is taken as one server, as stated.
 * The uncertainty is carried into the brackets, which widen by it, never narrow. Pure.
 */
import type { Observation } from '../../measure/observation.ts';
import { offsetBounds, receivedWall } from '../../measure/server-clock.ts';
import { probeRecord, type RevocationProbeRun } from '../../measure/revocation-records.ts';
import { because, type Reason } from '../../catalogue/reasons/index.ts';
import { isAdmittedStatus } from './finding.ts';
import { unusableCounts, type EdgeBounds } from './revocation-bounds.ts';

/** The Date lag allowed where none is given: a cache refreshed every 500 ms (Envoy's) lags by up to that. */
export const DEFAULT_DATE_LAG_MS = 500;

/** One vantage point's probes, as its k6 output recorded them (times on its own wall clock). */
export interface VantagePoint {
  readonly name: string;
  readonly probes: readonly Observation[];
}

/** What REVOKE-LATENCY takes beyond the run's own trials when vantage points probed them too. */
export interface Vantages {
  /** The run's own name as a vantage point. */
  readonly run: string;
  /** The run's own revocation probes (every phase): their Date headers place its clock against each edge's. */
  readonly runProbes: readonly Observation[];
  readonly points: readonly VantagePoint[];
  /**
   * How far a server's Date header may lag its clock, ms: a server that caches it (Envoy refreshes
   * it every 500 ms) stamps the second just past for a while. It widens every offset's upper side.
   */
  readonly dateLagMs: number;
}

/** An interval of ms. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** The server that answered: the edge, and the node it named. */
export const serverOf = (o: Observation): string => (o.edgeNode === null ? o.edge : `${o.edge} (node ${o.edgeNode})`);

/**
 * Per server: its clock minus the sender's wall clock, intersected over its responses; null where
 * they disagree (a stepped clock). Each side widens by a millisecond, for wall clocks read to the
 * millisecond, and the upper by the Date lag allowed.
 */
export function serverOffsets(probes: readonly Observation[], dateLagMs: number): Map<string, Interval | null> {
  const offsets = new Map<string, Interval | null>();
  for (const o of probes) {
    const b = offsetBounds(o);
    if (!b) continue;
    const server = serverOf(o);
    const bounds = { low: b.low - 1, high: b.high + dateLagMs + 1 };
    if (!offsets.has(server)) {
      offsets.set(server, bounds);
      continue;
    }
    const current = offsets.get(server) ?? null;
    if (current === null) continue;
    const low = Math.max(current.low, bounds.low);
    const high = Math.min(current.high, bounds.high);
    offsets.set(server, low <= high ? { low, high } : null);
  }
  return offsets;
}

/** Where a vantage's clock stands against the run's: run wall = vantage wall + offset, within the interval. */
export interface Placement {
  readonly vantage: string;
  /** null: not placed (the reason says why). */
  readonly offset: Interval | null;
  /** The servers (edge, and node where named) both reached whose Date headers placed it. */
  readonly servers: readonly string[];
  readonly reason: Reason | null;
}

/**
 * Run clock minus vantage clock. Through edge e: server_e = vantage + θv = run + θr, so the
 * difference is θv − θr, within [θv.low − θr.high, θv.high − θr.low]; every shared edge bounds the same
 * difference, so their intervals intersect.
 */
export function placeVantage(
  run: ReadonlyMap<string, Interval | null>,
  point: VantagePoint,
  dateLagMs: number,
): Placement {
  const own = serverOffsets(point.probes, dateLagMs);
  const shared = [...own.keys()].filter((server) => run.has(server)).sort();
  if (shared.length === 0) {
    return {
      vantage: point.name,
      offset: null,
      servers: [],
      reason: because('vantage-shares-no-server', { vantage: point.name }),
    };
  }
  // A server whose Date headers disagree with themselves (a clock stepped) places nothing; the others still do.
  const consistent = shared.filter((server) => own.get(server) && run.get(server));
  if (consistent.length === 0) {
    return {
      vantage: point.name,
      offset: null,
      servers: shared,
      reason: because('vantage-dates-disagree', { vantage: point.name, servers: shared }),
    };
  }
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  for (const server of consistent) {
    const v = own.get(server)!;
    const r = run.get(server)!;
    low = Math.max(low, v.low - r.high);
    high = Math.min(high, v.high - r.low);
  }
  if (low > high)
    return {
      vantage: point.name,
      offset: null,
      servers: consistent,
      reason: because('vantage-placements-disjoint', { vantage: point.name, servers: consistent }),
    };
  return { vantage: point.name, offset: { low, high }, servers: consistent, reason: null };
}

/** The edges a vantage point probed, in name order. */
export const vantageEdges = (point: VantagePoint): string[] => [...new Set(point.probes.map((p) => p.edge))].sort();

/** "eu-west: edge-2": a vantage point's view of an edge, as the table and the verdict name it. */
export const seenFrom = (vantage: string, edge: string): string => `${vantage}: ${edge}`;

const bySend = (a: Observation, b: Observation) => a.sentWall - b.sentWall || a.id - b.id;

/**
 * A placed vantage's bracket per edge it probed, for one judged trial of the run: its probes of the
 * trial's key (named by prefix and last four, as the run names it), in run time through the offset.
 * The bracket runs from its last admission to the first rejection after it, so a rejection followed
 * by an admission (a 401 in passing, an edge that flaps) never closes it; the lower bound takes the
 * offset's earliest, the upper its latest, so the bracket holds the edge's moment wherever in the
 * interval the clocks truly stand. A rejection that surely came before the revoke call began is not
 * this trial's: the bracket closes on the first one that may have come after.
 */
export function vantageBounds(
  run: RevocationProbeRun,
  point: VantagePoint,
  offset: Interval,
  rejectStatus: number,
): EdgeBounds[] {
  const revokeWall = run.revokeStartedWall;
  const revokeCallMs =
    run.revokeStartedAt !== null && run.revokeReturnedAt !== null ? run.revokeReturnedAt - run.revokeStartedAt : null;
  return vantageEdges(point).map((edge): EdgeBounds => {
    const probes = point.probes.filter((p) => p.edge === edge && p.key === run.key).sort(bySend);
    const lastAdmittedAt = probes.findLastIndex((p) => isAdmittedStatus(p.status));
    const lastAdmitted = lastAdmittedAt < 0 ? undefined : probes[lastAdmittedAt];
    const firstRejected =
      revokeWall === null
        ? undefined
        : probes
            .slice(lastAdmittedAt + 1)
            .find(
              (p) => p.status === rejectStatus && p.headersAt !== null && receivedWall(p) + offset.high >= revokeWall,
            );
    const lowerMs =
      revokeWall === null ? null : Math.max(0, lastAdmitted ? lastAdmitted.sentWall + offset.low - revokeWall : 0);
    const upperMs =
      revokeWall === null || !firstRejected ? null : receivedWall(firstRejected) + offset.high - revokeWall;
    const unusable = unusableCounts(
      probes.map((p) => probeRecord(p, 'probe')),
      rejectStatus,
    );
    return {
      trial: run.trial,
      edge: seenFrom(point.name, edge),
      edgeNode: firstRejected?.edgeNode ?? lastAdmitted?.edgeNode ?? null,
      lowerMs,
      upperMs,
      widthMs: lowerMs !== null && upperMs !== null ? upperMs - lowerMs : null,
      lastAdmitted: lastAdmitted ? probeRecord(lastAdmitted, 'probe') : null,
      firstRejected: firstRejected ? probeRecord(firstRejected, 'probe') : null,
      // From a vantage point, the last admitted probe is already the latest of all.
      latestAdmitted: lastAdmitted ? probeRecord(lastAdmitted, 'probe') : null,
      workedUntilMs: lowerMs,
      probes: probes.length,
      unusable,
      unusableProbes: unusable.rateLimited + unusable.transport + unusable.otherStatus,
      revokeCallMs,
    };
  });
}
