/**
 * SCOPE-LIST (§2, §4, §5.7): GET /recruiter/settings/services-api-scopes returns
 * `{status:"success", data:[{scope, description}]}` naming only the contract's scopes.
 */
import { scopeListBody } from '../contract/error-body.ts';
import type { Contract } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, clip, describe, finding, issuePath, outcomeOf } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

/** `data` of SCOPE-LIST: the scope names listed, in order. */
export type ScopeListData = { readonly scopes: readonly string[] };

export function scopeListVerdict(o: Observation, contract: Contract): Finding<ScopeListData> {
  const known = new Set<string>(contract.scopes.map((s) => s.scope));
  const expected = `200 with {status:"success", data:[{scope, description}]}, every scope one of the ${known.size} in the contract`;
  const evidence = [o.id];
  const failing = (why: Reason): Finding<ScopeListData> =>
    finding<ScopeListData>('fail', { expected, actual: reasonText(why), evidence, reasons: [why] });

  if (o.status === null) {
    const lost = because('scope-list-unanswered', { request: o.id, error: outcomeOf(o) });
    return finding('inconclusive', { expected, actual: describe(o), evidence, reasons: [lost] });
  }
  if (o.status === TOO_MANY_REQUESTS) {
    return finding('inconclusive', {
      expected,
      actual: `429 ${o.method} ${o.path}`,
      evidence,
      reasons: [because('scope-list-rate-limited', { request: o.id })],
    });
  }
  if (o.status !== 200) return failing(because('scope-list-status', { status: o.status, request: o.id }));
  if (o.body === null) {
    return failing(
      because('scope-list-not-json', {
        contentType: o.contentType === null ? null : clip(o.contentType, 60),
        bodyBytes: o.bodyBytes,
        excerpt: clip(o.bodyExcerpt, 80),
      }),
    );
  }

  const parsed = scopeListBody.safeParse(o.body);
  if (!parsed.success) {
    const { issues } = parsed.error;
    return failing(
      because('scope-list-shape', {
        paths: issues.map(issuePath),
        messages: issues.map((issue) => issue.message),
      }),
    );
  }

  const names = parsed.data.data.map((entry) => entry.scope);
  const unknown = names.filter((n) => !known.has(n));
  const duplicates = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  const reasons: Reason[] = [
    ...(names.length === 0 ? [because('scope-list-empty', {})] : []),
    ...(duplicates.length > 0 ? [because('scope-listed-twice', { names: duplicates })] : []),
  ];
  const data: ScopeListData = { scopes: names };

  if (unknown.length > 0) {
    const unknownNames = because('unknown-scope-names', { names: unknown.map((n) => clip(n, 60)) });
    return finding('fail', {
      expected,
      actual: reasonText(unknownNames),
      evidence,
      reasons: [unknownNames, ...reasons],
      data,
    });
  }
  return finding('pass', {
    expected,
    actual: `200 listing ${names.length} scopes: ${names.join(', ') || '(none)'}`,
    evidence,
    reasons,
    data,
  });
}
