/**
 * A series of revocation trials as a rotation chain (§5.8): trial n revokes key n after provisioning
 * key n+1 as its successor, and trial n+1 revokes that successor. So N trials need N+1 keys (which
 * matters for a list of disposable keys), and every successor is proven on every edge twice.
 * Records only; verdicts are src/verdicts/revoke-*.ts, auth-revoked.ts and rotation.ts.
 */
import type { HttpProber, ProbeRequest } from '../measure/http-prober.ts';
import type { KeyHandle, KeyHook, OrgHandle } from './handles.ts';
import { redactKey } from '../contract/keys.ts';
import type { RevocationProbeRun } from '../measure/revocation-records.ts';
import { bounded } from '../util/bounded.ts';
import { runTrial, type TrialTiming } from './revocation-probe.ts';
import { messageOf } from '../util/errors.ts';

export interface TrialsOptions {
  readonly prober: HttpProber;
  readonly hook: KeyHook;
  readonly org: OrgHandle;
  readonly trials: number;
  readonly timing: TrialTiming;
  readonly request: (key: string) => ProbeRequest;
  readonly rejectStatus: number;
  /** Guard on each provisioning call, ms. */
  readonly provisionTimeoutMs: number;
  readonly wallNow: () => number;
  readonly signal: AbortSignal;
  /** Called after each trial (progress). */
  readonly onTrial?: (run: RevocationProbeRun) => void;
}

export interface TrialsOutcome {
  readonly runs: readonly RevocationProbeRun[];
  /** Why fewer trials ran than planned, or keys were left behind: for every verdict's notes. */
  readonly problems: readonly string[];
}

export async function runRevocationTrials(o: TrialsOptions): Promise<TrialsOutcome> {
  const runs: RevocationProbeRun[] = [];
  const problems: string[] = [];
  const provision = () => bounded(o.hook.provisionKey(o.org, o.org.primary.scopes), o.provisionTimeoutMs, () => new Error(`the provisioning hook did not return within ${o.provisionTimeoutMs} ms`));
  /** Keys provisioned and not (known to be) revoked: revoked at the end, unmeasured. */
  const live = new Set<KeyHandle>();
  let current: KeyHandle | null = null;
  let hookBroken = false;
  for (let trial = 1; trial <= o.trials && !o.signal.aborted; trial++) {
    if (current === null) {
      try {
        current = await provision();
        live.add(current);
      } catch (error) {
        problems.push(`trial ${trial}: provisioning a key failed: ${messageOf(error)}; ${o.trials - trial + 1} of ${o.trials} trials not run`);
        break;
      }
    }
    let successor: KeyHandle | null = null;
    let successorError: string | null = null;
    try {
      successor = await provision();
      live.add(successor);
    } catch (error) {
      successorError = messageOf(error);
    }
    const run = await runTrial({
      prober: o.prober,
      hook: o.hook,
      trial,
      key: current,
      successor,
      successorError,
      timing: o.timing,
      request: o.request,
      rejectStatus: o.rejectStatus,
      tags: { tier: o.org.tier, org: o.org.label },
      wallNow: o.wallNow,
      signal: o.signal,
    });
    runs.push(run);
    o.onTrial?.(run);
    if (run.revokeStartedAt !== null && run.stoppedBy !== 'revoke-failed') live.delete(current);
    if (run.stoppedBy === 'revoke-failed') {
      hookBroken = true;
      if (trial < o.trials) problems.push(`the revoke hook failed in trial ${trial}: the remaining ${o.trials - trial} trials were not run`);
      break;
    }
    current = successor;
  }
  if (hookBroken || o.signal.aborted) {
    const why = hookBroken ? 'the revoke hook failed' : 'the run was interrupted';
    if (live.size > 0) problems.push(`keys possibly still live (${why}): ${[...live].map((k) => redactKey(k.key)).join(', ')}`);
    return { runs, problems };
  }
  // Clean up: the last successor, and any key the trials never revoked. Unmeasured, best effort.
  for (const key of live) {
    try {
      await bounded(o.hook.revokeKey(key), o.timing.revokeTimeoutMs, () => new Error(`the revoke hook did not return within ${o.timing.revokeTimeoutMs} ms`));
    } catch (error) {
      problems.push(`cleanup: revoking ${redactKey(key.key)} failed: ${messageOf(error)}`);
    }
  }
  return { runs, problems };
}

/**
 * Probing load against the tier's figures, as notes: probes go to HEAD /recruiter/bootstrap, which
 * the `head-bootstrap-free` assumption says consumes no quota; were it counted, this says whether the
 * tier could carry even the shortest trial. One probe in flight per edge must fit under the
 * concurrency cap. Pure.
 */
export function probingLoadNotes(input: {
  readonly edges: number;
  readonly timing: TrialTiming;
  readonly windowMs: number;
  readonly readQuota: number;
  readonly concurrencyCap: number;
  readonly tier: string;
}): string[] {
  const { edges, timing } = input;
  const perSecond = Math.round((edges * 1000) / timing.intervalMs);
  const shortest = Math.ceil((edges * (timing.leadMs + timing.settleMs)) / timing.intervalMs);
  const longest = Math.ceil((edges * (timing.leadMs + timing.maxMs)) / timing.intervalMs);
  const notes = [
    `probes go to HEAD /recruiter/bootstrap, assumed to consume no quota (head-bootstrap-free): about ${perSecond} per second (${edges} edges every ${timing.intervalMs} ms), ${shortest} to ${longest} per trial`,
  ];
  if (shortest > input.readQuota) {
    notes.push(
      `were HEAD /recruiter/bootstrap counted, the ${input.tier} read quota (${input.readQuota} per ${input.windowMs / 1000} s window) could not carry even the shortest trial: its 429s would be unusable probes and the verdicts inconclusive`,
    );
  }
  if (edges > input.concurrencyCap) {
    notes.push(`${edges} probes in flight at once exceed the ${input.tier} concurrency cap of ${input.concurrencyCap}: capped probes would be unusable`);
  }
  return notes;
}
