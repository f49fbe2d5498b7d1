/**
 * AUTH-MISSING / AUTH-MALFORMED / AUTH-UNKNOWN / AUTH-REVOKED (§5.1, §5.3, §5.9): every request
 * with a missing, malformed, unknown or revoked key is rejected with the expected status
 * (401 by the `auth-status` assumption).
 */
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, countOf, describe, finding, isAdmitted, listSome } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';

export function authRejected(obs: readonly Observation[], expectedStatus: number): Finding {
  const expected = `${expectedStatus} on every request (${countOf(obs.length, 'request')})`;
  if (obs.length === 0) {
    return finding('inconclusive', { expected, actual: 'no requests were sent', notes: ['nothing to judge'] });
  }

  const admitted = obs.filter(isAdmitted);
  // A 429 means the rate limiter answered before the key was judged: it proves nothing either way.
  const limited = obs.filter((o) => o.status === TOO_MANY_REQUESTS && expectedStatus !== TOO_MANY_REQUESTS);
  const wrong = obs.filter(
    (o) => o.status !== null && !isAdmitted(o) && o.status !== expectedStatus && !limited.includes(o),
  );
  const transport = obs.filter((o) => o.status === null);
  const unclear = [...transport, ...limited].sort((a, b) => a.id - b.id);
  const rejected = obs.filter((o) => o.status === expectedStatus);

  const problems = [
    ...admitted.map((o) => `admitted: ${describe(o)}`),
    ...wrong.map((o) => `${o.status} instead of ${expectedStatus}: ${describe(o)}`),
  ];
  const notes = [
    ...(transport.length > 0 ? [`${countOf(transport.length, 'request')} got no response`] : []),
    ...(limited.length > 0
      ? [`${countOf(limited.length, 'request')} rate-limited (429) before the key was judged`]
      : []),
  ];
  const tally = `${expectedStatus} on ${rejected.length} of ${obs.length}`;

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: `${tally}; ${listSome(problems)}`,
      evidence: [...admitted, ...wrong].slice(0, 5).map((o) => o.id),
      notes,
    });
  }
  if (unclear.length > 0) {
    return finding('inconclusive', {
      expected,
      actual: `${tally}; ${listSome(unclear.map(describe))}`,
      evidence: unclear.slice(0, 5).map((o) => o.id),
      notes: [...notes, 'a request without a response, or rate-limited, proves nothing about rejection'],
    });
  }
  return finding('pass', {
    expected,
    actual: `${expectedStatus} on all ${obs.length}`,
    evidence: obs.slice(0, 5).map((o) => o.id),
  });
}
