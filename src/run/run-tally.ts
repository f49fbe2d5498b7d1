/**
 * What a run keeps over every observation its checks make: the server-clock estimate, HDR-PRESENT's
 * tally per tier, and the quota windows each organization's checks used (the distinct Reset values
 * their responses carried; the syncs' and the discovery's run before a check's window and are left out).
 */
import type { TierName } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { clockEstimate, narrowOffset, type OffsetInterval } from '../measure/server-clock.ts';
import type { ClockEstimate } from '../results/types.ts';
import { HeadersPresentTally } from '../verdicts/hdr-present.ts';

export class RunTally {
  #offset: OffsetInterval | null = null;
  readonly #headersByTier = new Map<TierName, HeadersPresentTally>();
  readonly #windowsByOrg = new Map<string, Set<string>>();

  observe(o: Observation): void {
    this.#offset = narrowOffset(this.#offset, o);
    if (o.org && o.check !== 'WINDOW-SYNC' && o.check !== 'PROFILE' && o.rateLimit.reset.raw !== null) {
      const seen = this.#windowsByOrg.get(o.org) ?? new Set<string>();
      seen.add(o.rateLimit.reset.raw);
      this.#windowsByOrg.set(o.org, seen);
    }
    if (!o.tier) return;
    const tally = this.#headersByTier.get(o.tier) ?? new HeadersPresentTally();
    tally.add(o);
    this.#headersByTier.set(o.tier, tally);
  }

  clock(): ClockEstimate | null {
    return clockEstimate(this.#offset);
  }

  /** Server clock minus ours, ms (0 until a Date header was seen). */
  clockOffsetMs(): number {
    return this.clock()?.offsetMs ?? 0;
  }

  clockUncertaintyMs(): number {
    return this.clock()?.uncertaintyMs ?? 1000;
  }

  headersOf(tier: TierName): HeadersPresentTally {
    return this.#headersByTier.get(tier) ?? new HeadersPresentTally();
  }

  /** The most windows any of `orgs` used. */
  windowsUsed(orgs: readonly string[]): number {
    return Math.max(0, ...orgs.map((org) => this.#windowsByOrg.get(org)?.size ?? 0));
  }
}
