/** tiergate's library API: the CLI is a thin layer over these. */
export * from './contract/index.ts';
export * from './checks/types.ts';
export { catalogue, checkDefinition, allChecks } from './checks/catalogue.ts';
export type { Observation, HeaderValue, RateLimitHeaders } from './observe/observation.ts';
export type { RunResults, ClockEstimate, TargetInfo } from './results/types.ts';
export { TiergateError, UsageError, EXIT } from './errors.ts';
export type { Io, Clock } from './io.ts';
export { defineScenario, sustainedLoad, SCENARIO_DEFAULTS } from './scenario/define.ts';
export type { Scenario, ScenarioInput, LoadShape, LoadPhase, QuotaShape, RevocationShape } from './scenario/define.ts';
export { startTarget } from './target/server.ts';
export type { RunningTarget } from './target/server.ts';
export type { TargetOptions, ResolvedTargetOptions } from './target/options.ts';
export { FAULT_NAMES, faultCatalogue } from './target/faults.ts';
export type { FaultName, FaultDefinition } from './target/faults.ts';
export { AdminClient, AdminApiError } from './target/admin-client.ts';
