/**
 * §5.9 revocation propagation: a revocation made at T takes effect on edge i at
 * T + delay + jitter_i (jitter drawn per revocation, per edge). Pure: time comes in as `now`.
 */
import { FLAP_AFTER_MS, FLAP_FOR_MS, SLOW_REVOCATION_MS, type FaultName } from './faults.ts';

export interface EdgeRevocation {
  /** Epoch ms from which this edge rejects the key. */
  readonly effectiveAt: number;
  /** `revocation-flaps`: an interval in which the edge admits the key again. */
  readonly reinstated: { readonly from: number; readonly until: number } | null;
}

export interface Revocation {
  /** Epoch ms of the revoke call. */
  readonly at: number;
  readonly edges: readonly EdgeRevocation[];
}

export interface PropagationSettings {
  readonly edges: number;
  readonly delayMs: number;
  readonly jitterMs: number;
  readonly faults: ReadonlySet<FaultName>;
}

export function scheduleRevocation(
  at: number,
  settings: PropagationSettings,
  random: () => number = Math.random,
): Revocation {
  const last = settings.edges - 1;
  const edges = Array.from({ length: settings.edges }, (_, i): EdgeRevocation => {
    const jitter = settings.jitterMs > 0 ? Math.floor(random() * (settings.jitterMs + 1)) : 0;
    let effectiveAt = at + settings.delayMs + jitter;
    if (i === last && settings.faults.has('slow-revocation')) effectiveAt = at + SLOW_REVOCATION_MS;
    const reinstated =
      i === last && settings.faults.has('revocation-flaps')
        ? { from: effectiveAt + FLAP_AFTER_MS, until: effectiveAt + FLAP_AFTER_MS + FLAP_FOR_MS }
        : null;
    return { effectiveAt, reinstated };
  });
  return { at, edges };
}

/** Whether `edge` rejects the key at `now`. */
export function isRevokedOn(revocation: Revocation | null, edge: number, now: number): boolean {
  if (!revocation) return false;
  const state = revocation.edges[edge];
  if (!state || now < state.effectiveAt) return false;
  return !(state.reinstated && now >= state.reinstated.from && now < state.reinstated.until);
}
