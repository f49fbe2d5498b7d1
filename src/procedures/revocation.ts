/**
 * The revocation task (§5.8, §5.9, §8.3): `shape.trials` trials on one organization of its own,
 * judged as REVOKE-LATENCY, REVOKE-STICKY, AUTH-REVOKED and ROTATION, and revocation.csv in the
 * report directory. Probes go to HEAD /recruiter/bootstrap (no scope, no quota by assumption).
 * Without a key hook every check is skipped with the reason.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { endpointById } from '../contract/lookup.ts';
import { checkResult, skipped } from '../verdicts/support/result.ts';
import type { CheckId, CheckResult, Finding } from '../catalogue/types.ts';
import type { RevocationEvidence } from '../verdicts/support/revocation-evidence.ts';
import { revokeLatencyVerdict } from '../verdicts/revoke-latency.ts';
import { revokeStickyVerdict } from '../verdicts/revoke-sticky.ts';
import { authRevokedVerdict } from '../verdicts/auth-revoked.ts';
import { rotationVerdict } from '../verdicts/rotation.ts';
import { revocationCsv } from './revocation-csv.ts';
import type { TrialTiming } from './revocation-probe.ts';
import { probingLoadNotes, runRevocationTrials } from './revocation-trials.ts';
import type { RevocationShape } from '../scenario/define.ts';
import type { Task } from './context.ts';
import type { OrgHandle } from './handles.ts';
import { requestFor } from './requests.ts';

export const REVOCATION_CHECKS = ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'] as const satisfies readonly CheckId[];

const VERDICTS: Readonly<Record<(typeof REVOCATION_CHECKS)[number], (e: RevocationEvidence) => Finding>> = {
  'REVOKE-LATENCY': revokeLatencyVerdict,
  'REVOKE-STICKY': revokeStickyVerdict,
  'AUTH-REVOKED': authRevokedVerdict,
  ROTATION: rotationVerdict,
};

/** Timing beyond the scenario's shape; the defaults (here only) suit any deployment. */
export interface RevocationTaskOptions {
  /** Probing stops this long after the revoke call at the latest. Default SLA + settle + 5 s. */
  readonly maxMs?: number;
  /** Default 2 s. */
  readonly confirmMs?: number;
  /** Default 60 s: hooks time out first (10 s by default); this only guarantees no hang. */
  readonly hookGuardMs?: number;
}

export const NO_HOOK_REASON =
  'no way to provision and revoke keys: use the embedded target (admin API), or give revocation.hook (http, command or disposable keys) in the config';

export function revocationTiming(shape: RevocationShape, slaMs: number, options: RevocationTaskOptions = {}): TrialTiming {
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

export function revocationTask(org: OrgHandle, shape: RevocationShape, options: RevocationTaskOptions = {}): Task {
  const name = `revocation ${org.label}`;
  return {
    name,
    tier: org.tier,
    org: org.label,
    consumes: 'none',
    run: async (context) => {
      context.emit({ type: 'task-start', task: name });
      const startedWall = context.io.clock.now();
      const where = { tier: org.tier, org: org.label, startedWall };
      const hook = context.keyHook;
      if (!hook) return REVOCATION_CHECKS.map((id) => skipped(id, NO_HOOK_REASON, where));

      const { contract, prober } = context;
      const started = prober.now();
      const rejectStatus = contract.statuses.unauthenticated;
      const head = endpointById(contract, 'bootstrap-head');
      const timing = revocationTiming(shape, contract.revocationSlaMs, options);
      const outcome = await runRevocationTrials({
        prober,
        hook,
        org,
        trials: shape.trials,
        timing,
        request: (key) => requestFor(head, key),
        rejectStatus,
        provisionTimeoutMs: timing.revokeTimeoutMs,
        wallNow: () => context.io.clock.now(),
        signal: context.signal,
      });
      const tier = contract.tiers[org.tier];
      const evidence: RevocationEvidence = {
        runs: outcome.runs,
        plannedTrials: shape.trials,
        problems: outcome.problems,
        slaMs: contract.revocationSlaMs,
        rejectStatus,
        methodNotes: probingLoadNotes({
          edges: prober.edges.length,
          timing,
          windowMs: context.windowMs,
          readQuota: tier.read.value,
          concurrencyCap: tier.concurrency.value,
          tier: org.tier,
        }),
      };
      const rateLimited = outcome.runs.reduce((n, run) => n + run.probes.filter((p) => p.status === contract.statuses.rateLimited).length, 0);
      if (rateLimited > 0) {
        context.emit({
          type: 'warning',
          message: `revocation probing on ${org.label}: ${rateLimited} probes answered 429 and are unusable; HEAD /recruiter/bootstrap may count against the quota here (assumption head-bootstrap-free), or ${prober.edges.length} probes at once hit the concurrency cap`,
        });
      }
      const reportDir = context.reportDir ?? null;
      if (reportDir !== null) await writeFile(join(reportDir, 'revocation.csv'), revocationCsv(outcome.runs, rejectStatus));
      const durationMs = prober.now() - started;
      return REVOCATION_CHECKS.map((id): CheckResult => checkResult(id, VERDICTS[id](evidence), { ...where, durationMs }));
    },
  };
}

