/**
 * Reasons of access, scopes, the concurrency cap and load thresholds: AUTH-*, SCOPE-*,
 * CONCURRENCY-CAP and LOAD-THRESHOLDS.
 */
import { reason } from './define.ts';
import { CONCURRENCY_CAP_REASONS } from './concurrency-cap.ts';
import { countOf, positions } from '../../util/phrases.ts';

/** Which key of a scope pair a request carried. */
export type ScopeKey = 'lacking' | 'holding';

/** How a scope pair's endpoint is named: "GET /recruiter/jobs". */
type Endpoint = { method: string; path: string; scope: string };

const KEY_REASONS = {
  'no-keys-configured': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no keys were configured',
    means: 'AUTH-KEY-FORMAT judges the keys the config names, and it names none.',
    causes: ['organizations without keys in the config'],
    change: ['give each organization its keys (config `orgs[].keys`)'],
  }),
  'key-prefix-unknown': reason<{ label: string; key: string; prefixes: readonly string[] }>()({
    verdicts: ['fail'],
    text: ({ label, key, prefixes }) => `${label} (${key}): no known prefix (${prefixes.join(', ')})`,
    means: 'A configured key starts with none of the prefixes the contract gives keys (live or test).',
    causes: ['a key of another service or environment in the variable', 'a variable holding something else'],
    change: ['point `orgs[].keys` at the variable holding the organization’s API key'],
  }),
  'key-body-mismatch': reason<{
    label: string;
    key: string;
    prefix: string;
    length: number;
    pattern: string;
    nonAlphanumeric: boolean;
  }>()({
    verdicts: ['fail'],
    text: ({ label, key, prefix, length, pattern, nonAlphanumeric }) =>
      `${label} (${key}): the ${length} characters after ${prefix} do not match ${pattern}${nonAlphanumeric ? ', with non-alphanumeric characters' : ''}`,
    means: 'A configured key has a known prefix, but what follows it is not of the contract’s length or alphabet.',
    causes: ['a key cut short or with a line end when copied', 'quotes or spaces kept in the variable'],
    change: ['set the variable named in `orgs[].keys` to the whole key, nothing around it'],
  }),
} as const;

const AUTH_REASONS = {
  'no-bad-key-requests': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no requests were sent',
    means: 'The check sends requests with a missing, malformed, unknown or revoked key, and none was sent.',
    causes: ['the run stopped before the access task', 'no revoked key was had (revocation trials that did not run)'],
    change: ['let the run reach the access task; for AUTH-REVOKED, give `revocation.hook` in the config'],
  }),
  'bad-key-admitted': reason<{
    admitted: number;
    sent: number;
    statuses: readonly number[];
    requests: readonly number[];
  }>()({
    verdicts: ['fail'],
    text: ({ admitted, sent, statuses, requests }) =>
      `${admitted} of ${sent} requests with a bad key admitted (${statuses.join(', ')}): ${positions(requests)}`,
    means: 'The deployment served a request whose key was missing, malformed, unknown or revoked.',
    causes: ['an endpoint outside the authentication middleware', 'a cache answering before the key is checked'],
    change: ['fix the deployment: every endpoint must check the key before serving'],
  }),
  'bad-key-wrong-status': reason<{
    rejected: number;
    expected: number;
    statuses: readonly number[];
    requests: readonly number[];
  }>()({
    verdicts: ['fail'],
    text: ({ rejected, expected, statuses, requests }) =>
      `${countOf(rejected, 'request')} with a bad key rejected with ${statuses.join(', ')} instead of ${expected}: ${positions(requests)}`,
    means: 'A request with a bad key was refused, but not with the status the contract assumes (auth-status).',
    causes: ['a gateway answering 403 or 404 for an unknown key', 'a contract assuming another status'],
    change: ['answer 401 for a bad key, or declare the status the deployment uses in the contract (auth-status)'],
  }),
  'auth-probe-unanswered': reason<{ unanswered: number; requests: readonly number[] }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ unanswered, requests }) =>
      `${countOf(unanswered, 'request')} got no response (${positions(requests)}): a request without a response proves nothing about rejection`,
    means: 'Some requests with a bad key got no answer, so whether they were rejected is unknown.',
    causes: ['a lossy network or a deployment under load', 'a timeout shorter than the deployment answers in'],
    change: ['a longer `--timeout` (config `timeout`)', 'a nearer vantage point'],
  }),
  'auth-probe-rate-limited': reason<{ limited: number; requests: readonly number[] }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ limited, requests }) =>
      `${countOf(limited, 'request')} rate-limited (429) before the key was judged (${positions(requests)}): a 429 proves nothing about rejection`,
    means: 'The rate limiter answered before the key was judged, so whether it would have been rejected is unknown.',
    causes: ['a limiter in front of authentication, counting per address', 'the read quota spent by other checks'],
    change: ['give the access task an organization no one else spends (config `orgs`)', 'a longer window (`--window`)'],
  }),
} as const;

const SCOPE_LIST_REASONS = {
  'scope-list-unanswered': reason<{ request: number; error: string }>()({
    verdicts: ['inconclusive'],
    text: ({ request, error }) => `no response to the scope listing (#${request}, ${error})`,
    means: 'The scope listing got no answer to judge.',
    causes: ['a lossy network', 'a timeout shorter than the deployment answers in'],
    change: ['a longer `--timeout` (config `timeout`)', 'a nearer vantage point'],
  }),
  'scope-list-rate-limited': reason<{ request: number }>()({
    verdicts: ['inconclusive'],
    text: ({ request }) => `rate-limited (429, #${request}): the listing could not be read`,
    means: 'The scope listing was refused by the rate limiter, so its body could not be judged.',
    causes: ['the read quota spent by other checks or another client'],
    change: ['give the run organizations no one else uses (config `orgs`)', 'a longer window (`--window`)'],
  }),
  'scope-list-status': reason<{ status: number; request: number }>()({
    verdicts: ['fail'],
    text: ({ status }) => `${status} instead of 200`,
    means: 'GET /recruiter/settings/services-api-scopes did not answer 200 to a key holding every scope.',
    causes: ['the endpoint missing on the deployment', 'the primary key lacking a scope'],
    change: ['serve the scope listing; give `orgs[].keys.primary` a key holding every scope'],
  }),
  'scope-list-not-json': reason<{ contentType: string | null; bodyBytes: number; excerpt: string }>()({
    verdicts: ['fail'],
    text: ({ contentType, bodyBytes, excerpt }) => {
      const type = contentType === null ? 'no Content-Type' : `Content-Type ${contentType}`;
      return bodyBytes === 0 && excerpt === '' ? `body is empty (${type})` : `body is not JSON (${type}): '${excerpt}'`;
    },
    means: 'The scope listing’s body was not read as JSON: empty, not JSON, or JSON under another Content-Type.',
    causes: ['an error page from a proxy', 'a JSON body sent as text/plain'],
    change: ['answer with Content-Type application/json and the §2 envelope'],
  }),
  'scope-list-shape': reason<{ paths: readonly string[]; messages: readonly string[] }>()({
    verdicts: ['fail'],
    text: ({ paths, messages }) =>
      `body does not match the scope list: ${paths.map((path, i) => `${path}: ${messages[i]}`).join('; ')}`,
    means: 'The listing is JSON, but not {status:"success", data:[{scope, description}]}; the paths say where.',
    causes: ['another envelope than the contract’s', 'entries without a description'],
    change: ['answer with the envelope the contract gives (docs/contract.md)'],
  }),
  'unknown-scope-names': reason<{ names: readonly string[] }>()({
    verdicts: ['fail'],
    text: ({ names }) => `unknown scope names: ${names.map((n) => `'${n}'`).join(', ')}`,
    means: 'The listing names scopes the contract does not have.',
    causes: ['scopes renamed or added on the deployment'],
    change: ['name only the contract’s scopes (docs/contract.md), or bring the contract up to date'],
  }),
  'scope-list-empty': reason()({
    verdicts: ['pass', 'fail'],
    text: () => 'the organization may grant no scopes (empty list)',
    means: 'The listing is well formed and empty: no scope to call anything with.',
    causes: ['an organization with no scopes granted'],
    change: ['grant the organization of `orgs` its scopes if it should have them'],
  }),
  'scope-listed-twice': reason<{ names: readonly string[] }>()({
    verdicts: ['pass', 'fail'],
    text: ({ names }) => `listed more than once: ${names.join(', ')}`,
    means: 'The listing names a scope more than once; harmless to the check, worth a look.',
    causes: ['a join that repeats rows on the deployment'],
    change: ['list each scope once'],
  }),
} as const;

const SCOPE_ENFORCED_REASONS = {
  'no-endpoints-exercised': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no endpoints were exercised',
    means: 'SCOPE-ENFORCED calls each endpoint with and without its scope, and none was called.',
    causes: ['the run stopped before the access task'],
    change: ['let the run reach the access task'],
  }),
  'scope-not-enforced': reason<Endpoint & { status: number; request: number }>()({
    verdicts: ['fail'],
    text: ({ method, path, scope, status }) => `${method} ${path} admitted a key lacking ${scope} (${status})`,
    means: 'An endpoint served a key that does not hold the scope the contract requires for it.',
    causes: ['an endpoint without its scope check', 'a scope mapped to the wrong endpoint'],
    change: ['check the scope on that endpoint; `orgs[].keys.unscoped` must hold no scope'],
  }),
  'scope-refusal-status': reason<Endpoint & { status: number; expected: number; request: number }>()({
    verdicts: ['fail'],
    text: ({ method, path, scope, status, expected }) =>
      `${method} ${path} answered ${status} instead of ${expected} to a key lacking ${scope} (${status})`,
    means: 'An endpoint refused a key lacking its scope, but not with the status the contract assumes (scope-status).',
    causes: ['a 401 or 404 for a missing scope', 'a contract assuming another status'],
    change: ['answer 403 for a missing scope, or declare the status the deployment uses (scope-status)'],
  }),
  'scoped-key-rejected': reason<Endpoint & { status: number; request: number }>()({
    verdicts: ['fail'],
    text: ({ method, path, scope, status }) => `${method} ${path} rejected a key holding ${scope} (${status})`,
    means: 'An endpoint refused the key holding its scope at the authentication or authorization step.',
    causes: ['an endpoint requiring another scope than the contract’s', 'a primary key lacking a scope'],
    change: ['give `orgs[].keys.primary` a key holding every scope; check the endpoint’s scope'],
  }),
  'scope-probe-missing': reason<Endpoint & { key: ScopeKey }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ method, path, scope, key }) => `${method} ${path}: no request with a key ${key} ${scope}`,
    means: 'One side of an endpoint’s pair (the key lacking its scope, or holding it) was never sent.',
    causes: ['the run stopped during the access task'],
    change: ['let the run finish the access task'],
  }),
  'scope-probe-unanswered': reason<Endpoint & { key: ScopeKey; error: string; request: number }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ method, path, scope, key, error }) =>
      `${method} ${path}: no response to the key ${key} ${scope} (${error})`,
    means: 'A request of an endpoint’s pair got no answer, so whether the scope is enforced there is unknown.',
    causes: ['a lossy network', 'a timeout shorter than the deployment answers in'],
    change: ['a longer `--timeout` (config `timeout`)', 'a nearer vantage point'],
  }),
  'scope-probe-rate-limited': reason<Endpoint & { key: ScopeKey; request: number }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ method, path, scope, key }) => `${method} ${path}: 429 to the key ${key} ${scope}`,
    means: 'The rate limiter answered a request of an endpoint’s pair before its scope was judged.',
    causes: ['the quota of that endpoint spent by other checks or another client'],
    change: ['give the run organizations no one else uses (config `orgs`)', 'a longer window (`--window`)'],
  }),
} as const;

const LOAD_REASONS = {
  'window-over-limit': reason<{ org: string; windowEnd: string; admitted: number; limit: number }>()({
    verdicts: ['fail'],
    text: ({ org, windowEnd, admitted, limit }) =>
      `${org}, window ending ${windowEnd}: ${admitted} admitted, over Limit ${limit}`,
    means: 'Under sustained load, one quota window of an organization admitted more requests than its Limit.',
    causes: ['a limiter that counts after admitting (a race)', 'edges counting apart', 'an off-by-one in the limiter'],
    change: ['fix the limiter; if the figure is the organization’s own, declare it (config `orgs[].limits`)'],
  }),
  'refused-with-remaining': reason<{ org: string; windowEnd: string; refused: number }>()({
    verdicts: ['fail'],
    text: ({ org, windowEnd, refused }) =>
      `${org}, window ending ${windowEnd}: ${countOf(refused, '429')} said Remaining > 0`,
    means: 'A 429 under load announced quota left: the refusal and the headers disagree.',
    causes: ['headers computed apart from the decision', 'edges counting apart'],
    change: ['compute X-RateLimit-Remaining from the same count the limiter decides by'],
  }),
  'refused-before-quota-used': reason<{
    org: string;
    windowEnd: string;
    admitted: number;
    limit: number | null;
    lowestRemaining: number | null;
  }>()({
    verdicts: ['fail'],
    text: ({ org, windowEnd, admitted, limit, lowestRemaining }) =>
      `${org}, window ending ${windowEnd}: 429 before the quota was used up: ${
        lowestRemaining !== null
          ? `Remaining never reached 0 (lowest ${lowestRemaining})`
          : `${admitted} of Limit ${limit} admitted`
      }`,
    means: 'Under sustained load a window refused requests while it still had quota left.',
    causes: ['a limiter smaller than announced', 'a burst or concurrency limit counted as the quota'],
    change: ['fix the limiter, or declare the figure it enforces (config `orgs[].limits`)'],
  }),
  'no-load-responses': reason()({
    verdicts: ['inconclusive'],
    text: () => 'no response was received under load',
    means: 'The load phases got no answer to judge.',
    causes: ['the deployment down or unreachable', 'a timeout shorter than it answers in'],
    change: ['check `target.edges`; a longer `--timeout` (config `timeout`)'],
  }),
  'no-window-placement': reason<{ responses: number }>()({
    verdicts: ['inconclusive'],
    text: ({ responses }) =>
      `none of ${countOf(responses, 'response')} could be placed in a quota window (no plausible X-RateLimit-Reset or Date)`,
    means: 'Each response is counted in the quota window its Reset (or Date) names; none named one.',
    causes: ['a deployment without X-RateLimit-Reset', 'a Reset in another unit than epoch seconds'],
    change: ['send X-RateLimit-Reset as epoch seconds; check the window (`--window`, config `window`)'],
  }),
  'window-without-limit': reason<{ windows: number }>()({
    verdicts: ['inconclusive'],
    text: ({ windows }) =>
      `${countOf(windows, 'window')} had no Limit to hold admissions to (no X-RateLimit-Limit announced, and the figure a minimum)`,
    means: 'A window’s admissions are held to an exact figure or the announced Limit, and these had neither.',
    causes: ['an Enterprise organization whose limit is a minimum and no X-RateLimit-Limit announced'],
    change: ['declare the organization’s figure (config `orgs[].limits.read`)'],
  }),
  'responses-unplaced': reason<{ unplaced: number }>()({
    verdicts: ['inconclusive', 'fail'],
    text: ({ unplaced }) =>
      `${countOf(unplaced, 'response')} could not be placed in a window and were not counted per window`,
    means: 'Some responses named no plausible window (X-RateLimit-Reset or Date), so no window’s count is complete.',
    causes: ['responses without rate-limit headers (errors, a gateway’s answers)'],
    change: ['send X-RateLimit-Reset on every answer; check the window (`--window`, config `window`)'],
  }),
  'threshold-failed': reason<{ threshold: string; observed: number; samples: number }>()({
    verdicts: ['fail'],
    text: ({ threshold, observed, samples }) => `threshold ${threshold} failed: ${observed} over ${samples} samples`,
    means: 'A k6-syntax threshold of the scenario did not hold over the whole run (every runner merged).',
    causes: ['a deployment slower under load than the threshold allows', 'latency measured from afar'],
    change: ['fix the deployment, or change the scenario’s `load.thresholds`', 'run the load beside the deployment'],
  }),
  'threshold-no-data': reason<{ thresholds: readonly string[] }>()({
    verdicts: ['inconclusive'],
    text: ({ thresholds }) => `no data for ${thresholds.join('; ')}: not evaluated, so not passed`,
    means: 'No response matched a threshold’s tags, so it was not evaluated.',
    causes: ['a threshold on 429s in a scenario with no over-quota phase', 'a tag that matches nothing'],
    change: ['give the scenario a phase that produces what the threshold measures, or drop the threshold'],
  }),
} as const;

export const ACCESS_REASONS = {
  ...KEY_REASONS,
  ...AUTH_REASONS,
  ...SCOPE_LIST_REASONS,
  ...SCOPE_ENFORCED_REASONS,
  ...CONCURRENCY_CAP_REASONS,
  ...LOAD_REASONS,
} as const;
