/**
 * AUTH-MISSING / AUTH-MALFORMED / AUTH-UNKNOWN / AUTH-REVOKED (§5.1, §5.3, §5.9): every request
 * with a missing, malformed, unknown or revoked key is rejected with the expected status
 * (401 by the `auth-status` assumption).
 */
import type { Observation } from '../observe/observation.ts';
import { countOf, describe, finding, isAdmitted, listSome } from './finding.ts';
import type { Finding } from './types.ts';

export function authRejected(obs: readonly Observation[], expectedStatus: number): Finding {
  const expected = `${expectedStatus} on every request (${countOf(obs.length, 'request')})`;
  if (obs.length === 0) {
    return finding('inconclusive', { expected, actual: 'no requests were sent', notes: ['nothing to judge'] });
  }

  const admitted = obs.filter(isAdmitted);
  const wrong = obs.filter((o) => o.status !== null && !isAdmitted(o) && o.status !== expectedStatus);
  const transport = obs.filter((o) => o.status === null);
  const rejected = obs.filter((o) => o.status === expectedStatus);

  const problems = [
    ...admitted.map((o) => `admitted: ${describe(o)}`),
    ...wrong.map((o) => `${o.status} instead of ${expectedStatus}: ${describe(o)}`),
  ];
  const notes = transport.length > 0 ? [`${countOf(transport.length, 'request')} got no response`] : [];
  const tally = `${expectedStatus} on ${rejected.length} of ${obs.length}`;

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: `${tally}; ${listSome(problems)}`,
      evidence: [...admitted, ...wrong].slice(0, 5).map((o) => o.id),
      notes,
    });
  }
  if (transport.length > 0) {
    return finding('inconclusive', {
      expected,
      actual: `${tally}; ${listSome(transport.map(describe))}`,
      evidence: transport.slice(0, 5).map((o) => o.id),
      notes: [...notes, 'a request without a response proves nothing about rejection'],
    });
  }
  return finding('pass', { expected, actual: `${expectedStatus} on all ${obs.length}`, evidence: obs.slice(0, 5).map((o) => o.id) });
}
