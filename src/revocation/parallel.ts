/**
 * How many revocation trials run at once, and how many probes each may keep in flight per edge. A
 * trial keeps at least one probe in flight per edge, so K trials hold K × edges requests at once:
 * never more than the organization's concurrency cap allows (a capped probe is a 429, unusable), nor
 * more than the prober's connections per edge (a probe waiting for another trial's connection would
 * widen its bracket). N trials on K rotation chains need N + K keys, so a short list of disposable
 * keys allows fewer chains. Far from the edges a trial keeps more in flight (probePace), within its
 * share of both. Pure.
 */
import type { ParallelLimit, TrialsAtOnce } from '../verdicts/support/revocation-method.ts';

export interface ParallelInput {
  /** What the shape asks for (`parallel`). */
  readonly requested: number;
  readonly trials: number;
  readonly edges: number;
  /** The revocation organization's concurrency cap. */
  readonly concurrencyCap: number;
  readonly connectionsPerEdge: number;
  /** Keys the hook can provision in all; null: no limit. */
  readonly keyCapacity: number | null;
}

/**
 * The most probes the trials at once keep in flight to one edge, all together, whatever the round
 * trip asks for: each trial's probes go at every slot, so far away the probing holds a connection
 * (and a TLS session) per probe out, and the probes' own load on both ends would stretch the very
 * round trips they are paced by. Past it, slots are skipped (counted) and the brackets widen.
 */
export const MAX_PROBES_IN_FLIGHT = 16;

/**
 * The most probes each of `chains` trials at once may keep in flight to one edge: its share of
 * MAX_PROBES_IN_FLIGHT, of the organization's concurrency cap and of the prober's connections, and at
 * least one (trialsAtOnce says when even one per edge exceeds the cap).
 */
export function inFlightCeiling(
  input: Pick<ParallelInput, 'edges' | 'concurrencyCap' | 'connectionsPerEdge'>,
  chains: number,
): number {
  const ofAll = Math.floor(MAX_PROBES_IN_FLIGHT / chains);
  const ofCap = Math.floor(input.concurrencyCap / (chains * input.edges));
  const ofConnections = Math.floor(input.connectionsPerEdge / chains);
  return Math.max(1, Math.min(ofAll, ofCap, ofConnections));
}

/** As many trials at once as asked, or fewer where a limit allows fewer (each named, with its figures). */
export function trialsAtOnce(input: ParallelInput): TrialsAtOnce {
  const { edges, trials, concurrencyCap, connectionsPerEdge, keyCapacity } = input;
  const asked = Math.max(1, Math.min(input.requested, trials));
  const limits: ParallelLimit[] = [
    { by: 'concurrency-cap', allows: Math.floor(concurrencyCap / edges), concurrencyCap, edges },
    { by: 'connections-per-edge', allows: connectionsPerEdge, connectionsPerEdge },
    ...(keyCapacity === null
      ? []
      : [{ by: 'key-capacity', allows: keyCapacity - trials, keys: keyCapacity, trials } as const]),
  ];
  const holding = limits.filter((limit) => limit.allows < asked);
  const chains = Math.max(1, Math.min(asked, ...holding.map((l) => l.allows)));
  return { chains, asked, limits: holding };
}
