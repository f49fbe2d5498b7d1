/** What a running suite hands each task: resolved options, provisioned orgs, the prober, and hooks. */
import type { AssumptionId, Contract, OrgLimits, TierName } from '../contract/types.ts';
import type { KeyHook, OrgHandle } from '../contract/handles.ts';
import type { HttpProber } from '../measure/http-prober.ts';
import type { NetworkMeter } from '../measure/network.ts';
import type { Io } from '../util/io.ts';
import type { RunListener } from '../results/events.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { WindowKeeper } from '../windows/keeper.ts';
import type { ObservationRecorder } from '../measure/recorder.ts';
import type { RevocationShape } from '../scenario/define.ts';
import type { WritePolicy } from '../contract/writes.ts';
import type { CreatedLedger } from './created.ts';
import type { CreatedResource } from '../results/types.ts';
import type { JudgementLog } from './judgements.ts';
import type { HeaderDeclaration } from '../config/schema.ts';
import type { RemeasureBudget } from './remeasure.ts';

export interface SuiteContext {
  readonly contract: Contract;
  readonly prober: HttpProber;
  /** The round trips measured on this run, and every margin that depends on them. */
  readonly network: NetworkMeter;
  readonly io: Io;
  /** Every organization the run provisioned, the revocation one included. */
  readonly orgs: readonly OrgHandle[];
  /** null when no way to provision/revoke keys was configured: revocation checks are skipped. */
  readonly keyHook: KeyHook | null;
  /** Creates more organizations of a tier (fleet load); null when the target cannot (external deployments). */
  readonly provisionOrgs:
    | ((tier: TierName, count: number, limits?: Partial<OrgLimits>) => Promise<readonly OrgHandle[]>)
    | null;
  readonly windowMs: number;
  /** Fresh quota windows per organization and class, scheduled from the limiter profile. */
  readonly windows: WindowKeeper;
  /** The limiter profile learned for a tier (null where discovery did not run or failed). */
  profileOf(tier: TierName): LimiterProfile | null;
  /**
   * What the deployment's config declares where the spec is silent: an assumption declared false is
   * intended behaviour, judged as such; declared true, it is required. Undeclared: learned and reported.
   */
  readonly declared: Readonly<Partial<Record<AssumptionId, boolean>>>;
  /**
   * The rate-limit header dialect the run judges, declared (config `headers`, `run --declare-headers`),
   * with the policy each quota class goes by; null: §8's X-RateLimit-*. The prober reads every
   * answer so already (observations' `rateLimit`, and `rateLimit.dialect` with the fields as received).
   */
  readonly declaredHeaders: HeaderDeclaration | null;
  /**
   * How long an upload takes on the tier, ms, to plan ingest checks by: the run's recent admitted
   * uploads (to `path`, where given; sent alone and in batches: the median, or `quantile` of them: 0
   * the fastest), and at least the embedded target's parse time; null before any was seen on a deployment.
   */
  uploadMs(tier: TierName, path?: string, quantile?: number): number | null;
  /** Current estimate of the server clock minus ours, ms (0 until a Date header was seen). */
  clockOffsetMs(): number;
  readonly emit: RunListener;
  readonly signal: AbortSignal;
  /** The run's report directory, where tasks write their own files (revocation.csv); null or absent: none. */
  readonly reportDir?: string | null;
  /** The run's observations file: sustained load streams its responses there; null: aggregated only. */
  readonly recorder: ObservationRecorder | null;
  /** Per-request timeout of the load driver, ms. */
  readonly timeoutMs: number;
  /** The revocation shape the run gives (resolved once: flags, then config, then scenario: run/plan-for.ts resolvedRevocation); where partial (a task run alone), the scenario's fill the rest. */
  readonly revocation: Partial<RevocationShape>;
  /**
   * What the run may write (config `writes`): with `none`, tasks that upload are skipped and scope
   * checks send bodies refused after the scope check; with `own`, what it creates is named by `runId`.
   */
  readonly writes: WritePolicy;
  readonly runId: string;
  /** What the run created on the deployment: the cleanup archives what it can, the report lists the rest. */
  readonly created: CreatedLedger;
  /** Removes a webhook subscription the run created, at `url` (config `cleanup.webhook`); null: left behind. */
  readonly removeWebhook: ((webhook: CreatedResource, url: string) => Promise<boolean>) | null;
  /** How much measuring again the run allows (suite/remeasure.ts). */
  readonly remeasure: RemeasureBudget;
  /** Every verdict a task asks for goes through `judgements.judge`, so that `tiergate verify` can judge it again. */
  readonly judgements: JudgementLog;
}
