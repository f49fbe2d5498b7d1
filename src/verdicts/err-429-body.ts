/**
 * ERR-429-BODY (§2, §7): every 429 body is `{status:"error", code:"RATE_LIMIT_EXCEEDED",
 * message: string, retry_after_seconds: integer}`.
 */
import { rateLimitErrorBody } from '../contract/error-body.ts';
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  bodyNotJson,
  describeIssues,
  finding,
  listSome,
  notJson,
  atLeastOne,
} from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, type Reason } from '../catalogue/reasons/index.ts';

/** `data` of ERR-429-BODY: how many 429 bodies fail of how many, and the first failing one's issues. */
export type RateLimitBodyData = {
  readonly failing: number;
  readonly total: number;
  readonly issues?: readonly string[];
};

export function rateLimitBodyVerdict(obs429: readonly Observation[]): Finding<RateLimitBodyData> {
  const expected =
    'every 429 body is {status:"error", code:"RATE_LIMIT_EXCEEDED", message: string, retry_after_seconds: integer}';
  const rejected = obs429.filter((o) => o.status === TOO_MANY_REQUESTS);
  const others = obs429.length - rejected.length;
  const ignored = others > 0 ? [because('non-429-ignored', { observations: others })] : [];
  if (rejected.length === 0) {
    return finding('inconclusive', {
      expected,
      actual: 'no 429 to judge',
      reasons: [because('never-refused', { sent: obs429.length })],
    });
  }

  const failing: { o: Observation; issues: string[] }[] = [];
  for (const o of rejected) {
    if (o.body === null) {
      failing.push({ o, issues: [notJson(o)] });
      continue;
    }
    const parsed = rateLimitErrorBody.safeParse(o.body);
    if (!parsed.success) failing.push({ o, issues: describeIssues(parsed.error) });
  }

  const [first] = failing;
  if (first !== undefined) {
    const reasons: Reason[] = [
      first.o.body === null
        ? because('body-not-json', bodyNotJson(first.o))
        : because('rate-limit-body-invalid', { request: first.o.id, issues: first.issues }),
    ];
    const more = failing.length > 1 ? ` (${failing.length} of ${rejected.length} bodies fail)` : '';
    if (failing.length > 1) {
      reasons.push(because('rate-limit-bodies-failing', { failing: failing.length, total: rejected.length }));
    }
    return finding('fail', {
      expected,
      actual: `#${first.o.id}: ${listSome(first.issues, 4)}${more}`,
      evidence: failing.slice(0, 3).map(({ o }) => o.id),
      reasons: atLeastOne([...reasons, ...ignored]),
      data: { failing: failing.length, total: rejected.length, issues: first.issues },
    });
  }
  return finding('pass', {
    expected,
    actual: rejected.length === 1 ? 'the 429 body matches' : `all ${rejected.length} 429 bodies match`,
    evidence: rejected.slice(0, 3).map((o) => o.id),
    reasons: ignored,
    data: { failing: 0, total: rejected.length },
  });
}
