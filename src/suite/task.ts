/**
 * A task kind is declared once: the checks it decides (with the variant each result carries), the
 * quota it spends, the organizations it occupies and where the plan puts it, and how it runs. The
 * plan, the dry run and the tests read the declaration; `runTask` is the one shared step that turns
 * what a task decided into check results (variant, tier, organization and timing added, unselected
 * checks dropped, undecided ones, and those of a task that threw, reported inconclusive, never passed).
 */
import type { QuotaClass, TierName } from '../contract/types.ts';
import type { CheckId, CheckResult, CheckVariant, Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { TaskKind } from '../catalogue/task-kinds.ts';
import { taskName, type TaskIdentity } from '../results/events.ts';
import { messageOf } from '../util/errors.ts';
import type { BulkPolicy, Scenario } from '../scenario/define.ts';
import { checkResult } from '../checks/result.ts';
import type { SuiteContext } from './context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import type { Observation } from '../measure/observation.ts';

/**
 * Where the plan puts a task: `lane`, on one organization's lane (a fresh window of its own when it
 * spends quota); `joint`, first, over several lanes at once; `beside`, on an organization of its own
 * beside every lane; `after`, once every lane is done (it would disturb exact counts beside them).
 */
export type Placement = 'lane' | 'joint' | 'beside' | 'after';

/** One decision: a finding, or a finding timed on its own (the task's span otherwise). */
export type Decision = Finding | TimedFinding;

export interface TimedFinding {
  readonly finding: Finding;
  /** Wall clock ms when this check's traffic started. */
  readonly startedWall: number;
  readonly durationMs: number;
}

/**
 * What a task decided, keyed by the checks it declares. Every other check ID is typed `never`, so a
 * decision for an undeclared check fails to compile even where TypeScript skips excess-property checks
 * (an inferred return type).
 */
export type Decisions<C extends CheckId> = { readonly [id in C]?: Decision } & {
  readonly [id in Exclude<CheckId, C>]?: never;
};

/**
 * How many of a check's requests go one after another after its first (a batch counts once), at the
 * tier's Limit of the class, the batch size its concurrency cap allows, and (a series whose shape
 * depends on them: suite/series-shape.ts) the round trip it is planned by and the window.
 */
export type RoundTrips = (limit: number, batch: number, planning: SeriesPlanning) => number;

/** What a series' shape is planned by besides its Limit and cap. */
export interface SeriesPlanning {
  /** The round trip the series is planned by (the network's median to its edge), ms. */
  readonly roundTripMs: number;
  readonly windowMs: number;
  readonly bulk: BulkPolicy;
}

/** A planned task bound to the run: its organizations resolved, its scenario, its selected checks. */
export interface TaskRun<C extends CheckId = CheckId> {
  readonly identity: TaskIdentity;
  /** The definition's `rounds` (none: 0). */
  readonly rounds: RoundTrips;
  readonly tier: TierName;
  /** The organizations it occupies, its own first. */
  readonly orgs: readonly OrgHandle[];
  readonly scenario: Scenario;
  /** The declared checks the run selected. */
  readonly checks: readonly C[];
  /**
   * The task's traffic starts: says so to the run's listeners and starts the span its results carry,
   * from `first`'s send where its first request went out already. Quota tasks call it once their
   * fresh window is open (the wait is not the check's time).
   */
  begin(first?: Observation): void;
  /** The traffic that decides the checks is over (what follows, e.g. a Retry-After wait, is not timed). */
  end(): void;
  /**
   * A long task says how far it is: `done` of `total` `unit` (plural noun, e.g. 'trials'), with the
   * time left estimated from the pace since `begin`.
   */
  progress(done: number, total: number, unit: string): void;
}

export interface TaskDefinition<K extends TaskKind = TaskKind, C extends CheckId = CheckId> {
  readonly kind: K;
  /** The checks it decides, each with the variant its result is reported under ('' for none). */
  readonly decides: Readonly<Record<C, CheckVariant>>;
  /** The quota class it spends on its organizations, or 'none'. */
  readonly consumes: QuotaClass | 'none';
  /** How many organizations of its tier it occupies. */
  readonly orgs: number;
  readonly placement: Placement;
  /** Whether a tier's scenario has this task at all (e.g. the burst variant, a load shape). */
  readonly appliesTo?: (scenario: Scenario) => boolean;
  /** Runs only when one of its checks is named explicitly (`--checks`), never by default. */
  readonly optIn?: boolean;
  /**
   * Its last request falls in the next window of this class (read-sequential waits Retry-After out,
   * then reads): the plan puts a task of that class right after it, whose window that request opens
   * and whose ledger counts it (windows/keeper.ts), so it costs no window of its own.
   */
  readonly lastRequestOpens?: QuotaClass;
  /**
   * A quota task's requests that go one after another after its first (a batch counts once), at the
   * Limit of its class and the batch its cap allows: a window is taken only with time for them, and an
   * ingest task whose uploads cannot all fit one window is not run (suite/upload-fit.ts).
   */
  readonly rounds?: RoundTrips;
  /**
   * Besides the quota it spends, it reads on its organization and needs those reads admitted
   * (CONCURRENCY-CAP's control and extra): the plan does not put it first on a lane whose joint task
   * used that organization's read quota up just before (it would wait that read window out).
   */
  readonly readsToo?: boolean;
  /** It uploads resumes: a run that may write nothing (config `writes: none`) skips it. */
  readonly uploads?: boolean;
  /**
   * Why it cannot be run against a target whose edges include these, which are not loopback addresses
   * (none: the embedded target), or null where it can: the plan refuses it for every scenario it would
   * run for (lane, joint and after placements), its checks are reported skipped with the reason, and
   * the dry run says so.
   */
  readonly refusedFor?: (farEdges: readonly string[]) => Reason | null;
  /** What it sends, in a line: the dry run prints it. */
  readonly describe: string;
  // NoInfer: the checks are the declared ones; a decision for any other is a type error, not a wider C.
  run(context: SuiteContext, task: TaskRun<NoInfer<C>>): Promise<Decisions<NoInfer<C>>>;
}

/** A definition as the registry and the plan hold it: its checks widened to any check ID. */
export type RegisteredTask<K extends TaskKind = TaskKind> = Omit<TaskDefinition<K, CheckId>, 'decides'> & {
  readonly decides: Readonly<Partial<Record<CheckId, CheckVariant>>>;
};

/** Declares a task kind; the type parameters tie its decisions to the checks it declares. */
export function defineTask<K extends TaskKind, C extends CheckId>(
  definition: TaskDefinition<K, C>,
): TaskDefinition<K, C> {
  return Object.freeze(definition);
}

/** The checks a definition declares, in declaration order. */
export function declaredChecks(definition: RegisteredTask): readonly CheckId[] {
  return Object.keys(definition.decides) as CheckId[];
}

/** A check that cannot be decided here, and why. */
export function skippedFinding(reason: Reason): Finding {
  return { verdict: 'skipped', expected: '—', actual: 'not run', evidence: [], notes: [], reasons: [reason] };
}

/** A check the traffic could not decide, and why: `actual` is the reason's sentence. */
export function inconclusiveFinding(
  expected: string,
  reason: Reason,
  evidence: readonly number[] = [],
  notes: readonly string[] = [],
): Finding {
  return { verdict: 'inconclusive', expected, actual: reasonText(reason), evidence, notes, reasons: [reason] };
}

/** Times one check's own traffic (tasks deciding several checks one after another). */
export async function timed(context: SuiteContext, judge: () => Promise<Finding>): Promise<TimedFinding> {
  const startedWall = context.io.clock.now();
  const started = context.prober.now();
  const finding = await judge();
  return { finding, startedWall, durationMs: context.prober.now() - started };
}

export interface TaskInstance {
  readonly tier: TierName;
  readonly orgs: readonly OrgHandle[];
  readonly scenario: Scenario;
  /** The checks to report; null: every declared check. */
  readonly checks: readonly CheckId[] | null;
  /** Why the plan refused it (its definition's refusedFor): it sends nothing and its checks are skipped. */
  readonly refused?: Reason;
}

/** The shared step: runs a task and turns its decisions into the results of its selected checks. */
export async function runTask(
  definition: RegisteredTask,
  context: SuiteContext,
  instance: TaskInstance,
): Promise<CheckResult[]> {
  const declared = declaredChecks(definition);
  const checks = instance.checks === null ? declared : declared.filter((id) => instance.checks!.includes(id));
  const identity: TaskIdentity = {
    kind: definition.kind,
    tier: instance.tier,
    orgs: instance.orgs.map((o) => o.label),
  };
  const span = { startedWall: null as number | null, started: 0, endedAt: null as number | null };
  const run: TaskRun = {
    identity,
    rounds: definition.rounds ?? (() => 0),
    tier: instance.tier,
    orgs: instance.orgs,
    scenario: instance.scenario,
    checks,
    begin: (first) => {
      // A measurement taken again (suite/fresh-window.ts) keeps the span the first one began.
      if (span.startedWall !== null) return;
      context.emit({ type: 'task-start', task: identity });
      span.startedWall = first?.sentWall ?? context.io.clock.now();
      span.started = first?.sentAt ?? context.prober.now();
    },
    end: () => {
      span.endedAt ??= context.prober.now();
    },
    progress: (done, total, unit) => {
      const elapsed = context.prober.now() - span.started;
      const etaMs = done > 0 ? Math.round((elapsed / done) * Math.max(0, total - done)) : null;
      context.emit({ type: 'task-progress', task: identity, done, total, unit, etaMs });
    },
  };
  // A task that throws met a harness bug or an answer it did not expect: say so, and report its
  // checks inconclusive with the reason (a check that did not run must never vanish into a pass).
  let decisions: Decisions<CheckId> = {};
  let undecided = because('task-undecided', { kind: definition.kind });
  try {
    const notRun =
      instance.refused ??
      (definition.uploads === true && context.writes === 'none' ? because('writes-none', {}) : null);
    decisions = notRun === null ? await definition.run(context, run) : skippedFor(checks, notRun);
  } catch (error) {
    undecided = because('task-stopped', { task: taskName(identity), error: messageOf(error) });
    context.emit({ type: 'warning', message: reasonText(undecided) });
  }
  const own =
    span.startedWall === null
      ? { startedWall: context.io.clock.now(), durationMs: 0 }
      : { startedWall: span.startedWall, durationMs: (span.endedAt ?? context.prober.now()) - span.started };
  const org = identity.orgs.join('+') || null;
  return checks.map((id) => {
    // A declared check the task returned nothing for did not run: inconclusive, never a silent pass.
    const decision: Decision = decisions[id] ?? inconclusiveFinding('the check to run', undecided);
    const { finding, startedWall, durationMs } = 'finding' in decision ? decision : { finding: decision, ...own };
    const result = checkResult(id, finding, {
      tier: instance.tier,
      org,
      variant: definition.decides[id] ?? '',
      startedWall,
      durationMs: finding.verdict === 'skipped' ? 0 : durationMs,
    });
    context.judgements.linkOrRecord(result, finding);
    return result;
  });
}

/** Every check of a task that is not run, skipped for `reason`. */
function skippedFor(checks: readonly CheckId[], reason: Reason): Decisions<CheckId> {
  const finding = skippedFinding(reason);
  return Object.fromEntries(checks.map((id) => [id, finding]));
}
