/**
 * AUTH-MISSING / AUTH-MALFORMED / AUTH-UNKNOWN / AUTH-REVOKED (§5.1, §5.3, §5.9): every request
 * with a missing, malformed, unknown or revoked key is rejected with the expected status
 * (401 by the `auth-status` assumption).
 */
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, countOf, describe, finding, isAdmitted, listSome, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

/** `data` of AUTH-MISSING, -MALFORMED, -UNKNOWN and -REVOKED: the status expected, the requests sent, and those rejected with it. */
export type AuthRejectedData = { readonly expectedStatus: number; readonly sent: number; readonly rejected: number };

export function authRejected(obs: readonly Observation[], expectedStatus: number): Finding<AuthRejectedData> {
  const expected = `${expectedStatus} on every request (${countOf(obs.length, 'request')})`;
  const rejected = obs.filter((o) => o.status === expectedStatus);
  const data: AuthRejectedData = { expectedStatus, sent: obs.length, rejected: rejected.length };
  if (obs.length === 0) {
    const none = because('no-bad-key-requests', {});
    return finding('inconclusive', { expected, actual: reasonText(none), reasons: [none], data });
  }

  const admitted = obs.filter(isAdmitted);
  // A 429 means the rate limiter answered before the key was judged: it proves nothing either way.
  const limited = obs.filter((o) => o.status === TOO_MANY_REQUESTS && expectedStatus !== TOO_MANY_REQUESTS);
  const wrong = obs.filter(
    (o) => o.status !== null && !isAdmitted(o) && o.status !== expectedStatus && !limited.includes(o),
  );
  const transport = obs.filter((o) => o.status === null);
  const unclear = [...transport, ...limited].sort((a, b) => a.id - b.id);

  const problems = [
    ...admitted.map((o) => `admitted: ${describe(o)}`),
    ...wrong.map((o) => `${o.status} instead of ${expectedStatus}: ${describe(o)}`),
  ];
  const unclearReasons: Reason[] = [
    ...(transport.length > 0
      ? [because('auth-probe-unanswered', { unanswered: transport.length, requests: firstIds(transport) })]
      : []),
    ...(limited.length > 0
      ? [because('auth-probe-rate-limited', { limited: limited.length, requests: firstIds(limited) })]
      : []),
  ];
  const tally = `${expectedStatus} on ${rejected.length} of ${obs.length}`;

  if (problems.length > 0) {
    return finding('fail', {
      expected,
      actual: `${tally}; ${listSome(problems)}`,
      evidence: [...admitted, ...wrong].slice(0, 5).map((o) => o.id),
      reasons: atLeastOne([
        ...(admitted.length > 0
          ? [
              because('bad-key-admitted', {
                admitted: admitted.length,
                sent: obs.length,
                statuses: statusesOf(admitted),
                requests: firstIds(admitted),
              }),
            ]
          : []),
        ...(wrong.length > 0
          ? [
              because('bad-key-wrong-status', {
                rejected: wrong.length,
                expected: expectedStatus,
                statuses: statusesOf(wrong),
                requests: firstIds(wrong),
              }),
            ]
          : []),
        ...unclearReasons,
      ]),
      data,
    });
  }
  if (unclear.length > 0) {
    return finding('inconclusive', {
      expected,
      actual: `${tally}; ${listSome(unclear.map(describe))}`,
      evidence: unclear.slice(0, 5).map((o) => o.id),
      reasons: atLeastOne(unclearReasons),
      data,
    });
  }
  return finding('pass', {
    expected,
    actual: `${expectedStatus} on all ${obs.length}`,
    evidence: obs.slice(0, 5).map((o) => o.id),
    data,
  });
}

/** The positions a reason cites: the first five, as the evidence does. */
const firstIds = (list: readonly Observation[]): number[] => list.slice(0, 5).map((o) => o.id);

/** The distinct statuses of `list`, in order of first appearance. */
const statusesOf = (list: readonly Observation[]): number[] => [
  ...new Set(list.map((o) => o.status).filter((s): s is number => s !== null)),
];
