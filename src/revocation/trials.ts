/**
 * Revocation trials on rotation chains (§5.8). Within a chain, a trial revokes its key after
 * provisioning a successor, and the chain's next trial revokes that successor: every successor is
 * proven on every edge twice (ROTATION). `chains` chains run at once, each one trial at a time,
 * taking the next trial when it finishes one; trials are numbered 1..N as they start. N trials on K
 * chains need N + K keys (which matters for a list of disposable keys). The first chain runs alone
 * until a revoke call has returned: a broken hook costs one trial's keys, not every chain's. Each
 * chain probes on its own phase of the slot grid, so the trials at once take turns on the edges.
 * Records only; verdicts are src/verdicts/revoke-*.ts and rotation.ts, and src/checks/auth-revoked.ts.
 */
import type { HttpProber, ProbeRequest } from '../measure/http-prober.ts';
import type { KeyHandle, KeyHook, OrgHandle } from '../contract/handles.ts';
import { redactKey } from '../contract/keys.ts';
import type { RevocationProbeRun } from '../measure/revocation-records.ts';
import { bounded } from '../util/bounded.ts';
import { runTrial, type TrialOptions, type TrialTiming } from './probe.ts';
import { messageOf } from '../util/errors.ts';
import { countOf } from '../verdicts/support/finding.ts';
import type { RevocationProblem } from '../verdicts/support/revocation-evidence.ts';

export interface TrialsOptions {
  readonly prober: HttpProber;
  readonly hook: KeyHook;
  readonly org: OrgHandle;
  readonly trials: number;
  /** Rotation chains at once (trialsAtOnce), ≥ 1. */
  readonly chains: number;
  readonly timing: TrialTiming;
  /** The most probes each trial keeps in flight to one edge (inFlightCeiling). */
  readonly inFlightCeiling: number;
  readonly request: (key: string) => ProbeRequest;
  readonly rejectStatus: number;
  /** Guard on each provisioning call, ms. */
  readonly provisionTimeoutMs: number;
  readonly wallNow: () => number;
  readonly signal: AbortSignal;
  /** Called after each trial, with how many have ended (progress). */
  readonly onTrial?: (run: RevocationProbeRun, done: number) => void;
}

export interface TrialsOutcome {
  /** In trial order. */
  readonly runs: readonly RevocationProbeRun[];
  /** Why fewer trials ran than planned, or keys were left behind: reasons of every verdict. */
  readonly problems: readonly RevocationProblem[];
}

/** The first hook failure: no trial starts after it. */
type Halt = { readonly hook: 'provision'; readonly error: string } | { readonly hook: 'revoke' };

/** What the chains share: the options, the runs, the keys left live, and the count of trials. */
interface Chains {
  readonly o: TrialsOptions;
  readonly runs: RevocationProbeRun[];
  /** Keys provisioned and not (known to be) revoked: revoked at the end, unmeasured. */
  readonly live: Set<KeyHandle>;
  /** Trials a chain has taken on (provisioning or running), and trials started (their numbers). */
  taken: number;
  started: number;
  // Set inside the chains: typed wide, so the checks after them are not narrowed to null.
  halt: Halt | null;
  /** Called when a revoke call has returned: the other chains may start. */
  readonly hookWorks: () => void;
  readonly hookProven: Promise<void>;
}

/** The chains' shared state before any of them starts. */
function newChains(o: TrialsOptions): Chains {
  let hookWorks = () => {};
  const hookProven = new Promise<void>((resolve) => (hookWorks = resolve));
  return { o, runs: [], live: new Set<KeyHandle>(), taken: 0, started: 0, halt: null, hookWorks, hookProven };
}

/** Provisions one key for the organization, bounded. */
function provisionKey(o: TrialsOptions): Promise<KeyHandle> {
  return bounded(
    o.hook.provisionKey(o.org, o.org.primary.scopes),
    o.provisionTimeoutMs,
    () => new Error(`the provisioning hook did not return within ${o.provisionTimeoutMs} ms`),
  );
}

/** The options of trial `trial` on chain `index`, which probes on its own phase of the slot grid. */
function chainTrialOptions(
  c: Chains,
  index: number,
  keys: Pick<TrialOptions, 'trial' | 'key' | 'successor' | 'successorError'>,
): TrialOptions {
  const { o } = c;
  return {
    prober: o.prober,
    hook: o.hook,
    trial: keys.trial,
    key: keys.key,
    successor: keys.successor,
    successorError: keys.successorError,
    timing: o.timing,
    request: o.request,
    rejectStatus: o.rejectStatus,
    tags: { tier: o.org.tier, org: o.org.label },
    wallNow: o.wallNow,
    signal: o.signal,
    onRevoked: c.hookWorks,
    inFlightCeiling: o.inFlightCeiling,
    ...(o.chains > 1 ? { slotPhaseMs: (index * o.timing.intervalMs) / o.chains } : {}),
  };
}

/** Chain `index` probes on its own phase of the slot grid. */
async function runChain(c: Chains, index: number): Promise<void> {
  const { o } = c;
  let current: KeyHandle | null = null;
  while (c.taken < o.trials && c.halt === null && !o.signal.aborted) {
    c.taken += 1;
    if (current === null) {
      try {
        current = await provisionKey(o);
        c.live.add(current);
      } catch (error) {
        c.taken -= 1;
        c.halt ??= { hook: 'provision', error: messageOf(error) };
        return;
      }
    }
    let successor: KeyHandle | null = null;
    let successorError: string | null = null;
    try {
      successor = await provisionKey(o);
      c.live.add(successor);
    } catch (error) {
      successorError = messageOf(error);
    }
    // Another chain's hook failed, or Ctrl-C, while this one provisioned: its keys stay live.
    if (c.halt !== null || o.signal.aborted) {
      c.taken -= 1;
      return;
    }
    const trial = ++c.started;
    const key: KeyHandle = current;
    const run = await runTrial(chainTrialOptions(c, index, { trial, key, successor, successorError }));
    c.runs.push(run);
    o.onTrial?.(run, c.runs.length);
    if (run.revokeStartedAt !== null && run.stoppedBy !== 'revoke-failed') c.live.delete(key);
    if (run.stoppedBy === 'revoke-failed') {
      c.halt ??= { hook: 'revoke' };
      return;
    }
    current = successor;
  }
}

/** Runs every chain: the first alone until a revoke call has returned (or it ended), then the others. */
async function runChains(c: Chains): Promise<void> {
  const first = runChain(c, 0);
  const others = Array.from({ length: c.o.chains - 1 }, async (_, i) => {
    await Promise.race([c.hookProven, first]);
    await runChain(c, i + 1);
  });
  await Promise.all([first, ...others]);
}

/**
 * Why fewer trials ran than planned, from the first hook failure: a failed provisioning, with its
 * error. A failed revoke call is the reason of its own trial (revoke-hook-failed), and the trials not
 * run after it are counted with the others (trials-not-run).
 */
function haltProblems(c: Chains): RevocationProblem[] {
  return c.halt?.hook === 'provision' ? [{ code: 'provisioning-failed', error: c.halt.error }] : [];
}

/** Revokes every key still live, unmeasured, best effort; each failure becomes a problem. */
async function revokeLiveKeys(c: Chains, problems: RevocationProblem[]): Promise<void> {
  const { o } = c;
  for (const key of c.live) {
    try {
      await bounded(
        o.hook.revokeKey(key),
        o.timing.revokeTimeoutMs,
        () => new Error(`the revoke hook did not return within ${o.timing.revokeTimeoutMs} ms`),
      );
    } catch (error) {
      problems.push({ code: 'cleanup-revoke-failed', key: redactKey(key.key), error: messageOf(error) });
    }
  }
}

/**
 * Opens a connection per chain to every edge before the first trial: each chain's first probes (its
 * key confirmed on every edge) then go on one already open. A probe that opens its connection times
 * handshakes, not a round trip, and each trial is paced by the round trips its confirmation measured:
 * chains starting together on new connections over HTTPS would find them several times longer.
 */
async function openChainConnections(o: TrialsOptions): Promise<void> {
  if (o.chains > 1) await Promise.all(o.prober.edges.map((edge) => o.prober.warm(edge, o.chains)));
}

export async function runRevocationTrials(o: TrialsOptions): Promise<TrialsOutcome> {
  const c = newChains(o);
  await openChainConnections(o);
  await runChains(c);
  const runs = c.runs;
  runs.sort((a, b) => a.trial - b.trial);

  const problems = haltProblems(c);
  if (c.halt?.hook === 'revoke' || o.signal.aborted) {
    const stoppedBy = c.halt?.hook === 'revoke' ? 'revoke-hook-failed' : 'interrupted';
    if (c.live.size > 0)
      problems.push({ code: 'keys-left-live', keys: [...c.live].map((k) => redactKey(k.key)), stoppedBy });
    return { runs, problems };
  }
  // Clean up: each chain's last successor, and any key the trials never revoked. Unmeasured, best effort.
  await revokeLiveKeys(c, problems);
  return { runs, problems };
}

/**
 * Probing load against the tier's figures, as notes: probes go to HEAD /recruiter/bootstrap, which
 * the `head-bootstrap-free` assumption says consumes no quota; were it counted, this says whether the
 * organization's read quota could carry even the shortest trials, `chains` at once. One probe in
 * flight per edge and trial must fit under the concurrency cap. Pure.
 */
export function probingLoadNotes(input: {
  readonly edges: number;
  /** Trials at once. */
  readonly chains: number;
  readonly timing: TrialTiming;
  readonly windowMs: number;
  readonly readQuota: number;
  readonly concurrencyCap: number;
  readonly tier: string;
}): string[] {
  const { edges, chains, timing } = input;
  const perSecond = Math.round((chains * edges * 1000) / timing.intervalMs);
  const shortest = Math.ceil((edges * (timing.leadMs + timing.settleMs)) / timing.intervalMs);
  const longest = Math.ceil((edges * (timing.leadMs + timing.maxMs)) / timing.intervalMs);
  const atOnce = chains === 1 ? 'one trial at a time' : `${chains} trials at once`;
  const notes = [
    `probes go to HEAD /recruiter/bootstrap, assumed to consume no quota (head-bootstrap-free): about ${perSecond} per second (${atOnce}, each probing ${edges} edges every ${timing.intervalMs} ms), ${shortest} to ${longest} per trial`,
  ];
  if (chains * shortest > input.readQuota) {
    notes.push(
      `were HEAD /recruiter/bootstrap counted, the ${input.tier} read quota (${input.readQuota} per ${input.windowMs / 1000} s window) could not carry even ${chains === 1 ? 'the shortest trial' : `${chains} of the shortest trials at once`}: its 429s would be unusable probes and the verdicts inconclusive`,
    );
  }
  const inFlight = chains * edges;
  if (inFlight > input.concurrencyCap) {
    notes.push(
      `${countOf(inFlight, 'probe')} in flight at once (${atOnce}, one per edge) exceed the ${input.tier} concurrency cap of ${input.concurrencyCap}: capped probes would be unusable`,
    );
  }
  return notes;
}
