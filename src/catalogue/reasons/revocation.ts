/**
 * Reasons of the revocation checks (REVOKE-LATENCY, REVOKE-STICKY, AUTH-REVOKED, ROTATION): what
 * the trials did not cover, and what an edge did with the revoked key or its successor. Times are
 * ms from the revoke call's send.
 */
import { ms } from '../../util/duration.ts';
import { reason } from './define.ts';

/** "edge-1", "edge-1 (node b)"; an edge seen from a vantage ("far: edge-1") is named by its own part. */
export function edgeName(edge: string, node: string | null): string {
  return node === null || node === edge || edge.endsWith(`: ${node}`) ? edge : `${edge} (node ${node})`;
}

/** When a successor key was probed: before the old key's revoke call, or after the revocation settled. */
export type RotationPhase = 'before-revoke' | 'after-revoke';
const WHEN: Readonly<Record<RotationPhase, string>> = {
  'before-revoke': 'before the old key was revoked',
  'after-revoke': 'after the old key was revoked',
};

/** A share as a target states it: "95 %", "99.9 %". */
const percent = (share: number) => `${Number((share * 100).toFixed(4))} %`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

type EdgeOfTrial = { edge: string; trial: number };
type Probe = EdgeOfTrial & { probeId: number };

const COVERAGE_REASONS = {
  'no-trial-ran': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no trial ran',
    means: 'No revocation trial ran, so nothing was measured.',
    causes: ['the first key could not be provisioned', 'the run was stopped before the first trial'],
    change: [
      'read the other reasons (a failed provisioning names its error); fix the call of `revocation.hook` and run again',
    ],
  }),
  'trials-not-run': reason<{ ran: number; planned: number }>()({
    verdicts: ['inconclusive'],
    text: ({ ran, planned }) => `${ran} of ${plural(planned, 'planned trial')} ran`,
    means: 'Fewer trials ran than planned; what the missing ones would have shown is not known.',
    causes: ['provisioning a key failed part way (a quota of keys, a list of disposable keys used up)'],
    change: [
      'give `revocation.hook` room for every trial (more disposable keys, a larger key quota)',
      'fewer trials: `--revocation-trials`, config `revocation.trials`',
    ],
  }),
  'revoke-hook-failed': reason<{ trial: number; hookError: string | null }>()({
    verdicts: ['inconclusive'],
    text: ({ trial, hookError }) =>
      `trial ${trial}: the revoke hook failed${hookError === null ? '' : `: ${hookError}`}`,
    means: 'The revoke call of a trial failed or timed out, so when the revocation began is not known.',
    causes: ['the hook is misconfigured or lacks the right to revoke', 'the revoke call took longer than its timeout'],
    change: ['fix the revoke call of `revocation.hook` (its output is in the figures), or raise its `timeout`'],
  }),
  'revoke-call-unreturned': reason<{ trial: number }>()({
    verdicts: ['inconclusive'],
    text: ({ trial }) => `trial ${trial}: the revoke call never returned, so its bounds have no start`,
    means: 'A trial’s bounds count from the revoke call and need its return; this one has none recorded.',
    causes: ['the revoke call was still running when the trial ended'],
    change: ['raise the `timeout` of `revocation.hook`, or make the revoke call return sooner'],
  }),
  'key-not-confirmed': reason<{ trial: number; edges: readonly string[] }>()({
    verdicts: ['inconclusive'],
    text: ({ trial, edges }) =>
      `trial ${trial}: the key was not admitted on ${edges.join(', ')} before revoking, so it was not revoked`,
    means: 'A new key must work on every edge before its revocation is timed; this one did not, and was left alone.',
    causes: ['new keys take longer to reach the edges than the confirmation waits', 'the edge rejects the new key'],
    change: ['check that the keys `revocation.hook` provisions work on every edge of config `edges`'],
  }),
  'provisioning-failed': reason<{ error: string }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ error }) => `provisioning a key failed: ${error}; no trial started after it`,
    means: 'The provisioning call of the key hook failed, and the trials stopped there: the later ones never ran.',
    causes: [
      'a quota of keys reached, or a list of disposable keys used up',
      'the hook lacks the right to create keys, or took longer than its timeout',
    ],
    change: [
      'fix the provisioning call of `revocation.hook` (its error is in the figures), or raise its `timeout`',
      'give `revocation.hook` room for every trial (more disposable keys, a larger key quota)',
    ],
  }),
  'keys-left-live': reason<{ keys: readonly string[]; stoppedBy: 'revoke-hook-failed' | 'interrupted' }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ keys, stoppedBy }) =>
      `keys possibly still live (${stoppedBy === 'interrupted' ? 'the run was interrupted' : 'the revoke hook failed'}): ${keys.join(', ')}`,
    means:
      'The trials stopped before their clean-up, so keys they provisioned (named, redacted) may still work: revoke them by hand.',
    causes: ['a revoke call that failed, which stops the trials', 'Ctrl-C during the trials'],
    change: [
      'revoke the named keys with the deployment’s own tools',
      'fix the revoke call of `revocation.hook`, or raise its `timeout`',
    ],
  }),
  'cleanup-revoke-failed': reason<{ key: string; error: string }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ key, error }) => `cleanup: revoking ${key} failed: ${error}`,
    means:
      'After the trials, revoking a key they left live (a successor, or a key no trial revoked) failed: it may still work.',
    causes: ['the hook lacks the right to revoke that key', 'the revoke call took longer than its timeout'],
    change: [
      'revoke the named key with the deployment’s own tools',
      'fix the revoke call of `revocation.hook` (its error is in the figures), or raise its `timeout`',
    ],
  }),
} as const;

const LATENCY_REASONS = {
  'still-admitted-past-sla': reason<
    Probe & {
      node: string | null;
      admittedMs: number;
      afterReturnMs: number;
      rejectedByMs: number | null;
      slaMs: number;
    }
  >()({
    verdicts: ['fail'],
    text: ({ edge, node, trial, probeId, admittedMs, afterReturnMs, rejectedByMs, slaMs }) =>
      `${edgeName(edge, node)} still admitted the key ${ms(admittedMs)} after the revoke call in trial ${trial} (#${probeId}, ${ms(afterReturnMs)} after it returned), past ${ms(slaMs)}` +
      (rejectedByMs === null ? ', and never rejected it' : `, first rejected it by ${ms(rejectedByMs)}`),
    means:
      'An edge admitted the revoked key later than the SLA allows, counted from when the server had surely received the revoke call.',
    causes: ['the edge caches keys longer than the SLA', 'one node behind the edge address revokes late'],
    change: ['shorten the key cache or the revocation fan-out of the deployment; nothing in tiergate widens the SLA'],
  }),
  'no-rejection-seen': reason<EdgeOfTrial & { node: string | null; lastAdmittedMs: number; unusableProbes: number }>()({
    verdicts: ['inconclusive'],
    text: ({ edge, node, trial, lastAdmittedMs, unusableProbes }) =>
      `${edgeName(edge, node)} in trial ${trial}: no rejection seen (${plural(unusableProbes, 'unusable probe')}; last admitted at ${ms(lastAdmittedMs)})`,
    means: 'The edge never answered a probe with the rejection status, so when it began rejecting is not bracketed.',
    causes: [
      'probes answered 429 (a quota or cap of the revocation organization) or not at all',
      'probing stopped before the edge rejected',
    ],
    change: [
      'give the revocation organization limits its probing fits (config `orgs[].limits`)',
      'probe less often: config `revocation.interval`',
    ],
  }),
  'unusable-probes': reason<{ probes: number; rateLimited: number }>()({
    verdicts: ['pass', 'inconclusive', 'fail'],
    text: ({ probes, rateLimited }) =>
      `${plural(probes, 'unusable probe')} (${rateLimited} answered 429): they narrow no bracket`,
    means:
      'Probes answered 429, another unexpected status, or not at all say nothing of the key: the brackets are drawn from the other probes, and are wider for it.',
    causes: [
      'HEAD /recruiter/bootstrap counted against the quota here (assumption head-bootstrap-free), or the probes in flight hit the concurrency cap',
      'a lossy network, or a `timeout` shorter than the edge answers in',
    ],
    change: [
      'give the revocation organization limits its probing fits (config `orgs[].limits`)',
      'probe less often (config `revocation.interval`), or fewer trials at once (`revocation.parallel`)',
    ],
  }),
  'bracket-straddles-sla': reason<
    EdgeOfTrial & { node: string | null; lowerMs: number; upperMs: number; slaMs: number }
  >()({
    verdicts: ['inconclusive'],
    text: ({ edge, node, trial, lowerMs, upperMs, slaMs }) =>
      `${edgeName(edge, node)} in trial ${trial}: rejected between ${ms(lowerMs)} and ${ms(upperMs)}, a bracket straddling the ${ms(slaMs)} SLA`,
    means: 'The edge began rejecting somewhere in a bracket that holds the SLA: within it or not cannot be told.',
    causes: ['a revocation taking about the SLA', 'a wide bracket: long round trips from a distant vantage'],
    change: [
      'probe from nearer the edges (a vantage point beside them)',
      'probe more often: config `revocation.interval`',
    ],
  }),
  'admitted-within-call-time': reason<
    EdgeOfTrial & { node: string | null; admittedMs: number; revokeCallMs: number; upperMs: number; slaMs: number }
  >()({
    verdicts: ['inconclusive'],
    text: ({ edge, node, trial, admittedMs, revokeCallMs, upperMs, slaMs }) =>
      `${edgeName(edge, node)} in trial ${trial}: still admitted the key ${ms(admittedMs)} after the revoke call was sent, but the call took ${ms(revokeCallMs)} and the server may have received it as late: within ${ms(slaMs)} of that is not ruled out (rejected by ${ms(upperMs)})`,
    means:
      'The edge admitted the key past the SLA from the call’s send, but the server may have received the call that much later.',
    causes: ['a slow revoke call: a distant revocation API, or a hook that starts a process'],
    change: ['make the revoke call faster: an `http` hook (its connection opened beforehand) near the revocation API'],
  }),
  'confidence-target-not-reached': reason<{
    share: number;
    level: number;
    slaMs: number;
    lowerBound: number;
    trialsNeeded: number;
  }>()({
    verdicts: ['inconclusive'],
    text: ({ share, level, slaMs, lowerBound, trialsNeeded }) =>
      `the target ${percent(share)} of revocations within ${ms(slaMs)}, at ${percent(level)} confidence: not reached (the bound is ${(lowerBound * 100).toFixed(2)} %; proving it takes ${trialsNeeded} trials, none slower)`,
    means: 'Every trial was within the SLA, but too few were judged to prove the share asked for.',
    causes: ['trials cut short (a failed hook, Ctrl-C)', 'fewer trials than the target takes'],
    change: ['run the trials the target takes: `--revocation-trials`, or ask less: `--revocation-confidence`'],
  }),
  'vantage-shares-no-server': reason<{ vantage: string }>()({
    verdicts: ['inconclusive'],
    text: ({ vantage }) =>
      `vantage ${vantage}: it reached no server (edge, and node where named) with a Date header that the run reached too, so its clock cannot be set against the run’s`,
    means: 'A vantage point’s clock is placed through servers both it and the run reached; it shared none.',
    causes: ['the vantage probed other edges than the run', 'the servers send no Date header'],
    change: ['probe the same edges from the vantage as the run (its `tiergate k6 export --revocation` script)'],
  }),
  'vantage-dates-disagree': reason<{ vantage: string; servers: readonly string[] }>()({
    verdicts: ['inconclusive'],
    text: ({ vantage, servers }) =>
      `vantage ${vantage}: the Date headers of ${servers.join(', ')} disagree with themselves over the run (a clock stepped), so its clock cannot be placed`,
    means: 'Every server the vantage shared with the run stamped Date headers no steady clock gives.',
    causes: ['a server clock stepped during the run', 'a Date header cached longer than allowed'],
    change: ['allow for a longer Date lag: `tiergate k6 ingest --date-lag`'],
  }),
  'vantage-placements-disjoint': reason<{ vantage: string; servers: readonly string[] }>()({
    verdicts: ['inconclusive'],
    text: ({ vantage, servers }) =>
      `vantage ${vantage}: the servers ${servers.join(', ')} place its clock in intervals that do not meet (a clock stepped, or Date lags more than allowed)`,
    means: 'The servers shared with the run place the vantage’s clock in different places.',
    causes: ['server clocks that disagree with each other', 'a Date header cached longer than allowed'],
    change: ['allow for a longer Date lag: `tiergate k6 ingest --date-lag`'],
  }),
} as const;

const STICKY_REASONS = {
  'readmitted-after-rejection': reason<
    Probe & {
      status: number;
      rejectionProbeId: number;
      afterRevokeMs: number;
      afterRejectionMs: number;
      admissions: number;
    }
  >()({
    verdicts: ['fail'],
    text: ({ edge, trial, status, probeId, rejectionProbeId, afterRevokeMs, afterRejectionMs, admissions }) =>
      `${edge} admitted the key again in trial ${trial}: ${status} (#${probeId}) sent ${ms(afterRevokeMs)} after the revoke call, ` +
      `${ms(afterRejectionMs)} after its first rejection (#${rejectionProbeId}) was answered${admissions > 1 ? `, ${admissions} admissions in all` : ''}`,
    means: 'An edge that had rejected the revoked key admitted it again: the revocation did not hold.',
    causes: ['nodes behind one edge name that share no revocation state', 'a key cache refilled from a stale source'],
    change: ['make the deployment’s revocation reach every node behind the edge, and keep it'],
  }),
  'probing-hit-time-bound': reason<{ trial: number; maxMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ trial, maxMs }) =>
      `trial ${trial}: probing hit its time bound (${ms(maxMs)}) before every edge had rejected and settled`,
    means: 'Probing stopped before every edge had been watched for the settle period after it rejected.',
    causes: ['an edge that rejects late, or never'],
    change: ['read REVOKE-LATENCY: it names the edge; a shorter `revocation.settle` leaves more of the bound to it'],
  }),
  'edge-never-rejected': reason<EdgeOfTrial>()({
    verdicts: ['inconclusive'],
    text: ({ edge, trial }) => `trial ${trial}: ${edge} never rejected the key`,
    means: 'An edge that never rejected cannot show whether it would admit the key again.',
    causes: ['probes answered 429 or not at all', 'an edge that does not revoke'],
    change: ['read REVOKE-LATENCY and AUTH-REVOKED of the same trial: they say what the edge answered'],
  }),
} as const;

const FINAL_REASONS = {
  'revoked-key-admitted': reason<Probe & { status: number }>()({
    verdicts: ['fail'],
    text: ({ edge, trial, status, probeId }) =>
      `${edge} admitted the revoked key in trial ${trial} (${status}, #${probeId})`,
    means: 'After the settle period an edge still admitted the revoked key.',
    causes: ['an edge that never revokes, or revokes later than the settle period'],
    change: ['make the revocation reach that edge; a longer `revocation.settle` tells late from never'],
  }),
  'revoked-key-wrong-status': reason<Probe & { status: number; rejectStatus: number }>()({
    verdicts: ['fail'],
    text: ({ edge, trial, status, rejectStatus, probeId }) =>
      `${edge} answered ${status} instead of ${rejectStatus} in trial ${trial} (#${probeId})`,
    means: 'The edge refused the revoked key, but with another status than the contract’s.',
    causes: ['an edge answering 403 (or another status) for a revoked key'],
    change: ['answer a revoked key with the contract’s status on every edge'],
  }),
  'final-probe-unusable': reason<Probe & { outcome: string }>()({
    verdicts: ['inconclusive'],
    text: ({ edge, trial, outcome, probeId }) =>
      `${edge} in trial ${trial}: ${outcome} (#${probeId}); a 429 or a missing response proves nothing about the key`,
    means: 'The final probe of an edge was answered 429 or not at all, which says nothing of the key.',
    causes: ['the revocation organization’s quota spent by the probing', 'a lossy network or a `timeout` too short'],
    change: ['give the revocation organization limits its probing fits (config `orgs[].limits`)'],
  }),
  'no-final-probe': reason<EdgeOfTrial>()({
    verdicts: ['inconclusive'],
    text: ({ edge, trial }) => `trial ${trial}: no final probe on ${edge}`,
    means: 'A judged trial recorded no final probe of an edge: a tiergate defect, or a trial cut short.',
    causes: ['the run stopped while the final probes were in flight'],
    change: ['run again; report it with the run folder if it recurs'],
  }),
} as const;

const ROTATION_REASONS = {
  'successor-rejected': reason<Probe & { status: number; phase: RotationPhase }>()({
    verdicts: ['fail'],
    text: ({ edge, trial, status, phase, probeId }) =>
      `${edge} in trial ${trial}: the new key got ${status} ${WHEN[phase]} (#${probeId})`,
    means: 'A second key of the same organization was rejected on an edge: rotating keys would lock the client out.',
    causes: ['the revocation reaches every key of the organization', 'a new key that has not reached the edge'],
    change: ['revoke one key, never the organization’s; propagate new keys to every edge before they are handed out'],
  }),
  'successor-probe-unusable': reason<Probe & { outcome: string; phase: RotationPhase }>()({
    verdicts: ['inconclusive'],
    text: ({ edge, trial, outcome, phase, probeId }) =>
      `${edge} in trial ${trial}: ${outcome} ${WHEN[phase]} (#${probeId})`,
    means: 'The new key’s probe was answered 429 or not at all, which says nothing of the key.',
    causes: ['the revocation organization’s quota spent by the probing', 'a lossy network or a `timeout` too short'],
    change: ['give the revocation organization limits its probing fits (config `orgs[].limits`)'],
  }),
  'successor-not-probed': reason<EdgeOfTrial & { phase: RotationPhase }>()({
    verdicts: ['inconclusive'],
    text: ({ edge, trial, phase }) => `${edge} in trial ${trial}: the new key was not probed ${WHEN[phase]}`,
    means: 'A trial recorded no probe of the new key on an edge.',
    causes: ['the run stopped before the probe was sent'],
    change: ['run again; report it with the run folder if it recurs'],
  }),
  'no-successor-key': reason<{ trial: number; provisionError: string | null }>()({
    verdicts: ['inconclusive'],
    text: ({ trial, provisionError }) =>
      `trial ${trial}: no successor key${provisionError === null ? '' : ` (${provisionError})`}`,
    means: 'ROTATION needs a second key of the organization in each trial, and none could be provisioned.',
    causes: ['a key quota or a list of disposable keys too small for a key and its successor'],
    change: ['give `revocation.hook` room for two keys per trial (more disposable keys, a larger key quota)'],
  }),
} as const;

export const REVOCATION_REASONS = {
  ...COVERAGE_REASONS,
  ...LATENCY_REASONS,
  ...STICKY_REASONS,
  ...FINAL_REASONS,
  ...ROTATION_REASONS,
} as const;
