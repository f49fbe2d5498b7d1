/**
 * The rate-limit header dialect a run judged, in one line, where it is not §8's: a declared dialect
 * (config `headers`, `run --declare-headers`) is the owner's explicit acceptance of a departure from
 * §8's X-RateLimit-* names, and every reader of the run is told so on the first screen.
 */
import { LIMIT_FIELDS } from '../contract/types.ts';
import type { RunResults } from '../results/types.ts';

/** "ietf judged: the deployment departs from §8's X-RateLimit-* header names by declaration (…)"; null: §8's judged. */
export function declaredDialectText(headers: RunResults['headers']): string | null {
  if (headers === undefined || headers.declared === null || headers.declared === headers.spec) return null;
  const named = LIMIT_FIELDS.flatMap((quotaClass) => {
    const policy = headers.policies[quotaClass];
    return policy === undefined ? [] : [`${quotaClass} "${policy}"`];
  });
  const policies = named.length > 0 ? `; policies by name: ${named.join(', ')}` : '';
  return `${headers.declared} judged: the deployment departs from §8's X-RateLimit-* header names by declaration${policies}`;
}
