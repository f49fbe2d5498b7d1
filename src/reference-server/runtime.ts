/** Everything the edge and admin listeners share: one state, one set of counters, one clock. */
import { setMaxListeners } from 'node:events';
import type { Contract, QuotaClass } from '../contract/types.ts';
import type { TargetClock } from './clock.ts';
import type { FaultName } from './faults.ts';
import { InFlight, limiterFor, type Limiter } from './limiter.ts';
import type { ResolvedTargetOptions } from './options.ts';
import { OrgData } from './org-data.ts';
import { compileRoutes, type RouteTable } from './routes.ts';
import { TargetState } from './state.ts';
import type { VariantName } from './variants.ts';
import { policyFor, type PolicyChoice } from './window-policy.ts';

export interface TargetRuntime {
  readonly contract: Contract;
  readonly options: ResolvedTargetOptions;
  readonly faults: ReadonlySet<FaultName>;
  readonly variants: ReadonlySet<VariantName>;
  readonly state: TargetState;
  /** One limiter per quota class (and the anonymous bucket), each with the policy its variants and faults ask for. */
  readonly limiters: Readonly<Record<QuotaClass | 'anonymous', Limiter>>;
  readonly inFlight: InFlight;
  readonly data: OrgData;
  readonly routes: RouteTable;
  /** Server wall clock: windows are aligned to it (or start by it); simulated work waits on it. */
  readonly clock: TargetClock;
  /** Uniform [0, 1): revocation jitter. */
  readonly random: () => number;
  /** Aborted when the target closes: simulated work stops at once. */
  readonly closing: AbortSignal;
}

export function createRuntime(
  contract: Contract,
  options: ResolvedTargetOptions,
  clock: TargetClock,
  closing: AbortSignal,
): TargetRuntime {
  // Every request being parsed listens on `closing`; a burst puts hundreds in flight.
  setMaxListeners(0, closing);
  const choice: PolicyChoice = {
    windowMs: options.windowMs,
    variants: new Set(options.variants),
    faults: new Set(options.faults),
  };
  return {
    contract,
    options,
    faults: choice.faults,
    variants: choice.variants,
    state: new TargetState(contract),
    limiters: {
      read: limiterFor(policyFor('read', choice)),
      ingest: limiterFor(policyFor('ingest', choice)),
      anonymous: limiterFor(policyFor('anonymous', choice)),
    },
    inFlight: new InFlight(),
    data: new OrgData(),
    routes: compileRoutes(contract.endpoints),
    clock,
    random: Math.random,
    closing,
  };
}
