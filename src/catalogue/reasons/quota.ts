/**
 * Reasons of the quota checks and the windows they are measured in (QUOTA-READ, QUOTA-INGEST,
 * ORG-SHARED, ORG-ISOLATED): where the count went wrong, why a window could not vouch for a series,
 * what a lost request counted, and the run's budget for measuring again.
 */
import { reason } from './define.ts';

/** The Limit a series is judged by, as its reasons carry it. */
export type LimitFigures = {
  /** The Limit, with the harness's own earlier requests in it. */
  readonly limit: number;
  /** Units each request carries (resumes per bulk upload). */
  readonly unitsPerRequest: number;
  /** The harness's own requests counted in the window before the series. */
  readonly spentBefore: number;
  /** Only a published minimum is known: a shortfall is judged, not exactness. */
  readonly atLeast: boolean;
};

/** "Limit 60", "Limit at least 2500", "Limit 10 units at 5 per request, 1 spent by the harness before". */
export function limitText({ limit, unitsPerRequest, spentBefore, atLeast }: LimitFigures): string {
  const value = atLeast ? `at least ${limit}` : String(limit);
  const ledger = spentBefore > 0 ? `, ${spentBefore} spent by the harness before` : '';
  return unitsPerRequest > 1
    ? `Limit ${value} units at ${unitsPerRequest} per request${ledger}`
    : `Limit ${value}${ledger}`;
}

/** "requests 2–58 (released together)", for a part of a series numbered from 1. */
export function releasedTogetherText(first: number, last: number): string {
  return `requests ${first}–${last} (released together)`;
}

/** How a series was placed in its window when no plain Reset could do it. */
export type Placement = {
  /** `first-request`: the check's first request opened it; `timing`: Resets move; `reset`: some Resets were unusable. */
  readonly placedBy: 'first-request' | 'timing' | 'reset';
  /** Responses without a plausible epoch Reset, of `responses` (placedBy `reset`). */
  readonly lackingReset: number;
  readonly responses: number;
};

/** Why a series was placed by timing: "3 of 11 responses lack a plausible epoch Reset". */
export function placementText({ placedBy, lackingReset, responses }: Placement): string {
  if (placedBy === 'first-request') return 'the window opened with the first request';
  if (placedBy === 'timing') return 'placed by timing (no Reset that holds still within a window)';
  return responses === 0
    ? 'no response carried a Reset'
    : `${lackingReset} of ${responses} responses lack a plausible epoch Reset`;
}

/** How the window a series was timed in opened: "opened with the first request", "uncertainty ±40 ms". */
export function windowOpenedText(placedBy: Placement['placedBy'], uncertaintyMs: number): string {
  return placedBy === 'first-request' ? 'opened with the first request' : `uncertainty ±${uncertaintyMs} ms`;
}

const requests = (n: number) => (n === 1 ? 'one request' : `${n} requests`);
const part = (together: readonly number[]) =>
  together.length === 2 ? ` (${releasedTogetherText(together[0]!, together[1]!)})` : '';

const BOUNDARY_CAUSES = [
  'the check began close to a window boundary (a loaded machine or a slow network delayed it)',
  'a server window shorter or placed otherwise than the one learned',
];
const BOUNDARY_CHANGE = [
  'nothing if the next window decided it: tiergate measures such a check again once',
  'compare `--window` (config `window`) with what `tiergate profile` shows the server doing',
  'a nearer vantage point, so the series takes less of the window',
];
const TIMING_MEANS =
  "Without a Reset that places every response, the series is placed by the harness's learned window timing, and that timing cannot vouch for it being in one window.";

const LOST_CAUSES = ['a dropped connection or a timeout (`timeout`) on the way to or from the server'];
const LOST_CHANGE = ['nothing if the verdict stands; else check the network path or raise `timeout`'];

/** A lost request placed by the Remaining of the answers either side of it. */
type LostAcross = { atRequest: number; error: string; remainingBefore: number; remainingAfter: number };
const lostAcrossText = ({ atRequest, error, remainingBefore, remainingAfter }: LostAcross) =>
  `${error} at request ${atRequest}: Remaining ${remainingBefore} → ${remainingAfter} across it`;

/** A lost request placed by the values of Remaining the admissions took (released together). */
type LostByValues = {
  atRequest: number;
  error: string;
  admitted: number;
  values: number;
  lost: number;
  missing: number;
  limit: number;
};
function lostByValuesText(f: LostByValues, placed: string): string {
  const every = `every value of Remaining an admission takes under Limit ${f.limit} (${f.values})`;
  const carry =
    f.missing === 0
      ? `${every}, one each`
      : `distinct values of Remaining, ${every} but ${f.missing}, each of which one of the ${f.lost} requests lost could take where the server's order allows`;
  return `${f.error} at request ${f.atRequest}: ${placed}: the ${f.admitted} admitted answers carry ${carry}`;
}

/** The harness's own requests, by route and id: "GET /recruiter/jobs #12, HEAD /recruiter/bootstrap #13". */
type HarnessRequests = { requests: readonly number[]; routes: readonly string[] };
const harnessRequestsText = ({ requests: ids, routes }: HarnessRequests) =>
  ids.map((id, i) => `${routes[i]} #${id}`).join(', ');

const LEDGER_CAUSES = ["the harness's own window sync or reads of the route, sent in the window before the series"];
const LEDGER_CHANGE = ['nothing: the harness counts its own requests; `tiergate profile` shows what the server counts'];

export const QUOTA_REASONS = {
  'window-rolled-over': reason<{ from: number; to: number; atRequest: number }>()({
    verdicts: ['inconclusive'],
    text: ({ from, to, atRequest }) =>
      `window rolled over mid-check: Reset went from ${from} to ${to} at request ${atRequest}`,
    means:
      "The server's own Resets show the check's requests fell in two quota windows: one window's count cannot be judged.",
    causes: BOUNDARY_CAUSES,
    change: BOUNDARY_CHANGE,
  }),
  'window-rolled-over-between': reason<{ refusalReset: number; requestReset: number }>()({
    verdicts: ['inconclusive'],
    text: ({ refusalReset, requestReset }) =>
      `a window rolled over mid-check: Reset ${refusalReset} on the rejection, ${requestReset} on the request`,
    means:
      'The rejection that showed the quota used up and the request judged after it carry different Resets: a new window may have admitted the request.',
    causes: BOUNDARY_CAUSES,
    change: BOUNDARY_CHANGE,
  }),
  'nothing-to-place': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no observations to place in a window',
    means: 'The check sent nothing that could be placed in a quota window.',
    causes: ['the task stopped before its series'],
    change: ['read the warning the run printed for this task'],
  }),
  'window-timing-unknown': reason<Placement>()({
    verdicts: ['fail', 'inconclusive'],
    text: (figures) => `${placementText(figures)}; and the learned window's timing is unknown`,
    means: TIMING_MEANS,
    causes: ['no window was learned before the check (the server gives no usable Reset)'],
    change: ['give the window length (`--window`, config `window`)'],
  }),
  'request-time-unusable': reason<Placement & { atRequest: number }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ atRequest, ...placement }) =>
      `${placementText(placement)}; by timing, request ${atRequest} has no usable send or finish time`,
    means: TIMING_MEANS,
    causes: ['a request whose send or finish time was not recorded (a driver fault)'],
    change: ['report it with the run folder'],
  }),
  'sent-before-window': reason<Placement & { atRequest: number; earlyMs: number }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ atRequest, earlyMs, ...placement }) =>
      `${placementText(placement)}; by timing, request ${atRequest} was sent ${earlyMs} ms before the window opened`,
    means: TIMING_MEANS,
    causes: ['the window opened later than learned', 'a series started before its window'],
    change: BOUNDARY_CHANGE,
  }),
  'finished-after-safe-end': reason<
    Placement & { atRequest: number; lateMs: number; windowMs: number; uncertaintyMs: number }
  >()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ atRequest, lateMs, windowMs, uncertaintyMs, ...placement }) =>
      `${placementText(placement)}; by timing, request ${atRequest} finished ${lateMs} ms after the window's safe end (length ${windowMs} ms, ${windowOpenedText(placement.placedBy, uncertaintyMs)})`,
    means: `${TIMING_MEANS} A request answered after the window's safe end may belong to the next window.`,
    causes: ['round trips or uploads too slow for the series to fit the window', ...BOUNDARY_CAUSES],
    change: BOUNDARY_CHANGE,
  }),
  'window-not-fresh': reason<{ highestRemaining: number; freshRemaining: number }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ highestRemaining, freshRemaining }) =>
      `the window was not fresh: the highest Remaining admitted was ${highestRemaining}, where a window opened by the first request shows ${freshRemaining}`,
    means: 'The harness waited for a fresh window, and the server showed one already partly spent.',
    causes: ["another client is spending the organization's quota", 'the server window outlasts the one configured'],
    change: [
      'give tiergate organizations no one else uses (config `orgs`)',
      'check `--window` (config `window`) against `tiergate profile`',
    ],
  }),
  'refused-early': reason<
    LimitFigures & {
      firstRefusedAt: number;
      together: readonly number[];
      admittedBefore: number;
      admissible: number;
      unclearBefore: number;
    }
  >()({
    verdicts: ['fail'],
    text: ({ firstRefusedAt, together, admittedBefore, admissible, unclearBefore, ...limit }) =>
      unclearBefore === 0
        ? `429 at request ${firstRefusedAt}${part(together)}: ${requests(admissible - admittedBefore)} early (${limitText(limit)})`
        : `429 at request ${firstRefusedAt}${part(together)} after only ${admittedBefore} admitted (${limitText(limit)})`,
    means: 'The quota refused a request the Limit still allowed: fewer were admitted in the window than it sells.',
    causes: [
      'a Limit lower than declared or published',
      "another client spending the organization's quota",
      'requests of the harness counted on this counter (a HEAD, another route)',
    ],
    change: [
      'declare the figures the deployment enforces (config `orgs[].limits`)',
      'give tiergate organizations no one else uses (config `orgs`)',
    ],
  }),
  'quota-refused-with-503': reason<LimitFigures & { firstRequest: number; count: number; admitted: number }>()({
    verdicts: ['fail'],
    text: ({ firstRequest, count, admitted, ...limit }) =>
      `requests 1–${admitted} admitted, then ${count === 1 ? 'the next' : `all ${count} from request ${firstRequest} on`} answered 503, not 429 (${limitText(limit)}): the quota refused with the wrong status`,
    means:
      'Every request past the Limit in the window was answered 503 while those within it were admitted: the quota refuses, but with 503 where §7 and §8 require 429 (and its body and Retry-After).',
    causes: [
      "nginx's limit_req, whose refusals are 503 unless `limit_req_status 429` is set",
      "a gateway that maps the limiter's refusal to Service Unavailable",
    ],
    change: ['answer a quota refusal with 429 (nginx: `limit_req_status 429;`)'],
  }),
  'admitted-past-limit': reason<LimitFigures & { admittedAt: number; firstRefusedAt: number | null; sent: number }>()({
    verdicts: ['fail'],
    text: ({ admittedAt, firstRefusedAt, sent, ...limit }) =>
      `admitted request ${admittedAt} (${limitText(limit)}); ${firstRefusedAt === null ? `no 429 in ${sent} requests` : `first 429 at request ${firstRefusedAt}`}`,
    means: 'More requests were admitted in one window than the Limit allows.',
    causes: ['a Limit higher than declared or published', 'a limiter that does not count every request'],
    change: ['declare the figures the deployment enforces (config `orgs[].limits`)'],
  }),
  'admitted-after-refusal': reason<{ admittedAt: number; firstRefusedAt: number }>()({
    verdicts: ['fail'],
    text: ({ admittedAt, firstRefusedAt }) => `admitted request ${admittedAt} after a 429 at request ${firstRefusedAt}`,
    means: 'A request was admitted after the quota refused one, in the same window.',
    causes: ['a limiter that gives quota back during the window', 'several limiter instances not sharing one count'],
    change: ["fix the limiter; `tiergate profile` shows how the server's quota comes back"],
  }),
  'burst-admitted-past-limit': reason<LimitFigures & { admitted: number; sent: number; refused: number }>()({
    verdicts: ['fail'],
    text: ({ admitted, sent, refused, ...limit }) =>
      `admitted ${admitted} of ${sent} (${limitText(limit)}); ${refused} got 429`,
    means: 'Of requests released together, more were admitted than the Limit allows: the count races.',
    causes: ['a limiter that reads and writes its count apart (no atomic increment)', 'a Limit higher than declared'],
    change: ['fix the limiter, or declare the figures it enforces (config `orgs[].limits`)'],
  }),
  'burst-admitted-short': reason<LimitFigures & { admitted: number; sent: number; refused: number }>()({
    verdicts: ['fail'],
    text: ({ admitted, sent, refused, ...limit }) =>
      `admitted only ${admitted} of ${sent} (${limitText(limit)}); ${refused} got 429`,
    means:
      'Of requests released together, fewer were admitted than the Limit allows. A concurrency-cap 429 looks the same as a quota 429; the driver keeps in-flight requests under the cap.',
    causes: ['a Limit lower than declared', 'a concurrency cap lower than declared'],
    change: ['declare the figures the deployment enforces (config `orgs[].limits`, `orgs[].limits.concurrency`)'],
  }),
  'admitted-past-limit-in-window': reason<LimitFigures & { admitted: number }>()({
    verdicts: ['fail'],
    text: ({ admitted, ...limit }) =>
      `admitted ${admitted} (${limitText(limit)}) among the requests answered while the window surely lasted`,
    means:
      'The series ran past its window, and the part answered while the window surely lasted already holds more admissions than the Limit.',
    causes: ['a Limit higher than declared or published'],
    change: ['declare the figures the deployment enforces (config `orgs[].limits`)'],
  }),
  'limit-below-minimum': reason<{ announced: number; publishedMinimum: number }>()({
    verdicts: ['fail'],
    text: ({ announced, publishedMinimum }) => `Limit ${announced} is below the published minimum ${publishedMinimum}`,
    means: 'The server announces a Limit lower than the least the tier is sold with.',
    causes: ['the deployment configures the tier below its published figure'],
    change: ["raise the deployment's limit, or declare the figure it enforces (config `orgs[].limits`)"],
  }),
  'bulk-counted-per-upload': reason<{ admittedUploads: number; unitsPerRequest: number; limit: number }>()({
    verdicts: ['fail'],
    text: ({ admittedUploads, unitsPerRequest, limit }) =>
      `bulk uploads look counted one per upload, not per resume (assumption bulk-counts-per-resume): ${admittedUploads} uploads of ${unitsPerRequest} resumes were admitted under Limit ${limit}, more resumes than the tier sells. If counting per upload is intended, declare "assumptions": {"bulk-counts-per-resume": false} in the config.`,
    means: 'Ingest is sold in resumes; the server admitted bulk uploads as if each counted one.',
    causes: ['a limiter that counts requests, not the resumes they carry'],
    change: ['count resumes, or declare `assumptions` {"bulk-counts-per-resume": false} in the config'],
  }),
  'no-announced-limit': reason<{ publishedMinimum: number }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ publishedMinimum }) =>
      `the published figure is at least ${publishedMinimum}; without one announced Limit only a shortfall can be judged`,
    means: 'The tier is sold with a minimum, and the server announced no one Limit to judge exactness against.',
    causes: ['X-RateLimit-Limit absent, or different across responses'],
    change: ['declare the figure the deployment enforces (config `orgs[].limits`)', 'announce X-RateLimit-Limit'],
  }),
  'outcome-unknown': reason<{ requests: readonly number[]; outcomes: readonly string[] }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ requests: at, outcomes }) => {
      const items = at.map((n, i) => `${outcomes[i]} at request ${n}`);
      const some =
        items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`;
      return `${some}: cannot tell whether ${items.length === 1 ? 'it' : 'they'} counted`;
    },
    means:
      'Requests got no answer, or one neither admitted nor 429, and nothing the server said tells whether they counted.',
    causes: [...LOST_CAUSES, 'server errors (5xx) under load'],
    change: ['nothing if the next window decided it', 'check the network path or raise `timeout`'],
  }),
  'too-few-requests': reason<{ sent: number; needed: number; allAdmitted: boolean }>()({
    verdicts: ['fail', 'inconclusive'],
    text: ({ sent, needed, allAdmitted }) =>
      `only ${requests(sent)} sent${allAdmitted ? ', all admitted' : ''}; need at least ${needed}`,
    means: 'The series ended before the request that should have been refused.',
    causes: ['the run was stopped', 'the series was planned for a smaller Limit than the one judged by'],
    change: ['declare the figures the deployment enforces (config `orgs[].limits`)'],
  }),
  'quota-per-route': reason<{ admittedRoute: string; admittedId: number; refusedRoute: string; refusedId: number }>()({
    verdicts: ['fail'],
    text: ({ admittedRoute, admittedId, refusedRoute, refusedId }) =>
      `${admittedRoute} admitted (#${admittedId}) right after ${refusedRoute} got 429 (#${refusedId}): the quota is counted per route, not per organization`,
    means:
      'Another route of the same quota class was admitted once the class was used up: each route has its own count.',
    causes: ['a limiter keyed by route rather than by organization and class'],
    change: ['key the limiter by organization and quota class'],
  }),
  'quota-refills-in-window': reason<{
    route: string;
    admittedId: number;
    intoS: number;
    refusedId: number;
    sureToLastS: number;
  }>()({
    verdicts: ['fail'],
    text: ({ route, admittedId, intoS, refusedId, sureToLastS }) =>
      `${route} admitted ${intoS} s into the window (#${admittedId}), after the 429 at #${refusedId}, while the window is sure to last until ${sureToLastS} s: the quota refills during the window`,
    means:
      'A request was admitted after the quota was used up while the window was surely still open: quota came back.',
    causes: [
      'a refilling limiter (token bucket, sliding window) where fixed windows are sold',
      'a window shorter than declared',
    ],
    change: ['compare `--window` (config `window`) with `tiergate profile`', 'fix the limiter to fixed windows'],
  }),
  'lost-request-counted': reason<LostAcross>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) => `${lostAcrossText(f)}, so it counted (admitted, its answer lost)`,
    means: 'A request got no answer; the Remaining of the answers around it shows the server counted it.',
    causes: LOST_CAUSES,
    change: LOST_CHANGE,
  }),
  'lost-request-not-counted': reason<LostAcross>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) => `${lostAcrossText(f)}, so it did not count (it never reached the limiter)`,
    means: 'A request got no answer; the Remaining of the answers around it shows the server never counted it.',
    causes: LOST_CAUSES,
    change: LOST_CHANGE,
  }),
  'lost-request-admitted': reason<LostByValues>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) => lostByValuesText(f, 'admitted, its answer lost'),
    means:
      'A request got no answer; the values of Remaining the admissions took leave one that only it could have taken.',
    causes: LOST_CAUSES,
    change: LOST_CHANGE,
  }),
  'lost-request-not-admitted': reason<LostByValues>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) => lostByValuesText(f, 'not admitted'),
    means: 'A request got no answer; the values of Remaining the admissions took leave none for it.',
    causes: LOST_CAUSES,
    change: LOST_CHANGE,
  }),
  'neither-admitted-nor-refused': reason<{ party: string; outcome: string; requestId: number }>()({
    verdicts: ['inconclusive'],
    text: ({ party, outcome, requestId }) => `${party} got ${outcome} (#${requestId}), neither admitted nor 429`,
    means: 'The request that decides the check got no answer, or one that is neither an admission nor a 429.',
    causes: [...LOST_CAUSES, 'a server error (5xx)'],
    change: ['nothing if the next window decided it', 'check the network path or raise `timeout`'],
  }),
  'admitted-on-used-counter': reason<{ remaining: number }>()({
    verdicts: ['inconclusive'],
    text: ({ remaining }) =>
      `second key admitted with Remaining ${remaining}: it drew on a counter already used, not a fresh one of its own; quota given back during the window (a refilling limiter) admits one request on the shared counter, and QUOTA-READ judges the refill`,
    means:
      "The second key's admission came from the organization's counter given back a little, not from a quota of its own.",
    causes: ['a refilling limiter'],
    change: ['read QUOTA-READ of the same tier: it judges the refill'],
  }),
  'refilling-limiter': reason()({
    verdicts: ['inconclusive'],
    text: () =>
      'second key admitted on a limiter that gives quota back during the window: a request given back between the two keys would admit it on a shared counter too; QUOTA-READ judges the refill',
    means:
      'The limiter profile found quota coming back during a window, so an admission of the second key proves no quota of its own.',
    causes: ['a refilling limiter (token bucket, sliding window)'],
    change: ['read QUOTA-READ of the same tier: it judges the refill'],
  }),
  'window-not-shown-in-force': reason<{ refusedId: number; requestId: number }>()({
    verdicts: ['inconclusive'],
    text: ({ refusedId, requestId }) =>
      `nothing shows the window of the rejection (#${refusedId}) still in force when the request (#${requestId}) was answered`,
    means:
      'No bracket, shared Reset or timing shows the used-up window still in force: a window boundary may have fallen between the two.',
    causes: BOUNDARY_CAUSES,
    change: BOUNDARY_CHANGE,
  }),
  'quota-per-key': reason<{ remaining: string | null }>()({
    verdicts: ['fail'],
    text: ({ remaining }) =>
      `the second key was admitted (Remaining ${remaining ?? 'absent'}) while the first key's quota was used up: the quota is per key, not per organization`,
    means: "A second key of the organization was admitted while the first key's quota was used up in the same window.",
    causes: ['a limiter keyed by API key rather than by organization'],
    change: ['key the limiter by organization'],
  }),
  'quota-shared-across-orgs': reason()({
    verdicts: ['fail'],
    text: () =>
      'the other organization was rejected in a fresh window of its own: the quota is shared across organizations',
    means: 'Using up one organization refused another of the same tier: one count for several organizations.',
    causes: ['a limiter keyed by tier or globally rather than by organization'],
    change: ['key the limiter by organization'],
  }),
  'other-org-quota-spent': reason<{ remaining: number; spent: number }>()({
    verdicts: ['fail'],
    text: ({ remaining, spent }) =>
      `other organization admitted with Remaining ${remaining}: ${spent} of its requests were spent by the first organization`,
    means: "The other organization's fresh window showed requests spent that it never sent: the count is shared.",
    causes: [
      'a limiter keyed by tier or globally rather than by organization',
      "another client using the organization's keys",
    ],
    change: ['key the limiter by organization', 'give tiergate organizations no one else uses (config `orgs`)'],
  }),
  'remeasure-budget-spent': reason<{ windowsPerLane: number; lane: string }>()({
    verdicts: ['inconclusive'],
    text: ({ windowsPerLane, lane }) =>
      `not measured again: the budget for measuring again is spent (${windowsPerLane} ${windowsPerLane === 1 ? 'window' : 'windows'} per organization, used on ${lane} already)`,
    means:
      'Each organization may spend only a few windows on measuring spoiled checks again, so the run knows when it ends; this one had spent them.',
    causes: ['several checks of one organization spoiled by window boundaries or the network in one run'],
    change: ['run again at a quieter moment', 'fewer tiers at once (`--tier`) or a nearer vantage point'],
  }),
  'limit-declared-in-config': reason<{ limit: number; announced: number | null }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ limit, announced }) =>
      `${announced !== null && announced !== limit ? `the server announced Limit ${announced}; ` : ''}judged against the ${limit} declared in the config`,
    means:
      "The organization's limits are declared in the config (its own contract): the count, and the Limit header, are judged exactly against the declared figure, not the tier's published one.",
    causes: ['the config declares the figures of a contract of its own (config `orgs[].limits`)'],
    change: ["keep `orgs[].limits` to the figures the organization's contract sells"],
  }),
  'announced-limit-off-published': reason<{ announced: number; published: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ announced, published }) =>
      `the server announced Limit ${announced}; judged against the published ${published}`,
    means:
      'A tier sold at an exact figure is judged against its published figure, whatever Limit the server announces (HDR-LIMIT judges the header).',
    causes: [
      'the organization is on another tier than the config says',
      'the organization has a contract of its own that the config does not declare',
    ],
    change: [
      "declare the organization's own figures (config `orgs[].limits`)",
      'name the right tier (config `orgs[].tier`)',
    ],
  }),
  'inside-window-by-timing': reason<Placement & { requests: number; windowMs: number; uncertaintyMs: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ requests: n, windowMs, uncertaintyMs, ...placement }) =>
      `${placementText(placement)}; by timing, all ${n} requests fell inside the window (length ${windowMs} ms, ${windowOpenedText(placement.placedBy, uncertaintyMs)})`,
    means:
      "No Reset places the series, so the harness's learned window timing does: every request was sent after the window opened and answered before its safe end.",
    causes: [
      'a window the check opened itself',
      'a Reset that moves within a window, or none that is a plausible epoch (HDR-RESET judges it)',
    ],
    change: ["nothing; an epoch Reset (§7.1) lets the server's own word place the series"],
  }),
  'harness-requests-counted-before': reason<HarnessRequests>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) =>
      `${requests(f.requests.length)} of the harness's own (${harnessRequestsText(f)}) counted in this window before the first`,
    means:
      "The harness's own earlier requests counted on this window's quota: the series is judged with them spent (the Limit less them).",
    causes: LEDGER_CAUSES,
    change: LEDGER_CHANGE,
  }),
  'harness-requests-counted-apart': reason<HarnessRequests>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: (f) =>
      `the harness's own ${harnessRequestsText(f)} counted on a counter of its own: the first Remaining shows this one untouched`,
    means:
      "The harness's own earlier requests went to another route, and the series' first Remaining shows its counter untouched: they are not taken off its quota.",
    causes: ['a limiter that counts each route on a counter of its own', ...LEDGER_CAUSES],
    change: LEDGER_CHANGE,
  }),
  'released-together': reason<{ from: number; to: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ from, to }) => `${releasedTogetherText(from, to)}: taken in any order, the rest one at a time`,
    means:
      'These requests of the series were released together, so their order at the server is unknown: they are judged like a burst (each admitted, in any order), and the first 429 where they went one at a time.',
    causes: [
      'a series that cannot fit its share of the window one request at a time (a far server, a large Limit)',
      "a scenario's quota shape `bulk: 'always'`",
    ],
    change: [
      'nothing: the order that decides the verdict goes one at a time',
      'a nearer vantage point (shorter round trips) sends more of the series one at a time',
    ],
  }),
  'cap-refusals-not-counted': reason<{ requests: readonly number[]; remaining: readonly number[] }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ requests: at, remaining }) => {
      const items = at.map((n, i) => `request ${n} (Remaining ${remaining[i]})`);
      const some =
        items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`;
      return `${some} refused with quota left among requests released together: the concurrency cap's refusal, counted for nothing`;
    },
    means:
      "Among requests released together, a 429 with quota left (Remaining above 0) is the concurrency cap's refusal, not the quota's: it counted nothing and is left out of the count.",
    causes: ['more requests in flight at once than the concurrency cap allows (a batch wider than the cap)'],
    change: ['declare the cap the deployment enforces (config `orgs[].limits.concurrency`)'],
  }),
  'first-party-refused-again': reason<{ requestId: number }>()({
    verdicts: ['pass', 'fail'],
    text: ({ requestId }) =>
      `the first party was rejected again right after (429, #${requestId}): its window had not rolled over`,
    means:
      "The first party's request right after the probe was refused too: the used-up window was still in force when the probe was answered.",
    causes: ['the bracket the check sends around its probe'],
    change: ['nothing'],
  }),
} as const;
