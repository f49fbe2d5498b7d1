/**
 * Reasons of the rate-limit headers and the 429 (§4, §7, §8): HDR-PRESENT, HDR-LIMIT, HDR-REMAINING,
 * HDR-RESET, ERR-429-BODY, RETRY-AFTER and HEAD-BOOTSTRAP. A `request` figure is a request's id
 * (`#12`) where the sentence says `#`, and its place in the check's series (`request 12`) otherwise.
 */
import { reason } from './define.ts';

/** Why a header value is no non-negative integer: `is negative`, `has a fraction`, … */
export function whyNotInteger(raw: string): string {
  const value = raw.trim();
  if (/^-\d+$/.test(value)) return 'is negative';
  if (/^-?\d+\.\d+$/.test(value)) return 'has a fraction';
  if (value.includes(',')) return 'is repeated or a list';
  if (value === '') return 'is empty';
  return 'is not an integer';
}

/** A server's value cut to `max` characters for a sentence. */
const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const quoted = (text: string, max: number) => `'${cut(text, max)}'`;

const plural = (n: number, noun: string) => `${n === 1 ? 'one' : String(n)} ${noun}${n === 1 ? '' : 's'}`;
const together = (from: number, to: number) => `requests ${from}–${to} (released together)`;

type RemainingStart = { request: number; first: number; expected: number; limit: number; spent: number };
const startText = ({ request, first, expected, limit, spent }: RemainingStart) =>
  `first admitted response (request ${request}) showed Remaining ${first}, expected ${expected} (Limit ${limit}${spent > 0 ? `, ${spent} spent before` : ''})`;

type RemainingStep = { after: number; from: number; to: number; unclear: number };
const stepText = ({ after, from, to, unclear }: RemainingStep) => {
  const how = to === from ? 'stalled' : to > from ? 'rose' : 'skipped';
  const across = unclear > 0 ? ` across ${plural(unclear, 'unclear request')}` : '';
  return `after request ${after} Remaining went ${from} -> ${to} (${how})${across}`;
};

const STALE_SERVER = 'a deployment whose limiter and headers disagree (a proxy or cache rewriting them)';
const REPORT_IT = 'fix the deployment: the spec leaves no setting in tiergate that makes this pass';

/** Reasons found on the headers of every response, whatever the check. */
const HEADER_VALUE_REASONS = {
  'no-answers-to-judge': reason<{ sent: number }>()({
    verdicts: ['inconclusive'],
    text: ({ sent }) => (sent === 0 ? 'no requests were sent' : `none of ${sent} requests got a response`),
    means: 'No response came back, so there was nothing to judge the headers on.',
    causes: ['the deployment is unreachable from here', 'every request timed out or was reset'],
    change: [
      'check the edges in the config and the network path (`tiergate doctor`)',
      'a longer `timeout` for a distant deployment',
    ],
  }),
  'header-absent-everywhere': reason<{ header: string; responses: number }>()({
    verdicts: ['fail'],
    text: ({ header, responses }) => `none of ${responses} responses carried ${header}`,
    means: 'The header is required on every response (§8), and no response carried it.',
    causes: ['a deployment that does not send the header', 'a proxy that strips it'],
    change: ['send the header on every response, or let the proxy pass it through', REPORT_IT],
  }),
  'header-absent': reason<{ header: string; request: number }>()({
    verdicts: ['fail'],
    text: ({ header, request }) => `${header} absent on #${request}`,
    means: 'A response the check judges lacked a header the spec requires on it.',
    causes: ['a code path of the deployment that does not set the header', 'a proxy that strips it'],
    change: [REPORT_IT],
  }),
  'header-not-integer': reason<{ header: string; raw: string; request: number }>()({
    verdicts: ['fail'],
    text: ({ header, raw, request }) => `${header} ${quoted(raw, 40)} ${whyNotInteger(raw)} (#${request})`,
    means: 'The header must be a non-negative integer; the server sent the value quoted.',
    causes: ['a header repeated by a proxy (a list)', 'a float or signed value from the limiter'],
    change: [REPORT_IT],
  }),
  'headers-not-integer-more': reason<{ header: string; more: number }>()({
    verdicts: ['fail'],
    text: ({ header, more }) => `${more} more non-integer ${header}s`,
    means: 'More responses than listed carried a header value that is no integer.',
    causes: ['as for header-not-integer'],
    change: [REPORT_IT],
  }),
  'header-absent-on-some': reason<{ header: string; responses: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ header, responses }) => `${plural(responses, 'response')} without ${header} (judged by HDR-PRESENT)`,
    means:
      'Some responses lacked the header: this check judges the values the others carry, and HDR-PRESENT judges the absence.',
    causes: [
      'error responses (401, 403, 404) answered before the limiter adds its headers',
      'a code path or a proxy that drops the header',
    ],
    change: ['read HDR-PRESENT of the same run, and send the header on every response (§8)'],
  }),
  'unanswered-ignored': reason<{ requests: number }>()({
    verdicts: ['pass', 'fail'],
    text: ({ requests }) => `${plural(requests, 'request')} without a response ignored`,
    means: 'Some requests got no response; headers are judged on the responses that came back.',
    causes: ['timeouts or resets on the way', 'a deployment that dropped connections under load'],
    change: ['a longer `timeout`', 'check the network path (`tiergate doctor`)'],
  }),
  'rate-limit-headers-missing': reason<{
    missing: number;
    responses: number;
    statuses: readonly number[];
    firstRequests: readonly number[];
  }>()({
    verdicts: ['fail'],
    text: ({ missing, responses, statuses, firstRequests }) =>
      `${missing} of ${responses} responses (statuses ${statuses.join(', ')}) lack rate-limit headers, first #${firstRequests.join(', #')}`,
    means: 'X-RateLimit-Limit, -Remaining and -Reset belong on every response, errors and HEAD included (§8).',
    causes: [
      'error responses (401, 403, 404) answered before the limiter adds its headers',
      'HEAD answered by a layer that drops them',
    ],
    change: ['add the headers on every code path, errors included', REPORT_IT],
  }),
  'dialect-fields-missing': reason<{
    dialect: string;
    fields: readonly string[];
    missing: number;
    responses: number;
    statuses: readonly number[];
    firstRequests: readonly number[];
  }>()({
    verdicts: ['fail'],
    text: ({ dialect, fields, missing, responses, statuses, firstRequests }) =>
      `${missing} of ${responses} responses (statuses ${statuses.join(', ')}) lack ${fields.join(', ')} of the declared ${dialect} fields, first #${firstRequests.join(', #')}`,
    means:
      "The config declares a rate-limit header dialect in place of §8's X-RateLimit-*; its fields, the policy field included, belong on every response, errors and HEAD included.",
    causes: [
      'error responses (401, 403, 404) answered before the limiter adds its fields',
      'a gateway that sends RateLimit but not RateLimit-Policy',
      'a dialect declared that the deployment does not send (`tiergate doctor` names the one it sends)',
    ],
    change: [
      'send every field of the dialect on every code path',
      'declare the dialect the deployment sends (config `headers`)',
    ],
  }),
  'dialect-figure-unreadable': reason<{ field: string; figure: string; raw: string; request: number }>()({
    verdicts: ['fail'],
    text: ({ field, figure, raw, request }) => `${field} ${quoted(raw, 60)} gives no ${figure} (#${request})`,
    means:
      'Under the declared dialect this field carries the figure named, and the value quoted does not give it: a parameter absent or no non-negative integer, a field that is no Structured Field, or a policy the field names that is not announced.',
    causes: ['a field written in another dialect than the one declared', 'a proxy that joins or rewrites the field'],
    change: ['declare the dialect the deployment sends (config `headers`)', REPORT_IT],
  }),
} as const;

/** HDR-LIMIT: the Limit announced against the figure the tier or the config states. */
const LIMIT_REASONS = {
  'limit-varied': reason<{ values: readonly number[]; counts: readonly number[] }>()({
    verdicts: ['fail'],
    text: ({ values, counts }) => `Limit varied: ${values.map((v, i) => `${v} on ${counts[i]}`).join(', ')}`,
    means: "One quota class of one organization announced more than one Limit: one organization's quota is one figure.",
    causes: ['edges or backends configured with different limits', 'a tier change during the run'],
    change: ['give every edge the same limits for the organization', 'run when no tier change is under way'],
  }),
  'limit-off-figure': reason<{ announced: number; responses: number; figure: number; basis: string }>()({
    verdicts: ['fail'],
    text: ({ announced, responses, figure, basis }) =>
      `Limit ${announced} on ${responses} responses (${basis === 'minimum' ? `minimum ${figure}` : basis === 'declared' ? `${figure} declared in the config` : `published ${figure}`})`,
    means:
      "The announced Limit differs from the tier's published figure (Enterprise: is below its minimum), or from the organization's figure declared in the config.",
    causes: [
      'the organization is on another tier than the config says',
      'the organization has a contract of its own that the config does not declare',
    ],
    change: [
      "declare the organization's own figures (config `orgs[].limits`)",
      'name the right tier (config `orgs[].tier`)',
    ],
  }),
  'policy-quota-off-figure': reason<{
    policy: string | null;
    quota: number;
    responses: number;
    figure: number;
    basis: string;
  }>()({
    verdicts: ['fail'],
    text: ({ policy, quota, responses, figure, basis }) =>
      `RateLimit-Policy${policy === null ? '' : ` "${policy}"`} announces q=${quota} on ${responses} responses (${basis === 'minimum' ? `minimum ${figure}` : basis === 'declared' ? `${figure} declared in the config` : `published ${figure}`})`,
    means:
      "The policy announced for the quota a response reports carries a quota (q) other than the tier's figure (Enterprise: below its minimum), or the organization's figure declared in the config.",
    causes: [
      'a policy configured apart from the limiter that enforces the quota',
      'the organization is on another tier, or has figures of its own the config does not declare',
    ],
    change: ["declare the organization's own figures (config `orgs[].limits`)", REPORT_IT],
  }),
  'policy-window-off': reason<{ policy: string | null; windowS: number | null; window: number; responses: number }>()({
    verdicts: ['fail'],
    text: ({ policy, windowS, window, responses }) =>
      `RateLimit-Policy${policy === null ? '' : ` "${policy}"`} announces ${windowS === null ? 'no window (w)' : `w=${windowS}`} on ${responses} responses, not the ${window} s window`,
    means:
      'The policy announced for the quota a response reports must give the window the quota is counted in (w, seconds).',
    causes: ['a policy configured apart from the limiter', 'a window other than the one tiergate was told'],
    change: ['the window the deployment enforces (`--window`, config `window`)', REPORT_IT],
  }),
  'policy-not-announced': reason<{
    limit: number | null;
    announced: readonly number[];
    responses: number;
    request: number;
  }>()({
    verdicts: ['fail'],
    text: ({ limit, announced, responses, request }) =>
      `${responses} responses report a quota${limit === null ? '' : ` of ${limit}`} whose policy RateLimit-Policy does not announce (it announces ${announced.length === 0 ? 'no quota' : `q ${announced.join(', ')}`}), first #${request}`,
    means:
      'The quota a response reports must be one of the policies RateLimit-Policy announces: by its name (ietf), or by its limit (drafts 6 and 7).',
    causes: [
      'a policy announced with another quota than the one enforced',
      'RateLimit naming a policy other than those announced (Cloudflare names "default" and announces "burst")',
    ],
    change: ['announce the policy of every quota reported, under the name RateLimit gives it', REPORT_IT],
  }),
} as const;

/** HDR-REMAINING: the countdown over one window. */
const REMAINING_REASONS = {
  'series-spans-windows': reason<{ requests: number }>()({
    verdicts: ['inconclusive'],
    text: ({ requests }) =>
      `the ${requests} requests did not all fall in one quota window, so their countdown could not be judged`,
    means: 'The countdown is judged within one window; the series crossed a window boundary (measured again).',
    causes: ['a window shorter than the series takes to send', 'long round trips from a distant vantage point'],
    change: ['a longer window (`--window`, config `window`)', 'a nearer vantage point'],
  }),
  'remaining-start-off': reason<RemainingStart>()({
    verdicts: ['fail'],
    text: startText,
    means: 'The first admitted response should show Limit − 1, less what the harness spent before in the window.',
    causes: ["another client spent the organization's quota", 'a Limit that is not the quota enforced'],
    change: ['give tiergate organizations no one else uses (config `orgs`)', 'read HDR-LIMIT of the same tier'],
  }),
  'remaining-start-explained': reason<RemainingStart>()({
    verdicts: ['pass', 'inconclusive'],
    text: (figures) =>
      `${startText(figures)}; but it counts down by one to 0 at the first 429, as the server admitted: the difference lies with the announced Limit (HDR-LIMIT) or with quota spent before this check's first request`,
    means:
      'The first Remaining was off the announced Limit, yet the countdown met the first 429 exactly: Remaining agrees with what the server admitted.',
    causes: ['an announced Limit off the enforced quota', "quota spent before the check's first request"],
    change: ['read HDR-LIMIT of the same tier', 'give tiergate organizations no one else uses (config `orgs`)'],
  }),
  'remaining-start-unannounced': reason<{ request: number; first: number }>()({
    verdicts: ['pass', 'inconclusive'],
    text: ({ request, first }) =>
      `no Limit announced (no RateLimit-Policy for the quota: judged by HDR-PRESENT and HDR-LIMIT); the first admitted response (request ${request}) showed Remaining ${first}, and it counts down by one to 0 at the first 429, as the server admitted`,
    means:
      'Without a policy announced the countdown has no Limit to start from; it met the first 429 exactly, so Remaining agrees with what the server admitted.',
    causes: ['a deployment that sends RateLimit without RateLimit-Policy'],
    change: ['read HDR-PRESENT and HDR-LIMIT of the same run'],
  }),
  'remaining-not-zero-on-429': reason<{ request: number; remaining: number }>()({
    verdicts: ['fail'],
    text: ({ request, remaining }) => `429 at request ${request} showed Remaining ${remaining}, not 0`,
    means: 'A request refused for quota must show Remaining 0 (§8).',
    causes: ['a refusal that is not for this quota (a cap, another limiter)', STALE_SERVER],
    change: [REPORT_IT],
  }),
  'remaining-not-decrementing': reason<RemainingStep>()({
    verdicts: ['fail'],
    text: stepText,
    means: 'Remaining stalled or rose between two admissions in one window: an admission it did not count.',
    causes: [
      'a counter read apart from its decrement',
      'edges with counters of their own',
      'admissions past Remaining 0',
    ],
    change: [REPORT_IT],
  }),
  'remaining-skipped': reason<RemainingStep>()({
    verdicts: ['fail'],
    text: stepText,
    means: 'Remaining fell by more than one per admitted request (and per request of unknown counting).',
    causes: ["another client spending the organization's quota", 'requests counted twice'],
    change: ['give tiergate organizations no one else uses (config `orgs`)', REPORT_IT],
  }),
  'remaining-outside-together': reason<{
    from: number;
    to: number;
    values: readonly number[];
    high: number;
    low: number;
    base: number;
  }>()({
    verdicts: ['fail'],
    text: ({ from, to, values, high, low, base }) =>
      `among ${together(from, to)} Remaining showed ${values.slice(0, 5).join(', ')}${values.length > 5 ? ` and ${values.length - 5} more` : ''}, outside ${high}…${Math.max(low, 0)} (one less per admitted request, in any order, from ${base})`,
    means:
      'Requests released together may be counted in any order, but each takes one value below the count before them.',
    causes: ['a counter that loses or doubles decrements under concurrency'],
    change: [REPORT_IT],
  }),
  'remaining-repeated-together': reason<{ from: number; to: number; repeats: number; example: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ from, to, repeats, example }) =>
      `${plural(repeats, 'value')} of Remaining came again among ${together(from, to)} (e.g. ${example}): the counter is read apart from its decrement under concurrency; §8's Remaining is what remained when read, and the count after them is judged exactly`,
    means: 'Concurrent responses showed the same Remaining: what remained when each read the counter, which §8 allows.',
    causes: ['a limiter that reads the counter and decrements it in two steps'],
    change: ['nothing: the count after the requests released together is judged exactly'],
  }),
  'counting-unknown': reason<{ request: number; outcome: string }>()({
    verdicts: ['inconclusive'],
    text: ({ request, outcome }) => `request ${request}: ${outcome} (may or may not have counted)`,
    means:
      'A request got no answer or an unexpected one, so whether it counted is unknown, and the steps after it are not exact.',
    causes: ['timeouts or resets on the way', 'a server error during the series'],
    change: ['a longer `timeout`', 'check the network path (`tiergate doctor`)'],
  }),
  'remaining-unreadable': reason<{ request: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request }) => `request ${request}: no Remaining header`,
    means:
      'An admitted response carried no Remaining, so the step across it could not be judged (HDR-PRESENT judges the absence).',
    causes: ['a code path of the deployment that does not set the header'],
    change: ['read HDR-PRESENT of the same run'],
  }),
  'no-consistent-limit': reason<{ limits: readonly number[] }>()({
    verdicts: ['inconclusive'],
    text: ({ limits }) =>
      `no consistent Limit${limits.length > 0 ? ` (announced ${limits.join(', ')})` : ''}: the first Remaining could not be checked`,
    means: 'Where the countdown starts is judged by the one Limit the responses agree on, and they agreed on none.',
    causes: ['no integer X-RateLimit-Limit', 'a Limit that varied (read HDR-LIMIT)'],
    change: ['read HDR-LIMIT of the same tier'],
  }),
  'no-admitted-remaining': reason<{ requests: number }>()({
    verdicts: ['inconclusive'],
    text: ({ requests }) => `no admitted response with Remaining among ${requests} requests`,
    means: 'No admitted response carried a Remaining, so there was no countdown to judge.',
    causes: ['every request refused or lost', 'a quota used up before the check began'],
    change: ['give tiergate organizations no one else uses (config `orgs`)', 'check the network path'],
  }),
} as const;

/** HDR-RESET: Reset as epoch seconds, one value per window. */
const RESET_REASONS = {
  'reset-in-milliseconds': reason<{ request: number; reset: number }>()({
    verdicts: ['fail'],
    text: ({ request, reset }) => `request ${request}: Reset ${reset} looks like epoch milliseconds`,
    means: 'Reset must be Unix epoch seconds (§8); this value is in milliseconds.',
    causes: ['a limiter that reports Date.now() based times unconverted'],
    change: [REPORT_IT],
  }),
  'reset-looks-like-delta': reason<{ request: number; reset: number; date: number | null }>()({
    verdicts: ['fail'],
    text: ({ request, reset, date }) =>
      `request ${request}: Reset ${reset} looks like seconds-until-reset, not an epoch${date === null ? '' : ` (Date ${date})`}`,
    means: 'Reset must be Unix epoch seconds (§8); this value is far below any current epoch.',
    causes: ['a limiter that sends the seconds left in the window'],
    change: [REPORT_IT],
  }),
  'reset-before-request': reason<{ request: number; reset: number; date: number; lagS: number }>()({
    verdicts: ['fail'],
    text: ({ request, reset, date, lagS }) =>
      `request ${request}: Reset ${reset} is not after the response's Date ${date} (${date - reset} s in the past, where the answer took ${lagS.toFixed(1)} s): that window had ended before the request`,
    means: "Reset announced a window that had ended before the request, by the server's own Date.",
    causes: ['a stale Reset cached with the window', 'clocks of edges and limiter that disagree'],
    change: ['synchronise the clocks of the deployment', REPORT_IT],
  }),
  'reset-beyond-window': reason<{ request: number; reset: number; date: number; window: number }>()({
    verdicts: ['fail'],
    text: ({ request, reset, date, window }) =>
      `request ${request}: Reset ${reset} is ${reset - date} s after the response's Date ${date}, beyond one ${window} s window`,
    means: 'Reset lies further ahead than one window from Date.',
    causes: ['a window longer than the one tiergate was told', 'clocks that disagree'],
    change: ['the window the deployment enforces (`--window`, config `window`)', 'synchronise the clocks'],
  }),
  'reset-seconds-beyond-window': reason<{ request: number; seconds: number; window: number }>()({
    verdicts: ['fail'],
    text: ({ request, seconds, window }) =>
      `request ${request}: the quota returns in t=${seconds} s, beyond one ${window} s window`,
    means: 'The seconds until the quota returns (t) cannot exceed the window the quota is counted in.',
    causes: ['a window longer than the one tiergate was told', 'a t counted in milliseconds'],
    change: ['the window the deployment enforces (`--window`, config `window`)', REPORT_IT],
  }),
  'reset-quota-not-back': reason<{ request: number; reset: number; date: number }>()({
    verdicts: ['fail'],
    text: ({ request, reset, date }) =>
      `request ${request} was refused at Date ${date}, though the window's responses said the quota returns at ${reset} (Date + t): t said the quota would be back sooner than it was`,
    means:
      'The seconds until the quota returns (t), counted from when the response was answered, must not come before the quota is really back: a refusal sent after the latest that t can mean (a second of rounding either way) shows they did.',
    causes: ['a t computed from another window than the one enforced', 'a t rounded down or cut short'],
    change: [REPORT_IT],
  }),
  'reset-went-back': reason<{
    request: number;
    from: number;
    to: number;
    dateBefore: number | null;
    dateAfter: number | null;
  }>()({
    verdicts: ['fail'],
    text: ({ request, from, to, dateBefore, dateAfter }) =>
      `Reset went back from ${from} to ${to} at request ${request} (Date ${dateBefore} then ${dateAfter})`,
    means: 'Windows only advance: an earlier Reset after a later one means two windows were in force at once.',
    causes: ['edges or backends whose clocks disagree', 'counters kept per edge'],
    change: ['synchronise the clocks of the deployment', 'share one counter between edges'],
  }),
  'reset-moved-mid-window': reason<{ request: number; from: number; to: number }>()({
    verdicts: ['fail'],
    text: ({ request, from, to }) =>
      `Reset changed from ${from} to ${to} at request ${request} with no new window between them (Remaining kept counting down, or the quota stayed used up): the reset moved within a window`,
    means: 'Reset changes only when a new window begins; here Remaining shows no new window.',
    causes: ['a Reset computed as now + window (a sliding value)'],
    change: [REPORT_IT],
  }),
  'reset-moved-early': reason<{ request: number; from: number; to: number; date: number }>()({
    verdicts: ['fail'],
    text: ({ request, from, to, date }) =>
      `Reset changed from ${from} to ${to} at request ${request} at Date ${date}, before the reset ${from} it had announced: the reset moved within a window`,
    means: 'A new window began before the Reset the old one announced had come.',
    causes: ['a window shorter than announced', 'a Reset computed as now + window'],
    change: [REPORT_IT],
  }),
  'reset-unplaceable': reason<{ responses: number }>()({
    verdicts: ['inconclusive'],
    text: ({ responses }) =>
      `none of ${responses} responses carried both a Date header and an integer Reset: without the server clock (Date) a Reset cannot be placed in time`,
    means: "Reset is judged against the server's Date; no response carried both.",
    causes: ['a deployment or proxy that drops the Date header'],
    change: ['send the Date header (RFC 9110 requires it of a server with a clock)'],
  }),
  'reset-within-one-second': reason<{ reset: number; responses: number; date: number | null }>()({
    verdicts: ['inconclusive'],
    text: ({ reset, responses, date }) =>
      `Reset ${reset} over ${responses} responses, all in one second of the server's clock (Date ${date}) or split by new windows: a Reset that moves within a window could not show`,
    means:
      "A Reset that moves with time moves once a second; the responses spanned no second of the server's clock within one window.",
    causes: ['a short series, or windows that rolled over between its responses'],
    change: ['a longer window (`--window`, config `window`)'],
  }),
  'reset-rounding-wobble': reason<{ low: number; high: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ low, high }) =>
      `Reset flipped between ${low} and ${high} and back: one window's end rounded two ways, taken as one window`,
    means:
      "Two Resets a second apart, back and forth, are taken as one window's end rounded two ways, not two windows.",
    causes: ['a Reset computed as ceil(now + time left) from two clock reads'],
    change: ['nothing; to remove the doubt, compute Reset once per window'],
  }),
} as const;

/** ERR-429-BODY: the §7 body of a 429. */
const BODY_REASONS = {
  'body-not-json': reason<{ request: number; contentType: string | null; excerpt: string; bytes: number }>()({
    verdicts: ['fail'],
    text: ({ contentType, excerpt, bytes }) => {
      const type = contentType === null ? 'no Content-Type' : `Content-Type ${cut(contentType, 60)}`;
      return bytes === 0 && excerpt === ''
        ? `body is empty (${type})`
        : `body is not JSON (${type}): ${quoted(excerpt, 80)}`;
    },
    means: 'The body must be JSON (sent with a JSON Content-Type); it was empty or something else.',
    causes: ['a proxy or gateway answering the 429 with its own page', 'JSON sent as text/plain'],
    change: ['answer the 429 from the service with the §7 body and `Content-Type: application/json`'],
  }),
  'rate-limit-body-invalid': reason<{ request: number; issues: readonly string[] }>()({
    verdicts: ['fail'],
    text: ({ request, issues }) =>
      `#${request}: ${issues.slice(0, 3).join('; ')}${issues.length > 3 ? ` and ${issues.length - 3} more` : ''}`,
    means:
      'A 429 body must be {status:"error", code:"RATE_LIMIT_EXCEEDED", message, retry_after_seconds} (§7); the fields named break it.',
    causes: ["a framework's default 429 body", 'a code or field name of another API'],
    change: ['answer the 429 with the §7 body'],
  }),
  'rate-limit-bodies-failing': reason<{ failing: number; total: number }>()({
    verdicts: ['fail'],
    text: ({ failing, total }) => `${failing} of ${total} 429 bodies fail`,
    means: 'How many of the 429 bodies broke §7; the first is described beside.',
    causes: ['as for the first body'],
    change: ['answer every 429 with the §7 body'],
  }),
  'non-429-ignored': reason<{ observations: number }>()({
    verdicts: ['pass', 'fail'],
    text: ({ observations }) => `${plural(observations, 'observation')} other than 429 ignored`,
    means: 'The check judges the bodies of 429s; the other responses it was given are not judged.',
    causes: ["a refusal of another status among the series' refusals (a cap's, a server error)"],
    change: ['nothing: the 429 bodies are judged; read CONCURRENCY-CAP for a refusal of the cap'],
  }),
} as const;

/** RETRY-AFTER: the wait a 429 tells, and whether it is truthful. */
const RETRY_AFTER_REASONS = {
  'retry-after-http-date': reason<{ raw: string }>()({
    verdicts: ['fail'],
    text: ({ raw }) =>
      `Retry-After ${quoted(raw, 60)} is an HTTP-date, not seconds: HTTP allows an HTTP-date in Retry-After, but §7 specifies a number of seconds`,
    means: 'Retry-After must be an integer number of seconds (§7).',
    causes: ['a framework that sends the date the window ends'],
    change: ['send the seconds to wait'],
  }),
  'retry-after-body-missing': reason<{ request: number }>()({
    verdicts: ['fail'],
    text: ({ request }) => `body of #${request} has no integer retry_after_seconds`,
    means:
      "Retry-After is compared with the body's retry_after_seconds, which the body lacks (ERR-429-BODY judges the body).",
    causes: ["a framework's default 429 body"],
    change: ['answer the 429 with the §7 body'],
  }),
  'retry-after-body-mismatch': reason<{ retryAfter: number; body: number }>()({
    verdicts: ['fail'],
    text: ({ retryAfter, body }) => `Retry-After ${retryAfter} but body retry_after_seconds ${body}`,
    means: 'The header and the body tell two different waits.',
    causes: ['the two computed from different clocks or windows'],
    change: ['compute the wait once and send it in both'],
  }),
  'retry-after-disagrees-with-reset': reason<{ retryAfter: number; untilReset: number }>()({
    verdicts: ['fail'],
    text: ({ retryAfter, untilReset }) => `Retry-After ${retryAfter} but Reset is ${untilReset} s after Date`,
    means: "Retry-After should be the time to Reset by the response's own Date, within a second.",
    causes: ['a fixed Retry-After, not the time left in the window'],
    change: ['send the seconds until Reset'],
  }),
  'retry-after-before-reset-seconds': reason<{ retryAfter: number; seconds: number }>()({
    verdicts: ['fail'],
    text: ({ retryAfter, seconds }) =>
      `Retry-After ${retryAfter} is earlier than the quota returns (t=${seconds} s on the same 429)`,
    means:
      'Under the declared dialect Retry-After wins over t, and a client that waits it out must find the quota back: it may not be earlier than t (a second of rounding allowed).',
    causes: ['a fixed Retry-After, not the time left in the window', 'the two computed from different windows'],
    change: ['send the seconds until the quota returns in both'],
  }),
  'reset-seconds-unchecked': reason<{ field: string; raw: string | null }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ field, raw }) =>
      raw === null
        ? `no ${field}: Retry-After not compared with t`
        : `${field} ${quoted(raw, 60)} gives no t: Retry-After not compared with it (HDR-RESET judges it)`,
    means: 'Retry-After is compared with the seconds until the quota returns (t) of the same 429; this one gave none.',
    causes: ['a 429 answered before the limiter adds its fields', 'a t that is absent or no integer'],
    change: ['send the fields of the declared dialect on the 429 too (read HDR-RESET of the same run)'],
  }),
  'reset-agreement-unchecked': reason<{ reset: string | null; date: number | null; windowSeconds: number }>()({
    verdicts: ['pass', 'fail', 'inconclusive'],
    text: ({ reset, date, windowSeconds }) => {
      if (date === null) return 'no Date header: agreement with Reset not checked';
      if (reset === null) return 'no X-RateLimit-Reset: agreement with Reset not checked';
      return `agreement with Reset not checked: Reset ${quoted(reset, 40)} is no epoch seconds within [Date ${date}, Date + ${windowSeconds + 1} s] (HDR-RESET judges it)`;
    },
    means:
      "Retry-After is compared with Reset − Date, by the 429's own Date; without a Date, or without a Reset in epoch seconds near it, the comparison is not made.",
    causes: ['a Reset in milliseconds or seconds-until-reset', 'a deployment or proxy that drops the Date header'],
    change: ['send Reset as epoch seconds and a Date header (read HDR-RESET of the same run)'],
  }),
  'retry-after-untestable': reason<{ raw: string | null }>()({
    verdicts: ['inconclusive'],
    text: () => 'no integer Retry-After to wait out',
    means: 'Whether the wait is truthful needs an integer Retry-After to wait for.',
    causes: ['a Retry-After that is absent or no integer (a failure named beside)'],
    change: ['send Retry-After in seconds'],
  }),
  'no-request-after-wait': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no request was sent after waiting',
    means: 'The request that tests the wait was not sent (the run ended or was stopped first).',
    causes: ['a run stopped while waiting', 'a wait longer than the run allows'],
    change: ['let the run finish'],
  }),
  'wait-unknown': reason()({
    verdicts: ['inconclusive'],
    text: () => 'how long the harness waited is unknown',
    means: 'The times of the 429 or of the request after it were not recorded, so the wait cannot be judged.',
    causes: ['a request that was never timed (lost on the way)'],
    change: ['run again; report it with the run folder if it stays'],
  }),
  'waited-too-little': reason<{ waitedMs: number; retryAfter: number }>()({
    verdicts: ['inconclusive'],
    text: ({ waitedMs, retryAfter }) => `waited only ${Math.round(waitedMs)} ms of the ${retryAfter} s told`,
    means: 'The request after the wait went out before Retry-After had passed, so it tests nothing.',
    causes: ['a wait cut short by the run ending'],
    change: ['let the run finish'],
  }),
  'refused-after-wait': reason<{ retryAfter: number; again: number | null }>()({
    verdicts: ['fail'],
    text: ({ retryAfter, again }) =>
      `waited ${retryAfter} s as told; still 429${again === null ? '' : ` with Retry-After ${again}`}`,
    means: 'A request sent after waiting Retry-After out was refused again: the wait told was not truthful.',
    causes: ['a Retry-After shorter than the window left', 'a window that restarts on each refusal'],
    change: ['send the seconds until the quota is free'],
  }),
  'unexpected-after-wait': reason<{ outcome: string }>()({
    verdicts: ['inconclusive'],
    text: ({ outcome }) => `after waiting, got ${outcome}: neither admitted nor 429`,
    means: 'The request after the wait was neither admitted nor refused, so it tells nothing of the wait.',
    causes: ['a server error or a lost answer'],
    change: ['check the network path and the deployment, and run again'],
  }),
} as const;

/** HEAD-BOOTSTRAP: HEAD's headers, and whether it counts a read (assumption head-bootstrap-free). */
const HEAD_REASONS = {
  'head-unanswered': reason<{ request: number; outcome: string }>()({
    verdicts: ['inconclusive'],
    text: ({ request, outcome }) => `HEAD #${request} got no response (${outcome})`,
    means: 'One of the two HEADs got no answer, so neither its headers nor its cost could be judged.',
    causes: ['a timeout or reset on the way'],
    change: ['a longer `timeout`', 'check the network path (`tiergate doctor`)'],
  }),
  'head-refused-for-quota': reason<{ request: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request }) =>
      `HEAD #${request} was refused: the read quota was used up; measured again in a fresh window where the budget allows`,
    means:
      'A HEAD that counts is refused like any read once the quota is used up (§8): no fault, and nothing to judge.',
    causes: ["other checks or clients spent the window's read quota"],
    change: ['give tiergate organizations no one else uses (config `orgs`)'],
  }),
  'head-not-success': reason<{ request: number; status: number }>()({
    verdicts: ['fail'],
    text: ({ request, status }) => `HEAD #${request} answered ${status}, not a success`,
    means: 'HEAD /recruiter/bootstrap must answer 2xx (§4).',
    causes: ['HEAD not routed (405)', 'a key without access to the endpoint'],
    change: ['route HEAD /recruiter/bootstrap', 'check the key in config `orgs[].keys`'],
  }),
  'head-has-body': reason<{ request: number; bytes: number }>()({
    verdicts: ['fail'],
    text: ({ request, bytes }) => `HEAD #${request} carried a ${bytes}-byte body`,
    means: 'A HEAD response has no body.',
    causes: ['a server that answers HEAD like GET'],
    change: [REPORT_IT],
  }),
  'head-placed-by-remaining': reason<{ before: number; after: number; limit: number }>()({
    verdicts: ['pass'],
    text: ({ before, after, limit }) =>
      `the HEADs could not be placed by Reset or Date; an unchanged Remaining (${before} then ${after}) below Limit − 1 (${limit - 1}) shows one window and no quota used`,
    means:
      'Without Reset or Date to place them, the HEADs are placed in one window by Remaining: a rollover raises it.',
    causes: ['a Reset that is no epoch, or no Date header'],
    change: ['send Reset as epoch seconds and a Date header (HDR-RESET)'],
  }),
  'head-windows-unplaceable': reason<{
    before: number;
    after: number;
    resetBefore: string | null;
    resetAfter: string | null;
    dateBefore: string | null;
    dateAfter: string | null;
  }>()({
    verdicts: ['inconclusive'],
    text: ({ before, after, resetBefore, resetAfter, dateBefore, dateAfter }) =>
      `Remaining ${before} then ${after}, but the two HEADs cannot be placed in one window (Reset ${resetBefore} then ${resetAfter}; Date ${dateBefore ?? 'absent'} then ${dateAfter ?? 'absent'})`,
    means: 'Whether a HEAD counts is read off two HEADs in one window; these could not be shown to share one.',
    causes: ['a window that rolled over between them', 'a Reset that is no epoch and a Date near a boundary'],
    change: ['nothing if a later run decides it; send Reset as epoch seconds to place them always'],
  }),
  'head-costs-several-reads': reason<{ before: number; after: number }>()({
    verdicts: ['fail'],
    text: ({ before, after }) =>
      `Remaining fell from ${before} to ${after}: one HEAD consumed ${before - after} read requests`,
    means: 'A HEAD may cost at most one read, however the deployment declares it.',
    causes: ['HEAD run through the full GET handler and counted twice', 'other clients reading in the window'],
    change: ['give tiergate organizations no one else uses (config `orgs`)', REPORT_IT],
  }),
  'head-counted-though-declared-free': reason<{ before: number; after: number }>()({
    verdicts: ['fail'],
    text: ({ before, after }) =>
      `Remaining fell from ${before} to ${after}: HEAD consumed a read request, though the config declares "assumptions": {"head-bootstrap-free": true}`,
    means:
      "The deployment declares HEAD free, and a HEAD counted a read: it breaks the deployment's own declared behaviour.",
    causes: ['a limiter that counts every request, HEAD included'],
    change: [
      'exempt HEAD /recruiter/bootstrap from the quota',
      'or declare `"assumptions": {"head-bootstrap-free": false}` in the config',
    ],
  }),
  'head-counts-as-read': reason<{ before: number; after: number }>()({
    verdicts: ['pass'],
    text: ({ before, after }) =>
      `assumption, not spec: HEAD counts as one read (Remaining ${before} then ${after}), so assumption head-bootstrap-free does not hold here. §4 gives HEAD /recruiter/bootstrap no counting rule, so this is no fault; every check counted the harness's own HEADs in its ledger`,
    means: 'HEAD counted one read. The spec names no counting rule for it, so the pass rests on that reading.',
    causes: ['a limiter that counts every request, HEAD included'],
    change: [
      'to require HEAD to be free, declare `"assumptions": {"head-bootstrap-free": true}` in the config',
      'to record that it counts, declare false',
    ],
  }),
} as const;

export const HEADERS_REASONS = {
  ...HEADER_VALUE_REASONS,
  ...LIMIT_REASONS,
  ...REMAINING_REASONS,
  ...RESET_REASONS,
  ...BODY_REASONS,
  ...RETRY_AFTER_REASONS,
  ...HEAD_REASONS,
} as const;
