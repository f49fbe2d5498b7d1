/**
 * Quota checks start in a fresh window of the quota class they measure and must finish inside it
 * (README "How it measures"). This wraps a task's traffic: its first request goes to the window keeper
 * (windows/keeper.ts), which sends it until the server shows it in a window fresh on the task's
 * organizations and long enough for the check; then the task begins and runs the rest. If no such
 * window could be had, every check of the task is inconclusive with the reason. A check a window
 * boundary or the network spoiled (Finding.measureAgain) is measured again in the next window, once;
 * so are uploads too slow at the moment to fit a window that the fastest recent one would fit, a
 * window later (nothing of the quota was spent on them).
 */
import type { QuotaClass } from '../contract/types.ts';
import type { WindowContext } from '../measure/window.ts';
import type { Observation } from '../measure/observation.ts';
import type { CheckId, Finding } from '../catalogue/types.ts';
import { because, type Reason } from '../catalogue/reasons/index.ts';
import type { SuiteContext } from './context.ts';
import { inconclusiveFinding, type Decision, type Decisions, type TaskRun } from './task.ts';
import { underCap } from './batches.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { uploadFit, uploadsUnfitFigures } from './upload-fit.ts';
import { readFit, readsUnfitFigures, type RoundsAt } from './read-fit.ts';
import { sleep } from '../util/sleep.ts';
import { limitFromAnnounced, uploadsFromAnnounced } from './announced-limit.ts';
import type { LimiterProfile } from '../profile/types.ts';
import { NEED_QUANTILE } from '../windows/keeper.ts';

/** A quota check's traffic, as the window keeper needs to know it. */
export interface QuotaTraffic {
  /** The check's first request, sent alone: the server's answer shows the window fresh, and when it ends. */
  readonly first: () => Promise<Observation>;
  /** Units that first request may count (default one; a bulk upload's resumes, or one where counted per upload). */
  readonly units?: readonly number[];
  /** Only a window that begins with the first request (see WindowRequest.fromStart). */
  readonly fromStart?: boolean;
  /** The path the task's uploads go to (ingest): their measured time decides whether they fit a window. */
  readonly uploads?: string;
}

/** A quota task's traffic once its window is open: its first request was sent already. */
export type QuotaBody<C extends CheckId> = (window: WindowContext, first: Observation) => Promise<Decisions<C>>;

export async function inFreshWindow<C extends CheckId>(
  context: SuiteContext,
  task: TaskRun<C>,
  quotaClass: QuotaClass,
  traffic: QuotaTraffic,
  body: QuotaBody<C>,
): Promise<Decisions<C>> {
  context.emit({ type: 'task-waiting', task: task.identity, untilEpochS: null });
  const measure = () => measureOnce(context, task, quotaClass, traffic, body);
  const measured = await measure();
  // A measurement a boundary or the network spoiled is taken again in the next window, once.
  const spoiled = task.checks.filter(
    (id) => findingOf(measured.decisions[id] as Decision | undefined)?.measureAgain === 'next-window',
  );
  if (spoiled.length === 0 || context.signal.aborted) return measured.decisions;
  const refused = context.remeasure.take(task.orgs[0]!.label);
  if (refused !== null) return notMeasuredAgain(task, measured.decisions, refused);
  // Not run (uploads slow at the moment): a window later, at a quieter moment, they may fit.
  if (!measured.ran) await sleep(context.windowMs, context.signal);
  const again = await measure();
  const merged: Partial<Record<CheckId, Decision>> = { ...(measured.decisions as Partial<Record<CheckId, Decision>>) };
  // Every check the first measurement left open takes the second's: a series a boundary cut short
  // also leaves the checks that judge its end (the 429's body, Retry-After, the second key) open.
  const open = task.checks.filter(
    (id) => findingOf(measured.decisions[id] as Decision | undefined)?.verdict === 'inconclusive',
  );
  for (const id of open) {
    const before = findingOf(measured.decisions[id] as Decision | undefined)!;
    const decision = again.decisions[id] as Decision | undefined;
    const after = findingOf(decision);
    if (!decision || !after) continue;
    // Not measured again (no window could be had, or the uploads no longer fit): the first measurement
    // stands, with why the second could not be had.
    if (!again.ran) {
      merged[id] = withReasons(measured.decisions[id] as unknown as Decision, after.reasons ?? []);
      continue;
    }
    const remeasured = because('measured-again', {
      first: (before.reasons ?? []).map((r) => r.code),
      spoiled,
      ownSpoiled: spoiled.includes(id),
    });
    merged[id] = withReasons(decision, [remeasured]);
  }
  return merged as Decisions<C>;
}

/** The first measurement's decisions, each open one giving why it was not measured again. */
function notMeasuredAgain<C extends CheckId>(task: TaskRun<C>, decisions: Decisions<C>, why: Reason): Decisions<C> {
  const noted: Partial<Record<CheckId, Decision>> = { ...(decisions as Partial<Record<CheckId, Decision>>) };
  for (const id of task.checks) {
    const decision = decisions[id] as Decision | undefined;
    if (findingOf(decision)?.verdict === 'inconclusive') noted[id] = withReasons(decision!, [why]);
  }
  return noted as Decisions<C>;
}

/** The decision with `reasons` added, each once (a second measurement not run may repeat the first's why). */
function withReasons(decision: Decision, reasons: readonly Reason[]): Decision {
  return amended(decision, (finding) => {
    const given = finding.reasons ?? [];
    const known = new Set(given.map((r) => JSON.stringify(r)));
    return { ...finding, reasons: [...given, ...reasons.filter((r) => !known.has(JSON.stringify(r)))] };
  });
}

/** The decision with its finding changed by `change`. */
function amended(decision: Decision, change: (finding: Finding) => Finding): Decision {
  const finding = change(findingOf(decision)!);
  return 'finding' in decision ? { ...decision, finding } : finding;
}

/** Whether the server's windows start with the check's first request (learned): no upload time goes to finding the start. */
function opensWithFirst(profile: LimiterProfile | null, quotaClass: QuotaClass): boolean {
  const algorithm = profile?.[quotaClass].algorithm.value ?? profile?.read.algorithm.value ?? null;
  return algorithm === 'fixed-first-request' || algorithm === 'refilling';
}

const findingOf = (decision: Decision | undefined): Finding | undefined =>
  decision === undefined ? undefined : 'finding' in decision ? decision.finding : decision;

/**
 * The round trip a quota task's reads are planned by: the network's median to the edge its series go
 * to, as measured on this run (a moment's slow round trips, the machine's own handshakes among them,
 * must not refuse a task: the plan leaves room for slower ones); before any was measured, a slow one
 * of the class's recent requests.
 */
export function plannedLatencyMs(context: SuiteContext, task: TaskRun, quotaClass: QuotaClass): number {
  const network = context.network.figures(context.prober.edges[0]?.label);
  if (network.samples > 0) return network.medianMs;
  return context.windows.latencyMs(task.orgs[0]!.tier, quotaClass, undefined, NEED_QUANTILE) ?? 0;
}

/** One window, shown fresh and long enough by the task's first request, and the task's traffic in it; `ran`: it was sent. */
async function measureOnce<C extends CheckId>(
  context: SuiteContext,
  task: TaskRun<C>,
  quotaClass: QuotaClass,
  traffic: QuotaTraffic,
  body: QuotaBody<C>,
): Promise<{ readonly decisions: Decisions<C>; readonly ran: boolean }> {
  const figures = task.orgs.map((o) => figuresOf(context.contract, o));
  const profile = context.profileOf(task.orgs[0]!.tier);
  const learned = profile?.[quotaClass].limit ?? null;
  const toTest = quotaClass === 'ingest' ? uploadsFromAnnounced : limitFromAnnounced;
  const limit = Math.max(...figures.map((f) => toTest(f[quotaClass], learned)));
  const batch = underCap(Math.min(...figures.map((f) => f.concurrency.value)));
  const rounds = (roundTripMs: number) =>
    task.rounds(limit, batch, { roundTripMs, windowMs: context.windowMs, bulk: task.scenario.quota.bulk ?? 'auto' });
  const unfit =
    quotaClass === 'ingest' ? uploadsUnfit(context, task, traffic, rounds) : readsUnfit(context, task, rounds);
  if (unfit) return { decisions: allOf(task, unfit), ran: false };
  const sync = await context.windows.fresh(task.orgs, quotaClass, {
    first: traffic.first,
    units: traffic.units ?? [1],
    needMs: (latencyMs) => rounds(latencyMs) * latencyMs,
    fromStart: traffic.fromStart ?? false,
  });
  if (!sync.ok) {
    const finding = inconclusiveFinding(
      'a fresh quota window to start in',
      because('no-fresh-window', { detail: sync.reason }),
      sync.polls.slice(-2).map((o) => o.id),
    );
    return { decisions: allOf(task, finding), ran: false };
  }
  task.begin(sync.first);
  return { decisions: await body(sync.window, sync.first), ran: true };
}

/** Reads whose round trips one after another cannot fit a window at the latency measured: not sent, with the figures. */
function readsUnfit(context: SuiteContext, task: TaskRun, rounds: RoundsAt): Finding | null {
  const fit = readFit(rounds, plannedLatencyMs(context, task, 'read'), context.windowMs);
  if (fit.fits) return null;
  return inconclusiveFinding(
    'reads that fit one quota window',
    because('reads-do-not-fit-window', readsUnfitFigures(fit, context.windowMs)),
  );
}

/**
 * Uploads that cannot all fit one window are not sent: nothing of the task's quota is spent on them.
 * Where the fastest recent upload would fit, they were slowed by a moment's load (the run's own other
 * tasks): measured again a window later.
 */
function uploadsUnfit(context: SuiteContext, task: TaskRun, traffic: QuotaTraffic, rounds: RoundsAt): Finding | null {
  const tier = task.orgs[0]!.tier;
  const uploadMs = context.uploadMs(tier, traffic.uploads);
  if (uploadMs === null) return null;
  const opens = opensWithFirst(context.profileOf(tier), 'ingest');
  const steps = rounds(uploadMs);
  const fit = uploadFit(steps, uploadMs, context.windowMs, opens);
  if (fit.fits) return null;
  const fastest = context.uploadMs(tier, traffic.uploads, 0);
  const quieter = fastest !== null && uploadFit(steps, fastest, context.windowMs, opens).fits;
  const finding = inconclusiveFinding(
    'uploads that fit one quota window',
    because('uploads-do-not-fit-window', uploadsUnfitFigures(fit, uploadMs, context.windowMs)),
  );
  if (!quieter) return finding;
  const slowNow = because('uploads-slow-now', { fastestMs: Math.round(fastest) });
  return { ...finding, reasons: [...(finding.reasons ?? []), slowNow], measureAgain: 'next-window' };
}

/** The same finding for every check of the task. */
function allOf<C extends CheckId>(task: TaskRun<C>, finding: Finding): Decisions<C> {
  const undecided: Partial<Record<CheckId, Finding>> = {};
  for (const id of task.checks) undecided[id] = finding;
  return undecided as Decisions<C>;
}
