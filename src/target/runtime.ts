/** Everything the edge and admin listeners share: one state, one set of counters, one clock. */
import { setMaxListeners } from 'node:events';
import type { Contract } from '../contract/types.ts';
import type { FaultName } from './faults.ts';
import { InFlight, WindowCounters } from './limiter.ts';
import type { ResolvedTargetOptions } from './options.ts';
import { OrgData } from './org-data.ts';
import { compileRoutes, type RouteTable } from './routes.ts';
import { TargetState } from './state.ts';

export interface TargetRuntime {
  readonly contract: Contract;
  readonly options: ResolvedTargetOptions;
  readonly faults: ReadonlySet<FaultName>;
  readonly state: TargetState;
  readonly counters: WindowCounters;
  readonly inFlight: InFlight;
  readonly data: OrgData;
  readonly routes: RouteTable;
  /** Server wall clock, epoch ms: windows are aligned to it. */
  readonly now: () => number;
  /** Uniform [0, 1): revocation jitter. */
  readonly random: () => number;
  /** Aborted when the target closes: simulated work stops at once. */
  readonly closing: AbortSignal;
}

export function createRuntime(contract: Contract, options: ResolvedTargetOptions, closing: AbortSignal): TargetRuntime {
  // Every request being parsed listens on `closing`; a burst puts hundreds in flight.
  setMaxListeners(0, closing);
  return {
    contract,
    options,
    faults: new Set(options.faults),
    state: new TargetState(contract),
    counters: new WindowCounters(options.windowMs),
    inFlight: new InFlight(),
    data: new OrgData(),
    routes: compileRoutes(contract.endpoints),
    now: Date.now,
    random: Math.random,
    closing,
  };
}
