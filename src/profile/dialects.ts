/**
 * Which rate-limit dialects a deployment sends, from the discovery's answers read whole
 * (contract/rate-limit-sent.ts): the dialects and fields seen, the policies announced, and where
 * X-RateLimit-* is sent beside another dialect, whether they told the same state on every answer
 * that carried both. Pure.
 */
import { RATE_LIMIT_DIALECT_NAMES, type AnnouncedPolicy } from '../contract/rate-limit-dialects.ts';
import type { TripleAgreement } from '../contract/rate-limit-sent.ts';
import type { AnnouncedPolicyFigures } from '../measure/observation.ts';
import { learned, undecided } from './learned.ts';
import type { DialectsSentBy } from './record.ts';
import type { DialectAgreement, DialectProfile, Learned } from './types.ts';

/** Answers cited for a disagreement, at most. */
const CITED = 8;

export function dialectProfileOf(answers: readonly DialectsSentBy[], answered: number): DialectProfile {
  return {
    sent: sentOf(answers, answered),
    fields: [...new Set(answers.flatMap((a) => Object.keys(a.sent.fields)))],
    policies: distinctPolicies(answers.flatMap((a) => a.sent.policies)),
    agreement: agreementOf(answers),
  };
}

function sentOf(answers: readonly DialectsSentBy[], answered: number): DialectProfile['sent'] {
  if (answered === 0) return undecided('no request was answered');
  const first = RATE_LIMIT_DIALECT_NAMES.flatMap((d) => {
    const by = answers.find((a) => a.sent.sent.some((r) => r.dialect === d));
    return by ? [[d, by.id] as const] : [];
  });
  if (first.length === 0) return learned([], `none of ${answered} answers carried a rate-limit field`, []);
  const carried = answers.filter((a) => a.sent.sent.length > 0).length;
  return learned(
    first.map(([d]) => d),
    `${carried} of ${answered} answers carried the fields of ${first.map(([d]) => d).join(', ')}`,
    first.map(([, id]) => id),
  );
}

const policyFigures = (p: AnnouncedPolicy): AnnouncedPolicyFigures => ({
  name: p.name,
  quota: p.quota,
  windowS: p.windowS,
  unit: p.unit,
});

function distinctPolicies(policies: readonly AnnouncedPolicy[]): AnnouncedPolicyFigures[] {
  const byKey = new Map(policies.map((p) => [JSON.stringify(policyFigures(p)), policyFigures(p)]));
  return [...byKey.values()];
}

/** The figures an agreement found to differ: `limit`, `remaining`, `reset`. */
const differing = (a: TripleAgreement): string[] =>
  (['limit', 'remaining', 'reset'] as const).filter((figure) => a[figure].agrees === false);

function agreementOf(answers: readonly DialectsSentBy[]): Learned<DialectAgreement> {
  const both = answers.flatMap((a) => a.sent.agreement.map((agreement) => ({ id: a.id, agreement })));
  if (both.length === 0) return learned('not-both', 'no answer carried X-RateLimit-* beside another dialect', []);
  const differ = both.filter((b) => b.agreement.agrees === false);
  const agree = both.filter((b) => b.agreement.agrees === true);
  if (differ.length > 0) {
    const figures = [...new Set(differ.flatMap((b) => differing(b.agreement)))].join(', ');
    return learned(
      'differs',
      `${differ.length} of ${both.length} answers carrying X-RateLimit-* and ${differ[0]!.agreement.dialect} told another ${figures}`,
      differ.slice(0, CITED).map((b) => b.id),
    );
  }
  if (agree.length === 0)
    return undecided(
      `none of ${both.length} answers carrying X-RateLimit-* beside another dialect gave every figure in both`,
      both.slice(0, CITED).map((b) => b.id),
    );
  const rest = agree.length === both.length ? '' : '; the others could not be compared on every figure';
  return learned(
    'agrees',
    `${agree.length} of ${both.length} answers carrying X-RateLimit-* and ${agree[0]!.agreement.dialect} told the same limit, remaining and reset${rest}`,
    [agree[0]!.id],
  );
}
