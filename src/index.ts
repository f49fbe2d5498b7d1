/** tiergate's library API: the CLI is a thin layer over these. */
export * from './contract/index.ts';
export * from './catalogue/types.ts';
export { catalogue, checkDefinition, allChecks, type CheckDefinition } from './checks/catalogue.ts';
export type { Observation, HeaderValue, RateLimitHeaders } from './measure/observation.ts';
export type { CheckTag, PhaseTag, LoadPhaseName } from './measure/tags.ts';
export type { RunResults, ClockEstimate, TargetInfo } from './results/types.ts';
export { TiergateError, UsageError, EXIT } from './util/errors.ts';
export type { Io, Clock } from './util/io.ts';
export { defineScenario, sustainedLoad, SCENARIO_DEFAULTS } from './scenario/define.ts';
export type { Scenario, ScenarioInput, LoadShape, LoadPhase, QuotaShape, RevocationShape } from './scenario/define.ts';
export { startTarget } from './reference-server/server.ts';
export type { RunningTarget, InProcessTargetOptions } from './reference-server/server.ts';
export { realClock } from './reference-server/clock.ts';
export type { TargetClock } from './reference-server/clock.ts';
export type { TargetOptions, ResolvedTargetOptions } from './reference-server/options.ts';
export { FAULT_NAMES, faultCatalogue } from './reference-server/faults.ts';
export type { FaultName, FaultDefinition } from './reference-server/faults.ts';
export { VARIANT_NAMES, variantCatalogue } from './reference-server/variants.ts';
export type { VariantName, VariantDefinition } from './reference-server/variants.ts';
export { AdminClient, AdminApiError } from './reference-server/admin-client.ts';
export type {
  LimiterProfile,
  ClassProfile,
  Learned,
  WindowAlgorithm,
  ResetFormat,
  CountingQuestion,
} from './profile/types.ts';
export { profileDeployment } from './run/profile-run.ts';
export { runSuite } from './run/run.ts';
export type { RunOptions } from './run/options.ts';
export type { ProfileOptions, ProfileOutcome } from './run/profile-run.ts';
