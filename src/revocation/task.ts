/**
 * The revocation task (§5.8, §5.9, §8.3): `shape.trials` trials on one organization of its own, up
 * to `shape.parallel` at once (trialsAtOnce), judged as REVOKE-LATENCY, REVOKE-STICKY, AUTH-REVOKED
 * and ROTATION, and revocation.csv in the report directory. Probes go to HEAD /recruiter/bootstrap
 * (no scope, no quota by assumption). Without a key hook every check is skipped with the reason.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import type { RevocationEvidence } from '../verdicts/support/revocation-evidence.ts';
import type { RevocationProbeRun } from '../measure/revocation-records.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { REVOCATION_CSV, revocationCsv } from './csv.ts';
import type { TrialTiming } from './probe.ts';
import { probingLoadNotes, runRevocationTrials } from './trials.ts';
import { resolveRevocationShape, type RevocationShape } from '../scenario/define.ts';
import { inFlightCeiling, trialsAtOnce } from './parallel.ts';
import { requestFor } from '../measure/requests.ts';
import { defineTask, skippedFinding } from '../suite/task.ts';
import { trialsToProve } from '../verdicts/support/confidence.ts';
import { because } from '../catalogue/reasons/index.ts';

/** Timing beyond the scenario's shape; the defaults (here only) suit any deployment. */
export interface RevocationTaskOptions {
  /** Probing stops this long after the revoke call at the latest. Default SLA + settle + 5 s. */
  readonly maxMs?: number;
  /** Default 2 s. */
  readonly confirmMs?: number;
  /** Default 60 s: hooks time out first (10 s by default); this only guarantees no hang. */
  readonly hookGuardMs?: number;
}

export function revocationTiming(
  shape: RevocationShape,
  slaMs: number,
  options: RevocationTaskOptions = {},
): TrialTiming {
  return {
    // A zero interval would be a busy loop: one probe per millisecond per edge at most.
    intervalMs: Math.max(1, shape.intervalMs),
    settleMs: shape.settleMs,
    maxMs: options.maxMs ?? slaMs + shape.settleMs + 5000,
    confirmMs: options.confirmMs ?? 2000,
    leadMs: Math.max(30, 3 * shape.intervalMs),
    revokeTimeoutMs: options.hookGuardMs ?? 60_000,
  };
}

/** The task's shape: flags, then config, then scenario, then defaults; the trials raised to what a confidence target takes, none slower. */
export function trialShape(scenario: RevocationShape, overrides: Partial<RevocationShape>): Required<RevocationShape> {
  const shape = resolveRevocationShape(scenario, overrides);
  return shape.confidence ? { ...shape, trials: Math.max(shape.trials, trialsToProve(shape.confidence)) } : shape;
}

/** The revocation task kind; `options` tune its timing (tests), the registry takes the defaults. */
export function revocationTask(options: RevocationTaskOptions = {}) {
  return defineTask({
    kind: 'revocation',
    decides: { 'REVOKE-LATENCY': '', 'REVOKE-STICKY': '', 'AUTH-REVOKED': '', ROTATION: '' },
    consumes: 'none',
    orgs: 1,
    placement: 'beside',
    describe:
      'keys revoked a few trials at a time, every edge probed until each refuses them, then watched to stay refused',
    run: async (context, task) => {
      const org = task.orgs[0]!;
      const shape = trialShape(task.scenario.revocation, context.revocation);
      task.begin();
      const hook = context.keyHook;
      if (!hook) {
        const skipped = skippedFinding(because('no-revocation-hook', {}));
        return { 'REVOKE-LATENCY': skipped, 'REVOKE-STICKY': skipped, 'AUTH-REVOKED': skipped, ROTATION: skipped };
      }

      const { contract, prober } = context;
      const rejectStatus = contract.statuses.unauthenticated;
      const head = endpointById(contract, 'bootstrap-head');
      const timing = revocationTiming(shape, contract.revocationSlaMs, options);
      // The embedded target's revocation organization has figures of its own, as may a deployment's.
      const figures = figuresOf(contract, org);
      const concurrencyCap = figures.concurrency.value;
      const room = { edges: prober.edges.length, concurrencyCap, connectionsPerEdge: prober.connectionsPerEdge };
      const parallel = trialsAtOnce({
        ...room,
        requested: shape.parallel,
        trials: shape.trials,
        keyCapacity: hook.capacity ?? null,
      });
      const outcome = await runRevocationTrials({
        prober,
        hook,
        org,
        trials: shape.trials,
        chains: parallel.chains,
        timing,
        inFlightCeiling: inFlightCeiling(room, parallel.chains),
        request: (key) => requestFor(head, key),
        rejectStatus,
        provisionTimeoutMs: timing.revokeTimeoutMs,
        wallNow: () => context.io.clock.now(),
        signal: context.signal,
        onTrial: (_, done) => task.progress(done, shape.trials, 'trials'),
      });
      const evidence: RevocationEvidence = {
        runs: outcome.runs,
        plannedTrials: shape.trials,
        problems: outcome.problems,
        slaMs: contract.revocationSlaMs,
        rejectStatus,
        target: shape.confidence,
        methodNotes: [
          ...probingLoadNotes({
            edges: prober.edges.length,
            chains: parallel.chains,
            timing,
            windowMs: context.windowMs,
            readQuota: figures.read.value,
            concurrencyCap,
            tier: org.tier,
          }),
        ],
        parallel,
      };
      warnOfRateLimitedProbes(context, org, outcome.runs, parallel.chains);
      const reportDir = context.reportDir ?? null;
      if (reportDir !== null)
        await writeFile(join(reportDir, REVOCATION_CSV), revocationCsv(outcome.runs, rejectStatus));
      return judgeRevocation(context, evidence);
    },
  });
}

/** Warns when probes were answered 429: they are unusable, and say the probing load was too much here. */
function warnOfRateLimitedProbes(
  context: SuiteContext,
  org: OrgHandle,
  runs: readonly RevocationProbeRun[],
  chains: number,
): void {
  const { contract, prober } = context;
  const rateLimited = runs.reduce(
    (n, run) => n + run.probes.filter((p) => p.status === contract.statuses.rateLimited).length,
    0,
  );
  if (rateLimited > 0) {
    context.emit({
      type: 'warning',
      message: `revocation probing on ${org.label}: ${rateLimited} probes answered 429 and are unusable; HEAD /recruiter/bootstrap may count against the quota here (assumption head-bootstrap-free), or ${chains * prober.edges.length} probes at once hit the concurrency cap`,
    });
  }
}

/** The four revocation verdicts on the trials' evidence. */
function judgeRevocation(context: SuiteContext, evidence: RevocationEvidence) {
  return {
    'REVOKE-LATENCY': context.judgements.judge('revokeLatencyVerdict', evidence),
    'REVOKE-STICKY': context.judgements.judge('revokeStickyVerdict', evidence),
    'AUTH-REVOKED': context.judgements.judge('authRevokedVerdict', evidence),
    ROTATION: context.judgements.judge('rotationVerdict', evidence),
  };
}
