/**
 * SCOPE-LIST (§2, §4, §5.7): GET /recruiter/settings/services-api-scopes returns
 * `{status:"success", data:[{scope, description}]}` naming only the contract's scopes.
 */
import { scopeListBody } from '../contract/error-body.ts';
import type { Contract } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, clip, describe, describeIssues, finding, listSome, notJson } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';

/** `data` of SCOPE-LIST: the scope names listed, in order. */
export type ScopeListData = { readonly scopes: readonly string[] };

export function scopeListVerdict(o: Observation, contract: Contract): Finding<ScopeListData> {
  const known = new Set<string>(contract.scopes.map((s) => s.scope));
  const expected = `200 with {status:"success", data:[{scope, description}]}, every scope one of the ${known.size} in the contract`;
  const evidence = [o.id];

  if (o.status === null) {
    return finding('inconclusive', { expected, actual: describe(o), evidence, notes: ['no response to judge'] });
  }
  if (o.status === TOO_MANY_REQUESTS) {
    return finding('inconclusive', {
      expected,
      actual: `429 ${o.method} ${o.path}`,
      evidence,
      notes: ['rate-limited: the listing could not be read'],
    });
  }
  if (o.status !== 200) {
    return finding('fail', { expected, actual: `${o.status} instead of 200`, evidence });
  }
  if (o.body === null) {
    return finding('fail', {
      expected,
      actual: notJson(o),
      evidence,
    });
  }

  const parsed = scopeListBody.safeParse(o.body);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    return finding('fail', {
      expected,
      actual: `body does not match the scope list: ${listSome(issues)}`,
      evidence,
      notes: issues,
    });
  }

  const names = parsed.data.data.map((entry) => entry.scope);
  const unknown = names.filter((n) => !known.has(n));
  const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
  const notes: string[] = [];
  if (names.length === 0) notes.push('the organization may grant no scopes (empty list)');
  if (duplicates.length > 0) notes.push(`listed more than once: ${[...new Set(duplicates)].join(', ')}`);
  const data: ScopeListData = { scopes: names };

  if (unknown.length > 0) {
    return finding('fail', {
      expected,
      actual: `unknown scope names: ${listSome(
        unknown.map((n) => `'${clip(n, 60)}'`),
        5,
        ', ',
      )}`,
      evidence,
      notes,
      data,
    });
  }
  return finding('pass', {
    expected,
    actual: `200 listing ${names.length} scopes: ${names.join(', ') || '(none)'}`,
    evidence,
    notes,
    data,
  });
}
