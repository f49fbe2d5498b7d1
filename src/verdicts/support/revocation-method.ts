/**
 * How the revocation trials measured, in the words REVOKE-LATENCY carries in its notes: where the SLA
 * clock starts (and what the revoke call's own time does to the bounds), and how the trials paced
 * their probes where more than one was in flight per edge. Pure.
 */
import type { RevocationProbeRun } from '../../measure/revocation-records.ts';
import { countOf, listSome } from './finding.ts';
import { ms } from '../../util/duration.ts';

/** What held the trials at once below what was asked, and how many it allows. */
export type ParallelLimit =
  /** Every trial keeps one probe in flight per edge, and all of them fit under the organization's cap. */
  | { readonly by: 'concurrency-cap'; readonly allows: number; readonly concurrencyCap: number; readonly edges: number }
  /** No trial's probe may wait for a connection another trial holds. */
  | { readonly by: 'connections-per-edge'; readonly allows: number; readonly connectionsPerEdge: number }
  /** N trials on K rotation chains need N + K keys. */
  | { readonly by: 'key-capacity'; readonly allows: number; readonly keys: number; readonly trials: number };

/** How many trials ran at once (rotation chains), of how many asked for, and what held them to it. */
export interface TrialsAtOnce {
  /** Rotation chains, each running one trial at a time: ≥ 1. */
  readonly chains: number;
  /** What the shape asked for, never more than the trials. */
  readonly asked: number;
  /** What allowed fewer than asked; empty when as many as asked ran. */
  readonly limits: readonly ParallelLimit[];
}

function limitText(limit: ParallelLimit): string {
  switch (limit.by) {
    case 'concurrency-cap':
      return `the organization's concurrency cap of ${limit.concurrencyCap} must hold every trial's ${limit.edges} probes in flight`;
    case 'connections-per-edge':
      return `the prober holds ${limit.connectionsPerEdge} connections per edge, and no trial's probe may wait for another's`;
    case 'key-capacity':
      return `the hook has ${limit.keys} keys, and ${limit.trials} trials on K rotation chains need ${limit.trials} + K`;
  }
}

/** Why fewer trials ran at once than asked, as REVOKE-LATENCY's note; none when as many as asked ran. */
export function trialsAtOnceNotes(parallel: TrialsAtOnce): string[] {
  if (parallel.chains >= parallel.asked) return [];
  return [
    `${countOf(parallel.chains, 'trial')} at once, not ${parallel.asked}: ${parallel.limits.map(limitText).join('; ')}`,
  ];
}

/** The first words of REVOKE-LATENCY's note on where the SLA clock starts (the SLA evidence page shows it). */
export const CLOCK_NOTE_START = 'Where the clock starts: ';

/** "every trial", "trials 2, 5" */
function trialsNamed(runs: readonly RevocationProbeRun[], of: number): string {
  if (runs.length === of) return 'every trial';
  return `${runs.length === 1 ? 'trial' : 'trials'} ${listSome(
    runs.map((r) => String(r.trial)),
    5,
    ', ',
  )}`;
}

/**
 * Where the SLA clock starts, and what that does to the bounds: from the revoke call's send, on a
 * connection opened beforehand where the hook has one; the server takes the call within its duration.
 */
export function clockNote(judged: readonly RevocationProbeRun[], slaMs: number): string {
  const callMs = Math.max(...judged.map((r) => r.revokeReturnedAt! - r.revokeStartedAt!));
  const state = (r: RevocationProbeRun) => r.revokeConnection?.state;
  const none = judged.filter((r) => state(r) === 'none');
  // A run recorded before trials opened the call's connection says nothing of it: not known to be open.
  const cold = judged.filter((r) => state(r) !== 'warm' && state(r) !== 'none');
  const why = cold.map((r) => (r.revokeConnection?.state === 'cold' ? r.revokeConnection.why : 'not recorded'))[0];
  const open = none.length === 0 && cold.length === 0 ? ', on a connection already open (no handshake inside it)' : '';
  return (
    `${CLOCK_NOTE_START}every bound counts from when the revoke call was sent${open}. The revocation cannot take effect before the server has received the call, so every bound is later than the true latency by at most the call's way there, which is shorter than the whole call (up to ${ms(callMs)} here): an upper bound under ${ms(slaMs)} shows the SLA kept, and a lower bound shows it missed only when past ${ms(slaMs)} by the call's whole time too` +
    (none.length > 0
      ? `; in ${trialsNamed(none, judged.length)} the hook had no connection to open beforehand (a command starts afresh each time), so whatever it starts and opens is inside the call`
      : '') +
    (cold.length > 0
      ? `; in ${trialsNamed(cold, judged.length)} the call's connection could not be opened beforehand (${why}), so its handshake may be inside the call`
      : '')
  );
}

/**
 * How the judged trials paced their probes, where more than one was in flight per edge or the round
 * trip called for more than the trial could keep: nothing to say on loopback, one in flight.
 */
export function pacingNotes(judged: readonly RevocationProbeRun[]): string[] {
  // A run recorded before trials paced their probes has no pacing: one probe in flight per edge.
  const paced = judged.flatMap((r) => r.pacing ?? []);
  const most = Math.max(1, ...paced.map((p) => p.inFlight));
  const held = paced.filter((p) => p.asked > p.inFlight);
  if (most === 1 && held.length === 0) return [];
  const slowest = Math.max(...paced.map((p) => p.slowRoundTripMs));
  const interval = judged[0]?.intervalMs ?? 0;
  const holding =
    held.length === 0
      ? ''
      : `; where more were called for (up to ${Math.max(...held.map((p) => p.asked))}), the trials' share of the probes in flight per edge, the concurrency cap and the prober's connections held each to ${Math.min(...held.map((p) => p.inFlight))}, spread out to a probe every ${ms(Math.max(...held.map((p) => p.everyMs)))} at most`;
  return [
    `every edge probed every ${ms(interval)} whatever the round trip: up to ${countOf(most, 'probe')} in flight per edge and trial, as the round trips measured to it called for (a slow one: up to ${ms(slowest)})${holding}; their answers may cross, and the bounds allow for it (a lower bound counts the admissions sent before the first rejection was answered)`,
  ];
}
