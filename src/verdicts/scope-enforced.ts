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
} from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';

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
  readonly problems: readonly string[];
  readonly unclear: readonly string[];
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
    return finding('inconclusive', { expected, actual: 'no endpoints were exercised', notes: ['nothing to judge'] });
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
  const label = (p: ScopePair) => `${p.method} ${p.path}`;
  const notes = unclear.flatMap(({ pair, j }) => j.unclear.map((u) => `${label(pair)}: ${u}`));

  if (verdict === 'fail') {
    return finding('fail', {
      expected,
      actual: `${failing.length} of ${pairs.length} endpoints: ${listSome(
        failing.flatMap(({ pair, j }) => j.problems.map((p) => `${label(pair)} ${p}`)),
        4,
      )}`,
      evidence: failing.flatMap(({ j }) => j.offending),
      notes,
      data: { rows },
    });
  }
  if (verdict === 'inconclusive') {
    return finding('inconclusive', {
      expected,
      actual: `${pairs.length - unclear.length} of ${pairs.length} endpoints enforce their scope; ${unclear.length} could not be judged`,
      evidence: unclear.flatMap(({ j }) => j.evidence),
      notes,
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
  const problems: string[] = [];
  const unclear: string[] = [];
  const evidence: number[] = [];
  const offending: number[] = [];

  const d = p.denied;
  if (d === null) unclear.push(`no request with a key lacking ${p.scope}`);
  else if (d.status === null) unclear.push(`no response to the key lacking ${p.scope} (${outcomeOf(d)})`);
  else if (d.status === TOO_MANY_REQUESTS) unclear.push(`429 to the key lacking ${p.scope}`);
  else if (d.status !== forbiddenStatus) {
    const what = isAdmittedStatus(d.status) ? 'admitted' : `answered ${d.status} instead of ${forbiddenStatus} to`;
    problems.push(`${what} a key lacking ${p.scope} (${d.status})`);
    offending.push(d.id);
  }
  if (d !== null) evidence.push(d.id);

  const a = p.admitted;
  if (a === null) unclear.push(`no request with a key holding ${p.scope}`);
  else if (a.status === null) unclear.push(`no response to the key holding ${p.scope} (${outcomeOf(a)})`);
  else if (a.status === TOO_MANY_REQUESTS) unclear.push(`429 to the key holding ${p.scope}`);
  else if (authStatuses.has(a.status)) {
    problems.push(`rejected a key holding ${p.scope} (${a.status})`);
    offending.push(a.id);
  }
  if (a !== null) evidence.push(a.id);

  const verdict: JudgedVerdict = problems.length > 0 ? 'fail' : unclear.length > 0 ? 'inconclusive' : 'pass';
  return { verdict, problems, unclear, evidence, offending };
}
