/**
 * `runSuite`: the library call behind `tiergate run`. Opens the target, provisions organizations,
 * plans, runs the plan, judges what is judged over the whole run, and writes the reports. An
 * interrupted run (io.signal) still writes the report of what finished.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkResult } from '../verdicts/support/result.ts';
import { HeadersPresentTally } from '../verdicts/hdr-present.ts';
import { CHECK_IDS, countVerdicts, overallVerdict, type CheckResult } from '../catalogue/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { TIER_NAMES, type TierName } from '../contract/types.ts';
import { HttpProber } from '../measure/http-prober.ts';
import { EXIT, exitCodeFor, messageOf } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { ObservationRecorder } from '../measure/recorder.ts';
import { clockEstimate, narrowOffset, type OffsetInterval } from '../measure/server-clock.ts';
import { RESULTS_SCHEMA, type RunResults } from '../results/types.ts';
import { pointLatest, writeReports } from '../report/render.ts';
import { taskBinder } from './bind.ts';
import type { SuiteContext } from '../procedures/context.ts';
import type { OrgHandle } from '../procedures/handles.ts';
import type { RunEvent } from '../results/events.ts';
import { executePlan } from './execute.ts';
import { METHODOLOGY } from './methodology.ts';
import type { RunOptions } from './options.ts';
import type { Scenario } from '../scenario/define.ts';
import { buildPlan, type Plan } from './plan.ts';
import { orgLabels } from '../provision/provision.ts';
import { describePlan } from './describe-plan.ts';
import { openTargetSession } from './target-session.ts';
import { WindowKeeper } from '../procedures/windows.ts';
import type { LimiterProfile } from '../profile/types.ts';
import { discover } from '../procedures/discover.ts';
import { inferProfile } from '../profile/infer.ts';
import { newRunId, toolInfo } from './run-id.ts';

export interface RunOutcome {
  /** null for a dry run. */
  readonly results: RunResults | null;
  readonly runDir: string | null;
  readonly exitCode: number;
}


export async function runSuite(options: RunOptions, io: Io): Promise<RunOutcome> {
  const contract = recruitingApi;
  const emit = (event: RunEvent) => {
    for (const listener of options.listeners) listener(event);
  };
  const scenarios = options.scenarios.filter((s) => options.tiers.includes(s.tier));
  if (options.dryRun) {
    const target = options.target;
    const labels = (tier: TierName, count: number) =>
      target.kind === 'external' ? target.orgs.filter((o) => o.tier === tier).map((o) => o.label) : orgLabels(tier, count);
    const revocationOrg =
      target.kind === 'external'
        ? (target.orgs.find((o) => o.label === target.config.revocation?.org) ?? null)
        : scenarios[0] ? { tier: scenarios[0].tier, label: `${scenarios[0].tier}-revocation` } : null;
    const plan = planFor(scenarios, (tier, count) => labels(tier, count), revocationOrg, options.checks);
    io.stdout.write(describePlan(plan, options.windowMs));
    return { results: null, runDir: null, exitCode: EXIT.pass };
  }

  const runId = options.runId ?? newRunId(io.clock.now());
  const outDir = resolve(io.cwd, options.outDir);
  const runDir = join(outDir, runId);
  await mkdir(runDir, { recursive: true });
  const startedWall = io.clock.now();
  const epoch = io.clock.monotonic();
  const session = await openTargetSession(options, io.env);
  const recorder = new ObservationRecorder(join(runDir, 'observations.ndjson'));
  let offset: OffsetInterval | null = null;
  const headersByTier = new Map<TierName, HeadersPresentTally>();
  // Windows used: per organization, the distinct Reset values its checks' responses carried (not the
  // syncs' or the discovery's, which run before a check's window).
  const windowsByOrg = new Map<string, Set<string>>();
  recorder.onObservation((o) => {
    offset = narrowOffset(offset, o);
    if (o.org && o.check !== 'WINDOW-SYNC' && o.check !== 'PROFILE' && o.rateLimit.reset.raw !== null) {
      const seen = windowsByOrg.get(o.org) ?? new Set<string>();
      seen.add(o.rateLimit.reset.raw);
      windowsByOrg.set(o.org, seen);
    }
    if (!o.tier) return;
    const tally = headersByTier.get(o.tier) ?? new HeadersPresentTally();
    tally.add(o);
    headersByTier.set(o.tier, tally);
  });
  const results: CheckResult[] = [];
  const profiles = new Map<TierName, LimiterProfile>();
  let plan: Plan | null = null;
  let conformanceMs = 0;
  try {
    const orgs = await session.orgs(scenarios.map((s) => ({ tier: s.tier, count: s.orgs })));
    const revocationTier = scenarios[0]?.tier;
    const revocationOrg = revocationTier && session.keyHook ? await session.revocationOrg(revocationTier) : null;
    const handles = new Map<string, OrgHandle>([...orgs, ...(revocationOrg ? [revocationOrg] : [])].map((o) => [o.label, o]));
    plan = planFor(scenarios, (tier) => orgs.filter((o) => o.tier === tier).map((o) => o.label), revocationOrg, options.checks);
    // Every lane of every tier may hold its tier's cap in flight at once: a shared pool smaller
    // than that would queue a task's requests behind another's and skew the concurrency check.
    const connections = scenarios.reduce((n, s) => n + (contract.tiers[s.tier].concurrency.value + 2) * s.orgs, 0) + 16;
    const prober = new HttpProber({
      edges: session.edges,
      contract: { ...contract, headers: { ...contract.headers, edgeNode: session.edgeHeader } },
      clock: io.clock,
      epoch,
      recorder,
      timeoutMs: options.timeoutMs,
      connectionsPerEdge: connections,
      signal: io.signal,
      allowRemote: session.allowRemote,
    });
    const clockOffsetMs = () => clockEstimate(offset)?.offsetMs ?? 0;
    const windows = new WindowKeeper({
      contract,
      prober,
      windowMs: session.windowMs,
      signal: io.signal,
      clockOffsetMs,
      clockUncertaintyMs: () => clockEstimate(offset)?.uncertaintyMs ?? 1000,
      wallNow: () => io.clock.now(),
      profileOf: (tier) => profiles.get(tier) ?? null,
    });
    recorder.onObservation((o) => windows.observe(o));
    emit({ type: 'run-start', runId, tiers: scenarios.map((s) => s.tier), tasks: countTasks(plan), windowSeconds: session.windowMs / 1000, target: session.info.edges[0] ?? '' });
    const context: SuiteContext = {
      contract,
      prober,
      io,
      orgs,
      keyHook: session.keyHook,
      provisionOrgs: session.provisionOrgs,
      windowMs: session.windowMs,
      windows,
      profileOf: (tier) => profiles.get(tier) ?? null,
      declared: options.target.kind === 'external' ? (options.target.config.assumptions ?? {}) : {},
      clockOffsetMs,
      emit,
      signal: io.signal,
      reportDir: runDir,
    };
    const selected = new Set(plan.checks);
    const record = (batch: readonly CheckResult[]) => {
      // A task decides several checks from one window's traffic; report only those the run selected.
      for (const result of batch.filter((r) => selected.has(r.id))) {
        results.push(result);
        emit({ type: 'check-result', result });
      }
    };
    const started = prober.now();
    try {
      const learn = async (tierPlan: Plan['tiers'][number]) => {
        const org = handles.get(tierPlan.orgs[0] ?? '');
        const consumes = [...tierPlan.joint, ...Object.values(tierPlan.lanes).flat()].some((t) => t.consumes !== 'none');
        if (!org || !consumes) return;
        const task = `profile ${org.label}`;
        emit({ type: 'task-start', task });
        try {
          const record = await discover({
            prober,
            contract,
            tier: org.tier,
            org: org.label,
            keys: { primary: org.primary.key, unscoped: org.unscoped?.key ?? null },
            windowMs: session.windowMs,
            clockOffsetMs,
            signal: io.signal,
          });
          profiles.set(org.tier, inferProfile(record, clockOffsetMs()));
        } catch (error) {
          // Without a profile the windows are scheduled as for an unknown limiter: slower, still sound.
          emit({ type: 'warning', message: `${task} stopped: ${messageOf(error)}; scheduling as for an unknown limiter` });
        }
      };
      await executePlan(plan, context, taskBinder({ orgs: handles, scenarios, revocation: revocationShape(options), recorder, timeoutMs: options.timeoutMs }), record, learn);
    } finally {
      conformanceMs = prober.now() - started;
      await prober.close();
    }
    // HDR-PRESENT is judged over every response a tier's checks received.
    for (const tierPlan of plan.tiers) {
      for (const id of tierPlan.collected) {
        const tally = headersByTier.get(tierPlan.tier) ?? new HeadersPresentTally();
        record([checkResult(id, tally.verdict(), { tier: tierPlan.tier, org: null, startedWall, durationMs: conformanceMs })]);
      }
    }
  } finally {
    await session.close();
    await recorder.close();
  }
  const ordered = orderResults(results);
  const finishedWall = io.clock.now();
  const runResults: RunResults = {
    schema: RESULTS_SCHEMA,
    runId,
    tool: await toolInfo(),
    contract: { name: contract.name, version: contract.version },
    target: session.info,
    startedAt: new Date(startedWall).toISOString(),
    finishedAt: new Date(finishedWall).toISOString(),
    durationMs: finishedWall - startedWall,
    windowSeconds: session.windowMs / 1000,
    tiers: scenarios.map((s) => s.tier),
    clock: clockEstimate(offset),
    windows: { needed: plan?.windowsNeeded ?? 0, used: Math.max(0, ...(plan?.tiers.flatMap((t) => t.orgs) ?? []).map((org) => windowsByOrg.get(org)?.size ?? 0)) },
    interrupted: io.signal.aborted,
    verdict: overallVerdict(ordered.map((r) => r.verdict)),
    counts: countVerdicts(ordered.map((r) => r.verdict)),
    checks: ordered,
    profiles: TIER_NAMES.flatMap((tier) => profiles.get(tier) ?? []),
    assumptions: contract.assumptions,
    methodology: METHODOLOGY,
    observations: { file: 'observations.ndjson', count: recorder.count },
  };
  await writeReports(runResults, runDir);
  await pointLatest(outDir, runDir);
  emit({ type: 'run-end', results: runResults, reportDir: runDir });
  const exitCode = exitCodeFor(runResults.verdict, runResults.interrupted);
  return { results: runResults, runDir, exitCode };
}

/**
 * The plan over the run's organizations. The revocation organization gets no lane of its own: its
 * probes run beside every lane, and on a shared org they would crowd the concurrency cap.
 */
function planFor(
  scenarios: readonly Scenario[],
  labelsOf: (tier: TierName, count: number) => readonly string[],
  revocationOrg: { readonly tier: TierName; readonly label: string } | null,
  checks: RunOptions['checks'],
): Plan {
  const lanes = (s: Scenario) => labelsOf(s.tier, s.orgs).filter((label) => label !== revocationOrg?.label);
  return buildPlan({
    scenarios,
    orgs: Object.fromEntries(scenarios.map((s) => [s.tier, lanes(s)])),
    checks,
    revocationOrg: revocationOrg ? { tier: revocationOrg.tier, label: revocationOrg.label } : null,
  });
}

function countTasks(plan: Plan): number {
  const perTier = plan.tiers.reduce((n, t) => n + t.joint.length + Object.values(t.lanes).flat().length, 0);
  return perTier + (plan.revocation ? 1 : 0) + plan.load.length;
}

/** Catalogue order, then tier order, then variant: reports and JUnit read the same way every run. */
function orderResults(results: readonly CheckResult[]): CheckResult[] {
  const tierRank = (t: TierName | null) => (t === null ? TIER_NAMES.length : TIER_NAMES.indexOf(t));
  return [...results].sort(
    (a, b) => CHECK_IDS.indexOf(a.id) - CHECK_IDS.indexOf(b.id) || tierRank(a.tier) - tierRank(b.tier) || a.variant.localeCompare(b.variant),
  );
}

/** Revocation trials, interval and settle: the flags first, then the config file's, then the scenario's. */
function revocationShape(options: RunOptions): RunOptions['revocation'] {
  const fromConfig = options.target.kind === 'external' ? options.target.config.revocation : undefined;
  return {
    trials: options.revocation.trials ?? fromConfig?.trials,
    intervalMs: options.revocation.intervalMs ?? fromConfig?.interval,
    settleMs: options.revocation.settleMs ?? fromConfig?.settle,
  };
}
