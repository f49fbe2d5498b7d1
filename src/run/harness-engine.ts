/**
 * The harness engine: provisions organizations, plans, learns each tier's limiter, runs the plan,
 * and judges what is judged over the whole run (HDR-PRESENT). Every response goes to the run's
 * observations file; the checks cite them by id.
 */
import { join } from 'node:path';
import { checkResult } from '../checks/result.ts';
import type { CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { ObservationRecorder } from '../measure/recorder.ts';
import { NetworkMeter, eventLoopLateness, networkMargins } from '../measure/network.ts';
import type { HttpProber } from '../measure/http-prober.ts';
import type { Io } from '../util/io.ts';
import { RunTally } from './run-tally.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { taskName, type TaskIdentity } from '../results/events.ts';
import { executePlan } from './execute.ts';
import { plannedUploads } from './upload-plan.ts';
import { planFootprint, plannedWrites } from './footprint-plan.ts';
import { METHODOLOGY } from './methodology.ts';
import { declaredAssumptions, type RunOptions } from './options.ts';
import type { Plan } from './plan.ts';
import { WindowKeeper } from '../windows/keeper.ts';
import { CreatedLedger } from '../suite/created.ts';
import { remeasureBudget, remeasureText } from '../suite/remeasure.ts';
import { cleanUpCreated } from '../suite/cleanup.ts';
import { WriteTally, type PlannedWrite } from '../measure/write-tally.ts';
import type { WritePolicy } from '../contract/writes.ts';
import type { LimiterProfile } from '../profile/types.ts';
import { learnLimiter, type LearnOptions } from '../profile/learn.ts';
import { withConcurrency } from '../profile/concurrency.ts';
import { learnedConcurrency } from '../verdicts/concurrency-cap.ts';
import { messageOf } from '../util/errors.ts';
import type { OpenRun, RunEngine } from './engine.ts';
import { sessionProber } from './target-session.ts';
import type { EngineOutcome } from './publish.ts';
import { bulkPolicyOf, plannedRun, resolvedRevocation, selectedScenarios } from './plan-for.ts';
import { plannedReads } from './read-plan.ts';
import { preflight } from './preflight.ts';
import type { RevocationShape } from '../scenario/define.ts';
import { OBSERVATIONS_FILE } from '../measure/observation-file.ts';
import { JudgementLog, JUDGEMENTS_FILE } from '../suite/judgements.ts';
import { tierObservations } from '../verdicts/replay.ts';
import { MAX_PROBES_IN_FLIGHT } from '../revocation/parallel.ts';

export const harnessEngine: RunEngine = { prepare: async () => runHarness };

/** What the run accumulates as it goes: observations and their tallies, results, learned profiles. */
interface RunState {
  readonly recorder: ObservationRecorder;
  readonly tally: RunTally;
  readonly writes: WriteTally;
  readonly created: CreatedLedger;
  readonly judgements: JudgementLog;
  readonly results: CheckResult[];
  readonly profiles: Map<TierName, LimiterProfile>;
  /** Each tier's discovery while it runs: the keeper waits for it only on a server without rate-limit headers. */
  readonly learning: Map<TierName, Promise<LimiterProfile | null>>;
  /** The round trips of the run, and the margins they call for. */
  readonly network: NetworkMeter;
}

function openRunState(runDir: string): RunState {
  const recorder = new ObservationRecorder(join(runDir, OBSERVATIONS_FILE));
  const tally = new RunTally();
  recorder.onObservation((o) => tally.observe(o));
  const writes = new WriteTally(recruitingApi);
  recorder.onObservation((o) => writes.observe(o));
  return {
    recorder,
    tally,
    writes,
    created: new CreatedLedger(),
    judgements: new JudgementLog(recruitingApi),
    results: [],
    profiles: new Map(),
    learning: new Map(),
    network: new NetworkMeter(eventLoopLateness()),
  };
}

async function runHarness(run: OpenRun): Promise<EngineOutcome> {
  const { options, runDir } = run;
  const state = openRunState(runDir);
  const startedWall = run.io.clock.now();
  let plan: Plan | null = null;
  let plannedFootprint: readonly PlannedWrite[] = [];
  try {
    const suite = await buildSuiteContext(run, state);
    plan = suite.plan;
    plannedFootprint = announceRun(run, suite);
    const conformanceMs = await executeSuite(run, state, suite);
    judgeCollected(state, plan, recordResults(state, run.emit), { startedWall, durationMs: conformanceMs });
  } finally {
    state.network.close();
    await state.recorder.close();
    await state.judgements.write(join(runDir, JUDGEMENTS_FILE));
  }
  return engineOutcome(state, plan, options, plannedFootprint);
}

/** The suite as provisioned and planned: its organizations, plan, prober and the context every task gets. */
interface Suite {
  readonly plan: Plan;
  readonly scenarios: ReturnType<typeof selectedScenarios>;
  readonly handles: Map<string, OrgHandle>;
  readonly prober: HttpProber;
  readonly context: SuiteContext;
  readonly revocationShape: Required<RevocationShape> | null;
}

/**
 * Plan the run (data, before any socket opens), open the prober and ask every edge once (the
 * preflight: nothing is provisioned, no hook called and no quota spent before each has answered),
 * then take the organizations and gather what every task is given (the suite context).
 */
async function buildSuiteContext(run: OpenRun, state: RunState): Promise<Suite> {
  const { options, io, session } = run;
  const plan = plannedRun(options);
  const revocationShape = resolvedRevocation(options)?.shape ?? null;
  const prober = sessionProber(session, io, {
    network: state.network,
    recorder: state.recorder,
    timeoutMs: options.timeoutMs,
    connectionsPerEdge: connectionsPerEdge(plan, options, revocationShape?.parallel ?? 0),
    keepBodies: options.keepBodies === true,
  });
  try {
    await preflight(prober, { timeoutMs: options.timeoutMs, ca: session.ca });
    const handles = await runOrgs(run);
    const context = suiteContext(run, state, { prober, handles, revocationShape });
    return { plan, scenarios: selectedScenarios(options), handles, prober, context, revocationShape };
  } catch (error) {
    await prober.close();
    throw error;
  }
}

/** The organizations the plan names, by label: provisioned on the embedded target, the config's on a deployment. */
async function runOrgs({ options, session }: OpenRun): Promise<Map<string, OrgHandle>> {
  const scenarios = selectedScenarios(options);
  const orgs = await session.orgs(scenarios.map((s) => ({ tier: s.tier, count: s.orgs })));
  const revocationTier = scenarios[0]?.tier;
  const revocationOrg = revocationTier && session.keyHook ? await session.revocationOrg(revocationTier) : null;
  const profileOrgs = await session.profileOrgs(scenarios.map((s) => s.tier));
  return new Map([...orgs, ...(revocationOrg ? [revocationOrg] : []), ...profileOrgs].map((o) => [o.label, o]));
}

/** What every task is given: the prober, the organizations, the window keeper, the run's ledgers and policies. */
function suiteContext(
  run: OpenRun,
  state: RunState,
  opened: Pick<Suite, 'prober' | 'handles' | 'revocationShape'>,
): SuiteContext {
  const { options, io, session, runDir, runId, emit } = run;
  const { prober, handles, revocationShape } = opened;
  const contract = recruitingApi;
  const clockOffsetMs = () => state.tally.clockOffsetMs();
  const windows = new WindowKeeper({
    contract,
    prober,
    windowMs: session.windowMs,
    signal: io.signal,
    clockOffsetMs,
    clockUncertaintyMs: () => state.tally.clockUncertaintyMs(),
    wallNow: () => io.clock.now(),
    profileOf: (tier) => state.profiles.get(tier) ?? null,
    profileLearned: (tier) => state.learning.get(tier) ?? Promise.resolve(null),
    // Quota series go to the first edge: its round trips place their windows.
    margins: () => prober.network.margins(session.edges[0]?.label),
  });
  state.recorder.onObservation((o) => windows.observe(o));
  return {
    contract,
    prober,
    network: prober.network,
    io,
    orgs: [...handles.values()],
    keyHook: session.keyHook && state.created.counting(session.keyHook),
    provisionOrgs: session.provisionOrgs,
    windowMs: session.windowMs,
    windows,
    profileOf: (tier) => state.profiles.get(tier) ?? null,
    declared: declaredAssumptions(options),
    declaredHeaders: session.headers,
    uploadMs: (tier, path, quantile) => {
      const measured = windows.latencyMs(tier, 'ingest', path, quantile);
      return measured === null ? session.uploadMs : Math.max(measured, session.uploadMs ?? 0);
    },
    clockOffsetMs,
    emit,
    signal: io.signal,
    reportDir: runDir,
    recorder: state.recorder,
    timeoutMs: options.timeoutMs,
    revocation: revocationShape ?? {},
    writes: writePolicy(options),
    runId,
    created: state.created,
    removeWebhook: session.removeWebhook,
    judgements: state.judgements,
    remeasure: remeasureBudget(),
  };
}

/**
 * Connections per edge, from the plan (so the prober opens before any organization is provisioned):
 * every lane of every tier, and a discovery beside them on an organization of its own, may hold its
 * tier's cap in flight at once (a shared pool smaller than that would queue a task's requests behind
 * another's and skew the concurrency check); revocation trials at once keep one probe each in flight
 * per edge beside them, and far away up to MAX_PROBES_IN_FLIGHT together, as the round trip calls
 * for. A pool opens connections as they are needed, so room for the far case costs nothing near.
 */
function connectionsPerEdge(plan: Plan, options: RunOptions, revocationParallel: number): number {
  const configOrgs = options.target.kind === 'external' ? options.target.orgs : [];
  const orgs = plan.tiers.flatMap((t) =>
    [...t.orgs, ...(t.profile?.runs === 'beside' ? [t.profile.org] : [])].map((label) => ({
      tier: t.tier,
      limits: configOrgs.find((o) => o.label === label)?.limits,
    })),
  );
  const lanes = orgs.reduce((n, o) => n + figuresOf(recruitingApi, o).concurrency.value + 2, 0);
  return lanes + Math.max(revocationParallel, MAX_PROBES_IN_FLIGHT) + 16;
}

/**
 * Say what the run will do before it spends anything: its start, uploads that cannot fit a window
 * (their checks are not run), and on a deployment what it will write there. Returns the footprint
 * announced, which the results set beside what was written.
 */
function announceRun(run: OpenRun, suite: Suite): readonly PlannedWrite[] {
  const { options, session, runId, emit } = run;
  const { plan, scenarios, handles, revocationShape } = suite;
  const contract = recruitingApi;
  emit({
    type: 'run-start',
    runId,
    tiers: scenarios.map((s) => s.tier),
    tasks: countTasks(plan),
    windowSeconds: session.windowMs / 1000,
    target: session.info.edges[0] ?? '',
  });
  // On a deployment, whose upload time is measured as the run goes, the longest each task allows.
  const uploads = plannedUploads(
    plan,
    contract,
    session.windowMs,
    session.uploadMs,
    (label) => handles.get(label)?.limits,
  );
  for (const { fit, line } of uploads)
    if (fit === null || !fit.fits) emit({ type: fit === null ? 'notice' : 'warning', message: line });
  // Reads that cannot fit a window at the round trip measured so far (the first edge's, where series go).
  const network = suite.prober.network.figures(session.edges[0]?.label);
  const reads = plannedReads(plan, {
    contract,
    windowMs: session.windowMs,
    roundTripMs: network.samples > 0 ? network.medianMs : null,
    bulkOf: bulkPolicyOf(options),
    limitsOf: (label) => handles.get(label)?.limits,
  });
  for (const { fit, line } of reads) if (fit !== null && !fit.fits) emit({ type: 'warning', message: line });
  if (options.target.kind === 'external') emit({ type: 'notice', message: remeasureText(suite.context.remeasure) });
  // A deployment is told first what the run will write to it (the embedded target is the run's own).
  const footprintInputs = {
    contract,
    limitsOf: (label: string) => handles.get(label)?.limits,
    bulkCountsPerRequest: declaredAssumptions(options)['bulk-counts-per-resume'] === false,
    ...(revocationShape
      ? { revocationTrials: { trials: revocationShape.trials, parallel: revocationShape.parallel } }
      : {}),
  };
  if (options.target.kind === 'external') {
    for (const line of plannedWrites(plan, writePolicy(options), footprintInputs))
      emit({ type: 'notice', message: line });
  }
  return planFootprint(plan, writePolicy(options), footprintInputs);
}

/** Record a batch of results as they come, folding the cap's answer (CONCURRENCY-CAP) into its tier's profile. */
function recordResults(state: RunState, emit: OpenRun['emit']): (batch: readonly CheckResult[]) => void {
  return (batch) => {
    for (const result of batch) {
      state.results.push(result);
      // The cap's answer is learned by CONCURRENCY-CAP, not by the discovery: fold it into the tier's profile.
      const profile =
        result.id === 'CONCURRENCY-CAP' && result.tier !== null ? state.profiles.get(result.tier) : undefined;
      if (profile) state.profiles.set(profile.tier, withConcurrency(profile, learnedConcurrency(result)));
      emit({ type: 'check-result', result });
    }
  };
}

/** Run the plan (each tier's discovery with it) and clean up what it created; the conformance time, ms. */
async function executeSuite(run: OpenRun, state: RunState, suite: Suite): Promise<number> {
  const { plan, context, handles, scenarios, prober } = suite;
  const started = prober.now();
  let conformanceMs = 0;
  try {
    const record = recordResults(state, run.emit);
    await executePlan(plan, context, { orgs: handles, scenarios }, record, learnerFor(run, state, suite));
    await cleanUpCreated(context);
  } finally {
    conformanceMs = prober.now() - started;
    await prober.close();
  }
  return conformanceMs;
}

/** Each tier's discovery, started when the plan reaches it: its profile goes to the run state when learned. */
function learnerFor(run: OpenRun, state: RunState, suite: Suite): (tierPlan: Plan['tiers'][number]) => Promise<void> {
  return (tierPlan) => {
    const org = suite.handles.get(tierPlan.profile?.org ?? '');
    if (!org) return Promise.resolve();
    // A discovery the checks wait for is kept brief (with rate-limit headers they need no more).
    const brief = tierPlan.profile?.runs !== 'beside';
    const learned = learnBeside(org, {
      prober: suite.prober,
      windowMs: run.session.windowMs,
      clockOffsetMs: suite.context.clockOffsetMs,
      io: run.io,
      emit: run.emit,
      brief,
      uploads: suite.context.writes !== 'none',
      runId: run.runId,
    }).then((profile) => {
      if (!profile) return null;
      // CONCURRENCY-CAP may have decided while the discovery ran beside it.
      const cap = state.results.find((r) => r.id === 'CONCURRENCY-CAP' && r.tier === tierPlan.tier);
      const learnedProfile = { ...profile, tier: tierPlan.tier };
      state.profiles.set(
        tierPlan.tier,
        cap ? withConcurrency(learnedProfile, learnedConcurrency(cap)) : learnedProfile,
      );
      return state.profiles.get(tierPlan.tier)!;
    });
    state.learning.set(tierPlan.tier, learned);
    return learned.then(() => {});
  };
}

/** HDR-PRESENT, judged over every response a tier's checks received. */
function judgeCollected(
  state: RunState,
  plan: Plan,
  record: (batch: readonly CheckResult[]) => void,
  timing: { startedWall: number; durationMs: number },
): void {
  for (const tierPlan of plan.tiers) {
    for (const id of tierPlan.collected) {
      const found = state.tally.headersOf(tierPlan.tier).verdict();
      // Judged as the responses streamed by; judged again from every observation of the tier.
      state.judgements.record('headersPresentVerdict', [tierObservations(tierPlan.tier)], found);
      const result = checkResult(id, found, { tier: tierPlan.tier, org: null, ...timing });
      state.judgements.link(result, found);
      record([result]);
    }
  }
}

/** What the engine hands the publisher: the results, the clock, windows, profiles and footprint. */
function engineOutcome(
  state: RunState,
  plan: Plan | null,
  options: RunOptions,
  plannedFootprint: readonly PlannedWrite[],
): EngineOutcome {
  const { tally, profiles, recorder, writes, created } = state;
  const network = state.network.runFigures();
  return {
    checks: state.results,
    clock: tally.clock(),
    network: { figures: network, margins: networkMargins(network) },
    windows: { needed: plan?.windowsNeeded ?? 0, used: tally.windowsUsed(plan?.tiers.flatMap((t) => t.orgs) ?? []) },
    profiles: TIER_NAMES.flatMap((tier) => profiles.get(tier) ?? []),
    methodology: METHODOLOGY,
    observations: {
      file: OBSERVATIONS_FILE,
      count: recorder.count,
      bodies: options.keepBodies === true ? 'kept' : 'shape',
    },
    footprint: {
      writes: writePolicy(options),
      written: writes.rows(),
      announced: writes.beside(plannedFootprint),
      created: created.all(),
      keys: { ...created.keys },
    },
  };
}

/** How the server limits, learned on `org` before its tier's quota tasks; null (and a warning) if discovery stopped. */
async function learnBeside(
  org: OrgHandle,
  run: { readonly io: Io; readonly emit: OpenRun['emit'] } & Omit<LearnOptions, 'signal'>,
): Promise<LimiterProfile | null> {
  const task: TaskIdentity = { kind: 'profile', tier: org.tier, orgs: [org.label] };
  run.emit({ type: 'task-start', task });
  try {
    return await learnLimiter(org, { ...run, signal: run.io.signal });
  } catch (error) {
    // Without a profile the windows are scheduled as for an unknown limiter: slower, still sound.
    run.emit({
      type: 'warning',
      message: `${taskName(task)} stopped: ${messageOf(error)}; scheduling as for an unknown limiter`,
    });
    return null;
  }
}

/** The config's `writes`; the embedded target needs no setting. */
function writePolicy(options: RunOptions): WritePolicy {
  return options.target.kind === 'external' ? options.target.config.writes : 'own';
}

function countTasks(plan: Plan): number {
  const perTier = plan.tiers.reduce((n, t) => n + t.joint.length + Object.values(t.lanes).flat().length, 0);
  return perTier + (plan.revocation ? 1 : 0) + plan.load.length;
}
