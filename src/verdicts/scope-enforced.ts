/**
 * SCOPE-ENFORCED (§4, §5.6): each endpoint rejects a key lacking its scope (403 by the
 * `scope-status` assumption) and admits one holding it past the scope check.
 */
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  finding,
  isAdmittedStatus,
  listSome,
  outcomeOf,
  worst,
  type JudgedVerdict,
  atLeastOne,
} from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import type { ScopeKey } from '../catalogue/reasons/access.ts';

export interface ScopePair {
  readonly endpointId: string;
  readonly method: string;
  readonly path: string;
  readonly scope: string;
  /** The endpoint called with a key lacking `scope`. */
  readonly denied: Observation | null;
  /** The endpoint called with a key holding `scope`. */
  readonly admitted: Observation | null;
}

interface PairJudgement {
  readonly verdict: JudgedVerdict;
  readonly problems: readonly Reason[];
  readonly unclear: readonly Reason[];
  readonly evidence: readonly number[];
  /** The observations that broke the rule, when it failed. */
  readonly offending: readonly number[];
}

/** `data` of SCOPE-ENFORCED: per endpoint, the statuses without and with its scope, and its outcome. */
export type ScopeEnforcedData = {
  readonly rows: readonly {
    readonly endpoint: string;
    readonly scope: string;
    readonly deniedStatus: number | null;
    readonly admittedStatus: number | null;
    readonly outcome: JudgedVerdict;
  }[];
};

/** 401 and 403 are the statuses of authentication and authorization; anything else got past them. */
const AUTH_STATUSES = [401, 403];

export function scopeEnforcedVerdict(pairs: readonly ScopePair[], forbiddenStatus: number): Finding<ScopeEnforcedData> {
  const expected = `each endpoint answers ${forbiddenStatus} to a key lacking its scope and admits a key holding it (any status but 401/403)`;
  if (pairs.length === 0) {
    const none = because('no-endpoints-exercised', {});
    return finding('inconclusive', { expected, actual: reasonText(none), reasons: [none] });
  }
  const authStatuses = new Set([...AUTH_STATUSES, forbiddenStatus]);
  const judged = pairs.map((p) => ({ pair: p, j: judgePair(p, forbiddenStatus, authStatuses) }));
  const verdict = worst(judged.map(({ j }) => j.verdict));
  const rows = judged.map(({ pair, j }) => ({
    endpoint: pair.endpointId,
    scope: pair.scope,
    deniedStatus: pair.denied?.status ?? null,
    admittedStatus: pair.admitted?.status ?? null,
    outcome: j.verdict,
  }));
  const failing = judged.filter(({ j }) => j.verdict === 'fail');
  const unclear = judged.filter(({ j }) => j.verdict === 'inconclusive');
  const unclearReasons = unclear.flatMap(({ j }) => j.unclear);

  if (verdict === 'fail') {
    const problems = failing.flatMap(({ j }) => j.problems);
    return finding('fail', {
      expected,
      actual: `${failing.length} of ${pairs.length} endpoints: ${listSome(problems.map(reasonText), 4)}`,
      evidence: failing.flatMap(({ j }) => j.offending),
      reasons: atLeastOne([...problems, ...unclearReasons]),
      data: { rows },
    });
  }
  if (verdict === 'inconclusive') {
    return finding('inconclusive', {
      expected,
      actual: `${pairs.length - unclear.length} of ${pairs.length} endpoints enforce their scope; ${unclear.length} could not be judged`,
      evidence: unclear.flatMap(({ j }) => j.evidence),
      reasons: atLeastOne(unclearReasons),
      data: { rows },
    });
  }
  return finding('pass', {
    expected,
    actual: `all ${pairs.length} endpoints answered ${forbiddenStatus} without the scope and admitted the key holding it`,
    evidence: judged.flatMap(({ j }) => j.evidence),
    data: { rows },
  });
}

function judgePair(p: ScopePair, forbiddenStatus: number, authStatuses: ReadonlySet<number>): PairJudgement {
  const problems: Reason[] = [];
  const unclear: Reason[] = [];
  const evidence: number[] = [];
  const offending: number[] = [];
  const endpoint = { method: p.method, path: p.path, scope: p.scope };

  const d = p.denied;
  const deniedUnclear = unclearCall(d, endpoint, 'lacking');
  if (deniedUnclear) unclear.push(deniedUnclear);
  else if (d !== null && d.status !== null && d.status !== forbiddenStatus) {
    const request = { ...endpoint, status: d.status, request: d.id };
    problems.push(
      isAdmittedStatus(d.status)
        ? because('scope-not-enforced', request)
        : because('scope-refusal-status', { ...request, expected: forbiddenStatus }),
    );
    offending.push(d.id);
  }
  if (d !== null) evidence.push(d.id);

  const a = p.admitted;
  const admittedUnclear = unclearCall(a, endpoint, 'holding');
  if (admittedUnclear) unclear.push(admittedUnclear);
  else if (a !== null && a.status !== null && authStatuses.has(a.status)) {
    problems.push(because('scoped-key-rejected', { ...endpoint, status: a.status, request: a.id }));
    offending.push(a.id);
  }
  if (a !== null) evidence.push(a.id);

  const verdict: JudgedVerdict = problems.length > 0 ? 'fail' : unclear.length > 0 ? 'inconclusive' : 'pass';
  return { verdict, problems, unclear, evidence, offending };
}

/** Why one call of a pair cannot be judged: not sent, not answered, or rate-limited. Null when it can. */
function unclearCall(
  o: Observation | null,
  endpoint: { method: string; path: string; scope: string },
  key: ScopeKey,
): Reason | null {
  if (o === null) return because('scope-probe-missing', { ...endpoint, key });
  if (o.status === null)
    return because('scope-probe-unanswered', { ...endpoint, key, error: outcomeOf(o), request: o.id });
  if (o.status === TOO_MANY_REQUESTS) return because('scope-probe-rate-limited', { ...endpoint, key, request: o.id });
  return null;
}
