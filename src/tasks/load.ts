/**
 * Sustained load (LOAD-THRESHOLDS): the scenario's phases back to back from the start of a fresh
 * window, each at a constant arrival rate of `rateMultiple` × the tier's quota per window for
 * `windows` windows: at quota, at twice the quota, and a fleet of organizations at quota at once
 * (when the target can provision them; otherwise that phase is skipped, and the result says so in
 * a reason). Every response is folded into a LoadAggregator (bounded memory) and, when a recorder
 * is given, streamed to the run's observations file; then the pure verdict judges the whole run.
 */
import { loadThresholdsVerdict } from '../verdicts/load-thresholds.ts';
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { ArrivalRateDriver, type ArrivalStream } from '../measure/arrival-rate.ts';
import { LoadAggregator } from '../measure/aggregate.ts';
import { LATENCY_POLICY } from '../measure/outcome.ts';
import { evaluateThresholds, thresholdDataFromSummary, type DroppedCount } from '../verdicts/support/threshold-eval.ts';
import { parseThresholds } from '../config/thresholds.ts';
import type { Observation } from '../measure/observation.ts';
import type { RateLimitReader } from '../measure/rate-limit-reading.ts';
import { loadPhaseName } from '../measure/tags.ts';
import type { LoadPhase, LoadShape } from '../scenario/define.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { requestFor } from '../measure/requests.ts';
import { limitToTest } from '../suite/announced-limit.ts';
import { inFreshWindow } from '../suite/fresh-window.ts';
import { defineTask, skippedFinding } from '../suite/task.ts';
import { because } from '../catalogue/reasons/index.ts';

const CHECK = 'LOAD-THRESHOLDS' as const;
/** In-flight bound per org when the tier publishes no concurrency cap figure. */
const DEFAULT_IN_FLIGHT = 4;

export const load = defineTask({
  kind: 'load',
  decides: { 'LOAD-THRESHOLDS': '' },
  consumes: 'read',
  orgs: 1,
  placement: 'after',
  optIn: true,
  appliesTo: (scenario) => scenario.load !== null,
  // Latency under load is the deployment's only where the distance to it is nil.
  refusedFor: (farEdges) => (farEdges.length === 0 ? null : because('far-deployment', { edges: farEdges })),
  describe:
    "the scenario's load phases at a constant arrival rate: at quota, at twice it, and a fleet of organizations",
  run: async (context, task) => {
    const org = task.orgs[0]!;
    const shape = task.scenario.load;
    if (!shape) return { [CHECK]: skippedFinding(because('no-load-shape', {})) };
    // A malformed expression is the scenario author's mistake: say so before any traffic.
    const thresholds = parseThresholds(shape.thresholds, `scenario ${org.tier}: load.thresholds`);
    const fleetSize = Math.max(1, ...shape.phases.map((p) => p.orgs));
    let fleet: readonly OrgHandle[] = [org];
    // The fleet has the organization's own figures, so that one figure judges every window.
    if (fleetSize > 1 && context.provisionOrgs)
      fleet = [org, ...(await context.provisionOrgs(org.tier, fleetSize - 1, org.limits))];
    const phases = shape.phases.filter((p) => p.orgs <= fleet.length);
    const skipped = shape.phases.filter((p) => p.orgs > fleet.length).map((p) => p.name);
    const restsOn =
      skipped.length > 0
        ? [because('fleet-phases-skipped', { tier: org.tier, needed: fleetSize, phases: skipped })]
        : [];
    // The first phase's first request shows a window just begun; the phases' schedule starts from it,
    // on the server's windows.
    const endpoint = endpointById(context.contract, shape.endpoint);
    const phase = phases[0] ? loadPhaseName(phases[0].name) : 'window-sync';
    const first = () =>
      context.prober.send(context.prober.edges[0]!, requestFor(endpoint, org.primary.key), {
        check: CHECK,
        phase,
        tier: org.tier,
        org: org.label,
      });
    return inFreshWindow(context, task, 'read', { first, fromStart: true }, async (window, opener) => {
      const result = await runPhases(context, {
        org,
        fleet,
        shape,
        phases,
        openedAt: window.openedAt,
        opener,
        ...(context.declaredHeaders ? { rateLimitReader: loadReader(context.declaredHeaders, context, org) } : {}),
      });
      const summary = result.aggregator.summary();
      const data = thresholdDataFromSummary(summary, result.dropped);
      const finding = loadThresholdsVerdict({
        summary,
        thresholds: evaluateThresholds(thresholds, data),
        figures: { [org.tier]: result.figure },
        dropped: result.dropped.reduce((n, d) => n + d.count, 0),
        notes: [LATENCY_POLICY.harness, ...result.notes],
        restsOn,
      });
      return { [CHECK]: context.judgements.withheld(finding, 'loadThresholdsVerdict') };
    });
  },
});

interface PhaseRunInput {
  readonly org: OrgHandle;
  readonly fleet: readonly OrgHandle[];
  readonly shape: LoadShape;
  readonly phases: readonly LoadPhase[];
  /** Run-relative ms at which the fresh window opened: phases are laid out from here. */
  readonly openedAt: number;
  /** The first phase's first request, sent to show its window begun: judged with the rest. */
  readonly opener: Observation;
  /** The rate-limit dialect the run declares, read from every response; absent: §8's X-RateLimit-*. */
  readonly rateLimitReader?: RateLimitReader;
}

async function runPhases(context: SuiteContext, input: PhaseRunInput) {
  const { org, fleet, shape, phases } = input;
  const endpoint = endpointById(context.contract, shape.endpoint);
  const figures = figuresOf(context.contract, org);
  const figure = figures[endpoint.quotaClass ?? 'read'];
  const cap = figures.concurrency.value;
  const request = requestFor(endpoint, null);
  // Enterprise figures are minimums: pace by what the server announces (HEAD is free, by assumption).
  let quota = figure.value;
  if (figure.atLeast) {
    const head = await context.prober.send(
      context.prober.edges[0]!,
      { method: 'HEAD', path: '/recruiter/bootstrap', key: org.primary.key },
      { check: CHECK, phase: 'limit-probe', tier: org.tier, org: org.label },
    );
    quota = limitToTest(figure, head);
  }
  const windowS = context.windowMs / 1000;
  const inFlight = Math.max(1, Math.min(cap > 0 ? cap : DEFAULT_IN_FLIGHT, 64));
  // The opener was the first phase's first request of the first organization.
  const streamsFor = (phase: LoadPhase): ArrivalStream[] =>
    fleet.slice(0, phase.orgs).map((o, i) => ({
      org: o.label,
      tier: o.tier,
      key: o.primary.key,
      ratePerS: (phase.rateMultiple * quota) / windowS,
      maxInFlight: inFlight,
      sentAlready: phase === phases[0] && i === 0 ? 1 : 0,
    }));
  let localId = 0;
  const recorder = context.recorder;
  const driver = new ArrivalRateDriver({
    edges: context.prober.edges,
    headers: context.contract.headers,
    connectionsPerEdge: Math.min(256, inFlight * fleet.length),
    ...(context.prober.ca === undefined ? {} : { ca: context.prober.ca }),
    timeoutMs: context.timeoutMs,
    now: () => context.prober.now(),
    wallNow: () => context.io.clock.now(),
    nextId: recorder ? () => recorder.nextId() : () => ++localId,
    signal: context.signal,
    rateLimitReader: input.rateLimitReader,
  });
  const aggregator = new LoadAggregator(windowS);
  aggregator.add(input.opener);
  const sink = (o: Observation) => {
    aggregator.add(o);
    recorder?.record(o);
  };
  const dropped: DroppedCount[] = [];
  const notes: string[] = [];
  let startAt = input.openedAt;
  try {
    for (const phase of phases) {
      if (context.signal.aborted) break;
      const durationMs = phase.windows * context.windowMs;
      const stats = await driver.run({
        check: CHECK,
        phase: loadPhaseName(phase.name),
        request,
        streams: streamsFor(phase),
        startAt,
        durationMs,
        sink,
      });
      dropped.push({ tags: { tier: org.tier, phase: phase.name }, count: stats.dropped });
      notes.push(
        `${phase.name}: ${stats.sent} sent at ${round((phase.rateMultiple * quota) / windowS)}/s per org × ${phase.orgs} org${phase.orgs === 1 ? '' : 's'} over ${phase.windows} window${phase.windows === 1 ? '' : 's'}; send lag p99 ${round(stats.sendLag.percentileMs(99) ?? 0)} ms`,
      );
      // The next phase starts where this one's schedule ends: on a window boundary.
      startAt += durationMs;
    }
  } finally {
    await driver.close();
  }
  return { aggregator, dropped, notes, figure };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * The load's reader: the declared dialect, each class by its declared policy name, else by the one
 * its tier's profile learned (as the prober reads the checks' answers).
 */
export function loadReader(declared: RateLimitReader, context: SuiteContext, org: OrgHandle): RateLimitReader {
  return { ...declared, policies: { ...context.prober.learnedPolicies(org.tier), ...declared.policies } };
}
