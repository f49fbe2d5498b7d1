/**
 * Reasons of CONCURRENCY-CAP: the held uploads, where the extra read fell among them, and what its
 * answer shows. The figures of the timing proof (m, σ, λ, L) are in the result's data.
 */
import { reason } from './define.ts';
import { countOf, ms, positions, relativeTo } from '../../util/phrases.ts';

/** Where the timings left the extra read, for `tiergate explain`: every figure is in the result's data. */
const TIMING_CHANGE = [
  'nothing if a later measurement decided it',
  'a nearer vantage point (steadier round trips)',
  'slower uploads against the reference target (`--parse-ms`)',
];

const CAP_HELD_REASONS = {
  'cap-not-held': reason<{ held: number; cap: number }>()({
    verdicts: ['inconclusive'],
    text: ({ held, cap }) => `${held} requests were held, the cap is ${cap}`,
    means: 'The test needs exactly the cap of uploads in flight, and another number was held.',
    causes: ['a cap announced after the measurement was planned', 'the run stopped while uploads were sent'],
    change: ['declare the organization’s cap (config `orgs[].limits.concurrency`)'],
  }),
  'extra-seen-first': reason<{ request: number; status: number; extraStatus: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request, status, extraStatus }) =>
      `exactly one of the cap + 1 was refused (#${request}, ${status}), but not the extra (${extraStatus}): the server may have seen the extra first`,
    means:
      'One held upload was refused and the extra admitted: the cap held, but the server may have counted the extra among the held.',
    causes: ['uploads and the extra arriving close together'],
    change: TIMING_CHANGE,
  }),
  'held-refused-quota-spent': reason<{ requests: readonly number[] }>()({
    verdicts: ['inconclusive'],
    text: ({ requests }) =>
      `held uploads refused with Remaining 0 (${positions(requests)}) may have been refused for the ingest quota, not for the cap`,
    means: 'A held upload was refused with the ingest quota used up: the quota’s refusal, perhaps, not the cap’s.',
    causes: ['other uploads in the same window', 'an ingest quota smaller than the cap plus the reads'],
    change: ['give the concurrency task an organization of its own (config `orgs`)', 'a longer window (`--window`)'],
  }),
  'held-refused': reason<{ admitted: number; cap: number; statuses: readonly number[]; requests: readonly number[] }>()(
    {
      verdicts: ['fail'],
      text: ({ admitted, cap, statuses, requests }) =>
        `the cap admitted only ${admitted} of ${cap} held uploads: ${positions(requests)} refused (${statuses.join(', ')})`,
      means: 'Fewer uploads than the cap were admitted at once: the cap is below its figure.',
      causes: ['a cap configured below the tier’s figure', 'a cap counting something else (connections, the reads)'],
      change: ['fix the deployment’s cap, or declare the organization’s own (config `orgs[].limits.concurrency`)'],
    },
  ),
  'held-unanswered': reason<{ requests: readonly number[] }>()({
    verdicts: ['inconclusive'],
    text: ({ requests }) =>
      `${countOf(requests.length, 'held request')} got no response (${positions(requests)}): it may never have been admitted, so the cap in flight is not shown`,
    means: 'A held upload got no answer, so the cap was not shown in flight.',
    causes: ['a timeout shorter than an upload takes', 'a lossy network'],
    change: ['a longer `--timeout` (config `timeout`)', 'a nearer vantage point'],
  }),
  'control-slot-lingering': reason<{ request: number; afterControlMs: number; before: number; cap: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request, afterControlMs, before, cap }) =>
      `the control was admitted with the ${before} uploads before it in flight, the cap at once: the last upload's refusal (#${request}, sent ${ms(afterControlMs)} after the control's answer) shows the control's slot not yet freed, not a cap below ${cap}`,
    means:
      'The server frees a slot on its own time after an answer leaves; the last upload came before the control’s slot was free.',
    causes: ['a server that frees slots late'],
    change: ['nothing if a later measurement decided it'],
  }),
} as const;

const CAP_PLACEMENT_REASONS = {
  'extra-unanswered': reason<{ error: string }>()({
    verdicts: ['inconclusive'],
    text: ({ error }) => `the extra read got no response (${error}): where it fell among the held uploads is unknown`,
    means: 'The extra read sent with the cap in flight got no answer, or no time of answer.',
    causes: ['a timeout shorter than the deployment answers in', 'a lossy network'],
    change: ['a longer `--timeout` (config `timeout`)', 'a nearer vantage point'],
  }),
  'answer-times-missing': reason()({
    verdicts: ['inconclusive'],
    text: () => 'the order of the answers is unknown (times missing)',
    means: 'A send or answer time of the measurement is missing, so the timing proof cannot be made.',
    causes: ['a tiergate defect in timing a request'],
    change: ['report it with the run folder'],
  }),
  'no-round-trip-timed': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no round trip of a fast read was measured: the timing proof needs them and the fastest upload',
    means: 'The proof places the extra by the round trips of fast reads and the fastest upload, and none was timed.',
    causes: ['the reads before the measurement were refused or lost'],
    change: ['give the concurrency task an organization of its own (config `orgs`)', 'check the network path'],
  }),
  'extra-sent-too-early': reason<{ request: number; gapMs: number; boundMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request, gapMs, boundMs }) =>
      `the extra was sent ${relativeTo(gapMs, 'after', 'before')} held #${request} was sent, not more than σ = ${ms(boundMs)} after: it may have reached the server first`,
    means:
      '(A) does not hold: a held upload may have reached the server after the extra, which then met one fewer than the cap.',
    causes: ['round trips that spread widely (a distant or loaded path)', 'timers that fired late on a loaded machine'],
    change: TIMING_CHANGE,
  }),
  'extra-sent-too-late': reason<{ request: number; gapMs: number; boundMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request, gapMs, boundMs }) =>
      `the extra was sent ${relativeTo(gapMs)} held #${request} was answered, not more than m + 2σ + λ = ${ms(boundMs)} before: a slot may have freed before it arrived`,
    means:
      '(B) does not hold: a held upload may have finished, and freed its slot, before the extra reached the server.',
    causes: ['uploads faster than planned', 'round trips that spread widely', 'timers that fired late'],
    change: TIMING_CHANGE,
  }),
  'reads-slow-now': reason<{
    fastestUploadMs: number;
    holdSpanMs: number;
    fastestTripMs: number;
    slowestTripMs: number;
  }>()({
    verdicts: ['inconclusive'],
    text: ({ fastestUploadMs, holdSpanMs, fastestTripMs, slowestTripMs }) =>
      `the uploads (the fastest ${ms(fastestUploadMs)}) are too fast to place a request among at reads this spread (more than ${ms(holdSpanMs)} needed); the fastest of those reads took ${ms(fastestTripMs)}, and the slowest ${ms(slowestTripMs)}: a moment's load, measured again, a quieter moment may decide it`,
    means:
      'One slow read widened the bounds past the uploads’ length; were every read as quick as the quickest, they would fit.',
    causes: ['a moment’s load on the machine (the run’s own other tasks) or the deployment'],
    change: ['nothing if a later window decided it; else fewer tiers at once (`--tiers`)'],
  }),
  'uploads-too-fast': reason<{ fastestUploadMs: number; holdSpanMs: number; fastestTripMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ fastestUploadMs, holdSpanMs, fastestTripMs }) =>
      `the uploads (the fastest ${ms(fastestUploadMs)}) are too fast to place a request among (more than ${ms(holdSpanMs)} needed), and every fast read took ${ms(fastestTripMs)} or more: measured again, a quieter moment may decide it; an upload must outlast 2m + M + 5σ + 2λ`,
    means:
      'A request can be placed among held uploads only when an upload outlasts three round trips, five spreads and twice how late the timers fired.',
    causes: ['a distant deployment (long round trips)', 'a fast parser', 'load on the machine at that moment'],
    change: [
      'a nearer vantage point',
      'slower uploads against the reference target (`--parse-ms`)',
      'a longer window (`--window`), so later windows measure again',
    ],
  }),
} as const;

/** How the control failed to show the same read answered fast below the cap. */
const CONTROL_FAILURES = {
  refused: 'was refused',
  'sent-too-early': 'was sent before every held upload could be shown on the server',
  'not-answered-while-held': 'was not shown answered while they were on the server',
} as const;

const CAP_OUTCOME_REASONS = {
  'extra-answer-ambiguous': reason<{ status: number; gapMs: number; boundMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ status, gapMs, boundMs }) =>
      `the extra got ${status}, answered ${ms(gapMs)} before the first held answer, not more than σ + λ = ${ms(boundMs)}: served beside them or just after one finished, the timings cannot tell`,
    means: '(C) does not hold: the extra’s answer came too close to the first held one to tell a fail from a queue.',
    causes: ['round trips that spread widely', 'timers that fired late'],
    change: TIMING_CHANGE,
  }),
  'held-may-have-arrived-late': reason<{ status: number }>()({
    verdicts: ['inconclusive'],
    text: ({ status }) =>
      `the extra got ${status}, answered while the held ones were, but a held upload may have reached the server after it: its answer came too late to show it was there before`,
    means:
      '(A′) does not hold: a held upload late on its way (a segment sent again, a handshake) may have met an extra already served.',
    causes: ['a lossy or distant path', 'new connections opened for the held uploads'],
    change: TIMING_CHANGE,
  }),
  'cap-above-tested': reason<{ status: number; cap: number; minimum: number }>()({
    verdicts: ['inconclusive'],
    text: ({ status, cap, minimum }) =>
      `the extra got ${status} with the ${cap} held in service: the cap is above ${cap}, as "${minimum} or more" allows`,
    means:
      'One request beyond the cap tested was served; the tier’s cap is a minimum, so the organization’s own may be higher.',
    causes: ['an Enterprise organization without its cap declared'],
    change: ['declare the organization’s own cap (config `orgs[].limits.concurrency`)'],
  }),
  'cap-exceeded': reason<{ cap: number; status: number; gapMs: number; boundMs: number }>()({
    verdicts: ['fail'],
    text: ({ cap, status, gapMs, boundMs }) =>
      `${cap + 1} served at once: the extra read got ${status}, answered ${ms(gapMs)} before the first held answer, more than σ + λ = ${ms(boundMs)} (the cap taken to count every request of the organization in flight, on any endpoint: assumption concurrency-status)`,
    means:
      'With the cap of uploads on the server, one more request was admitted and answered before any of them: no cap at that figure.',
    causes: ['no concurrency cap, or one above the figure', 'a cap counting uploads only, not reads'],
    change: [
      'enforce the cap in the deployment',
      'declare the organization’s own cap (config `orgs[].limits.concurrency`)',
    ],
  }),
  'extra-answered-late': reason<{ status: number; afterFirstMs: number; boundMs: number }>()({
    verdicts: ['inconclusive'],
    text: ({ status, afterFirstMs, boundMs }) =>
      `the extra got ${status}, answered ${ms(afterFirstMs)} after the first held answer, more than m + 2σ + λ = ${ms(boundMs)}: not as soon as a slot freed, so it may have reached the server late and been served with no queue`,
    means: 'A read held for a slot is served as soon as one frees; this one came later, so a queue is not shown.',
    causes: ['a slow or lossy path for the extra', 'load on the deployment'],
    change: TIMING_CHANGE,
  }),
  'control-not-fast': reason<{ held: number; outcome: string; failure: keyof typeof CONTROL_FAILURES }>()({
    verdicts: ['inconclusive'],
    text: ({ held, outcome, failure }) =>
      `the control, the same read with ${held} held, got ${outcome} and ${CONTROL_FAILURES[failure]}: an extra answered late shows a queue only beside a control answered fast with fewer than the cap held, else the server may be merely slow`,
    means:
      'The extra was answered once a slot freed, but the control does not show the same read answered fast below the cap.',
    causes: ['a server slow under the held uploads', 'the read quota spent (a refused control)'],
    change: TIMING_CHANGE,
  }),
  'control-refused': reason<{ status: number; controlOutcome: string }>()({
    verdicts: ['inconclusive'],
    text: ({ status, controlOutcome }) =>
      `the control, the same read with one fewer held, got ${controlOutcome} as the extra got ${status}: a read refused below the cap is refused for something else than the cap (its quota?), so the extra's refusal shows nothing`,
    means: 'The extra was refused, but so was the same read below the cap: the refusal is not shown to be the cap’s.',
    causes: ['the read quota spent by other checks or another client', 'a cap counting something else'],
    change: ['give the concurrency task an organization of its own (config `orgs`)', 'a longer window (`--window`)'],
  }),
  'cap-refusal-not-too-many': reason<{ status: number; assumed: number }>()({
    verdicts: ['inconclusive'],
    text: ({ status, assumed }) =>
      `§8 does not say how the cap answers; the contract assumes ${assumed} (concurrency-status). A ${status} cannot be told from a failure of the server, so it neither passes nor fails the cap`,
    means: 'The extra beyond the cap was refused with a status that does not say "too many".',
    causes: ['a server error under load', 'a cap answering with its own status'],
    change: ['answer 429 (or 503) for the cap, or name its status in the contract (statuses.concurrencyCapped)'],
  }),
  'cap-refused-503': reason<{ assumed: number }>()({
    verdicts: ['pass'],
    text: ({ assumed }) =>
      `assumption, not spec: the cap answered 503, a gateway's "too many", not the ${assumed} assumption concurrency-status names; §8 does not say how the cap answers, so this is no fault`,
    means: 'The pass rests on taking 503 for the cap’s refusal, where the contract assumes another status.',
    causes: ['a gateway in front of the deployment enforcing the cap'],
    change: ['nothing; name 503 in the contract (statuses.concurrencyCapped) to make it the expectation'],
  }),
  'cap-queues': reason<{ assumed: number }>()({
    verdicts: ['pass'],
    text: ({ assumed }) =>
      `assumption, not spec: one request beyond the cap waited for a slot instead of a ${assumed} at once, so assumption concurrency-status does not hold here; §8 does not say how the cap answers, so this is no fault`,
    means: 'The pass rests on a queue counting as keeping the cap: the request beyond it was held until a slot freed.',
    causes: ['a deployment that queues requests beyond the cap'],
    change: ['nothing; clients see slow answers instead of 429s at the cap'],
  }),
  'cap-not-reached': reason<{ inFlight: number; minimum: number }>()({
    verdicts: ['inconclusive'],
    text: ({ inFlight, minimum }) =>
      `the cap was not reached with ${inFlight} in flight (the published minimum is ${minimum}): test with at least ${minimum} held to find the cap`,
    means: 'Fewer requests than the published minimum were held, so the cap could not be met.',
    causes: ['a cap declared below the tier’s minimum'],
    change: ['declare the organization’s cap at or above the minimum (config `orgs[].limits.concurrency`)'],
  }),
  'rejected-under-minimum': reason<{ inFlight: number; minimum: number; requests: readonly number[] }>()({
    verdicts: ['fail'],
    text: ({ inFlight, minimum, requests }) =>
      `rejected with only ${inFlight} in flight (the published minimum is ${minimum}): ${positions(requests)}`,
    means: 'Requests were refused with fewer in flight than the tier’s published minimum cap.',
    causes: ['a cap configured below the tier’s minimum'],
    change: ['raise the deployment’s cap to at least the published minimum'],
  }),
} as const;

export const CONCURRENCY_CAP_REASONS = {
  ...CAP_HELD_REASONS,
  ...CAP_PLACEMENT_REASONS,
  ...CAP_OUTCOME_REASONS,
} as const;
