/**
 * How many revocation trials run at once. A trial keeps at most one probe in flight per edge, so K
 * trials hold K × edges requests at once: never more than the organization's concurrency cap allows
 * (a capped probe is a 429, unusable), nor more than the prober's connections per edge (a probe
 * waiting for another trial's connection would widen its bracket). N trials on K rotation chains
 * need N + K keys, so a short list of disposable keys allows fewer chains. Pure.
 */
import { countOf } from '../verdicts/support/finding.ts';

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

export interface TrialsAtOnce {
  /** Rotation chains, each running one trial at a time: ≥ 1. */
  readonly chains: number;
  /** Why fewer than asked for, as method notes; empty when as many as asked (or as trials). */
  readonly notes: readonly string[];
}

export function trialsAtOnce(input: ParallelInput): TrialsAtOnce {
  const { edges, trials } = input;
  const wanted = Math.max(1, Math.min(input.requested, trials));
  const limits = [
    {
      at: Math.floor(input.concurrencyCap / edges),
      why: `the organization's concurrency cap of ${input.concurrencyCap} must hold every trial's ${edges} probes in flight`,
    },
    {
      at: input.connectionsPerEdge,
      why: `the prober holds ${input.connectionsPerEdge} connections per edge, and no trial's probe may wait for another's`,
    },
    ...(input.keyCapacity === null
      ? []
      : [
          {
            at: input.keyCapacity - trials,
            why: `the hook has ${input.keyCapacity} keys, and ${trials} trials on K rotation chains need ${trials} + K`,
          },
        ]),
  ].filter((limit) => limit.at < wanted);
  const chains = Math.max(1, Math.min(wanted, ...limits.map((l) => l.at)));
  const notes =
    chains < wanted
      ? [`${countOf(chains, 'trial')} at once, not ${wanted}: ${limits.map((l) => l.why).join('; ')}`]
      : [];
  return { chains, notes };
}
