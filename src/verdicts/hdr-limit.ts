/**
 * HDR-LIMIT (§8): on responses of one quota class on one organization, X-RateLimit-Limit equals
 * the tier's published figure (Enterprise: at least it), or the organization's own figure where the
 * config declares one (its contract: exactly), and is the same on every response.
 * Under a dialect the config declares (observations carry it), the Limit is the dialect's (q of the
 * reported quota's policy, or the limit field of drafts 6 and 7), and that policy must be announced
 * with q the figure and w the window; a response without the policy field is HDR-PRESENT's.
 * Also home of `announcedLimit`, the Limit a series of responses agrees on.
 */
import type { Figure, QuotaClass } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { finding, listSome, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { declaredDialectOf, fieldTitle, figureField, figureTitle, type DeclaredDialect } from './support/dialect.ts';
import { RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';

export interface AnnouncedLimit {
  /** The one integer Limit every response carrying one agrees on, else null. */
  readonly value: number | null;
  readonly note: string | null;
  /** Every integer Limit announced, ascending. */
  readonly values: readonly number[];
}

export function announcedLimit(obs: readonly Observation[]): AnnouncedLimit {
  const values = new Set<number>();
  for (const o of obs) if (o.status !== null && o.rateLimit.limit.value !== null) values.add(o.rateLimit.limit.value);
  const sorted = [...values].sort((a, b) => a - b);
  const [only] = sorted;
  if (sorted.length === 1 && only !== undefined) return { value: only, note: null, values: sorted };
  if (sorted.length === 0)
    return { value: null, note: 'no response announced an integer X-RateLimit-Limit', values: [] };
  return { value: null, note: `X-RateLimit-Limit varied: ${sorted.join(', ')}`, values: sorted };
}

/** `data` of HDR-LIMIT: the quota class and the figure judged by (published or declared), and how many responses announced each Limit value. */
export type LimitHeaderData = {
  readonly quotaClass: QuotaClass;
  readonly figure: Figure;
  readonly values: Readonly<Record<string, number>>;
};

/** How many responses announced one integer Limit, and the first that did. */
type LimitTally = { count: number; first: number };

/** The sentence HDR-LIMIT holds responses to: the figure's bound, on every response of the class. */
function limitExpected(
  figure: Figure,
  quotaClass: QuotaClass,
  dialect: DeclaredDialect | null,
  windowSeconds: number | undefined,
): string {
  const bound = figure.atLeast
    ? `at least ${figure.value}, the same on every`
    : figure.declared
      ? `${figure.value} (declared in the config) on every`
      : `${figure.value} on every`;
  if (dialect === null) return `X-RateLimit-Limit ${bound} ${quotaClass} response`;
  const w = windowSeconds === undefined ? '' : ` and w=${windowSeconds}`;
  return `${figureTitle(dialect, 'Limit')} ${bound} ${quotaClass} response, its policy announced in RateLimit-Policy with that q${w}`;
}

/** Under a declared dialect, a response whose policy field names no policy for the quota it reports. */
function policyUnannounced(o: Observation): boolean {
  const d = o.rateLimit.dialect;
  const policyField = d ? RATE_LIMIT_DIALECTS[d.name].policyField : null;
  return d !== undefined && policyField !== null && d.fields[policyField] !== undefined && d.policy === null;
}

/** Each integer Limit announced, with its tally; and the responses whose Limit was no integer. */
function tallyLimits(withHeader: readonly Observation[]): {
  counts: Map<number, LimitTally>;
  garbage: Observation[];
} {
  const counts = new Map<number, LimitTally>();
  const garbage: Observation[] = [];
  for (const o of withHeader) {
    const v = o.rateLimit.limit.value;
    // Under ietf the Limit is the q of a policy not announced: policyProblems says so.
    if (v === null && o.rateLimit.dialect?.name === 'ietf' && policyUnannounced(o)) continue;
    if (v === null) {
      garbage.push(o);
      continue;
    }
    const c = counts.get(v);
    if (c) c.count += 1;
    else counts.set(v, { count: 1, first: o.id });
  }
  return { counts, garbage };
}

/** A Limit that gives no integer: as §8's header, or as the declared dialect's field. */
function unreadableLimit(o: Observation): Reason {
  const raw = o.rateLimit.limit.raw ?? '';
  const dialect = o.rateLimit.dialect?.name;
  if (dialect === undefined) return because('header-not-integer', { header: 'Limit', raw, request: o.id });
  return because('dialect-figure-unreadable', {
    field: fieldTitle(figureField(dialect, 'Limit')),
    figure: figureTitle(dialect, 'Limit'),
    raw,
    request: o.id,
  });
}

/** A Limit off the figure: under ietf the Limit is the policy's q, and the reason says so. */
function offFigure(o: Observation, announced: number, responses: number, figure: Figure, basis: string): Reason {
  const d = o.rateLimit.dialect;
  if (d?.name === 'ietf')
    return because('policy-quota-off-figure', {
      policy: d.policy?.name ?? null,
      quota: announced,
      responses,
      figure: figure.value,
      basis,
    });
  return because('limit-off-figure', { announced, responses, figure: figure.value, basis });
}

/** Every way the Limits break §8 (no integer, varying, off the figure), with the responses that show it. */
function limitProblems(
  garbage: readonly Observation[],
  sorted: readonly (readonly [number, LimitTally])[],
  figure: Figure,
  byId: ReadonlyMap<number, Observation>,
): { reasons: Reason[]; evidence: number[] } {
  const reasons: Reason[] = [];
  const evidence: number[] = [];
  for (const o of garbage.slice(0, 3)) {
    reasons.push(unreadableLimit(o));
    evidence.push(o.id);
  }
  if (garbage.length > 3)
    reasons.push(because('headers-not-integer-more', { header: 'Limit', more: garbage.length - 3 }));
  if (sorted.length > 1) {
    reasons.push(because('limit-varied', { values: sorted.map(([v]) => v), counts: sorted.map(([, c]) => c.count) }));
    evidence.push(...sorted.map(([, c]) => c.first));
  }
  const basis = figure.atLeast ? 'minimum' : figure.declared ? 'declared' : 'published';
  for (const [v, c] of sorted) {
    const wrong = figure.atLeast ? v < figure.value : v !== figure.value;
    if (wrong) {
      reasons.push(offFigure(byId.get(c.first)!, v, c.count, figure, basis));
      evidence.push(c.first);
    }
  }
  return { reasons, evidence };
}

/**
 * Under a declared dialect, the policy of the quota each response reports: announced (else
 * policy-not-announced), with w the window (else policy-window-off). q is the Limit judged above
 * (ietf), or equal to the limit field it was matched by (drafts 6 and 7). Responses without the policy
 * field are HDR-PRESENT's.
 */
function policyProblems(
  responses: readonly Observation[],
  windowSeconds: number | undefined,
): { reasons: Reason[]; evidence: number[] } {
  const unannounced = responses.filter(policyUnannounced);
  const reasons: Reason[] = [];
  const evidence: number[] = [];
  const first = unannounced[0];
  if (first) {
    const announced = [...new Set(unannounced.flatMap((o) => o.rateLimit.dialect!.policies.map((p) => p.quota)))];
    reasons.push(
      because('policy-not-announced', {
        limit: first.rateLimit.limit.value,
        announced,
        responses: unannounced.length,
        request: first.id,
      }),
    );
    evidence.push(first.id);
  }
  if (windowSeconds === undefined) return { reasons, evidence };
  const off = new Map<string, { policy: string | null; windowS: number | null; count: number; first: number }>();
  for (const o of responses) {
    const policy = o.rateLimit.dialect?.policy;
    if (!policy || policy.windowS === windowSeconds) continue;
    const key = `${policy.name}:${policy.windowS}`;
    const seen = off.get(key);
    if (seen) seen.count += 1;
    else off.set(key, { policy: policy.name, windowS: policy.windowS, count: 1, first: o.id });
  }
  for (const w of off.values()) {
    reasons.push(
      because('policy-window-off', { policy: w.policy, windowS: w.windowS, window: windowSeconds, responses: w.count }),
    );
    evidence.push(w.first);
  }
  return { reasons, evidence };
}

/** No response carried a Limit: the header missing (§8: on every response), or no responses at all. */
function noLimitAnywhere(
  obs: readonly Observation[],
  responses: readonly Observation[],
  dialect: DeclaredDialect | null,
  parts: { readonly expected: string; readonly notes: string[]; readonly data: LimitHeaderData },
): Finding<LimitHeaderData> {
  if (responses.length === 0)
    return finding('inconclusive', {
      ...parts,
      actual: 'no responses',
      reasons: [because('no-answers-to-judge', { sent: obs.length })],
    });
  // None at all is the header missing, not a lack of evidence.
  const absentEverywhere = because('header-absent-everywhere', {
    header: dialect === null ? 'X-RateLimit-Limit' : fieldTitle(figureField(dialect, 'Limit')),
    responses: responses.length,
  });
  return finding('fail', {
    ...parts,
    actual: reasonText(absentEverywhere),
    evidence: responses.slice(0, 3).map((o) => o.id),
    reasons: [absentEverywhere],
  });
}

/**
 * `windowSeconds`: the window the quota is counted in, which a declared dialect's policy announces
 * as w; without it (a judgement recorded before it was given) w is not judged.
 */
export function limitHeaderVerdict(
  obs: readonly Observation[],
  figure: Figure,
  quotaClass: QuotaClass,
  windowSeconds?: number,
): Finding<LimitHeaderData> {
  const dialect = declaredDialectOf(obs);
  const expected = limitExpected(figure, quotaClass, dialect, windowSeconds);
  const responses = obs.filter((o) => o.status !== null);
  const withHeader = responses.filter((o) => o.rateLimit.limit.raw !== null);
  const notes: string[] = [];
  const absent = responses.length - withHeader.length;
  // Judged on the responses that carry it; HDR-PRESENT judges the absence (none at all fails here).
  const absentOnSome =
    absent > 0 && withHeader.length > 0
      ? [because('header-absent-on-some', { header: 'Limit', responses: absent })]
      : [];
  const orgs = new Set(responses.map((o) => o.org));
  if (orgs.size > 1) notes.push(`responses from ${orgs.size} organizations: ${[...orgs].join(', ')}`);

  const { counts, garbage } = tallyLimits(withHeader);
  const data: LimitHeaderData = {
    quotaClass,
    figure,
    values: Object.fromEntries([...counts].map(([v, c]) => [String(v), c.count])),
  };

  if (withHeader.length === 0) return noLimitAnywhere(obs, responses, dialect, { expected, notes, data });

  const sorted = [...counts].sort((a, b) => b[1].count - a[1].count);
  const byId = new Map(withHeader.map((o) => [o.id, o]));
  const found = limitProblems(garbage, sorted, figure, byId);
  const policies = dialect === null ? { reasons: [], evidence: [] } : policyProblems(responses, windowSeconds);
  const reasons = [...found.reasons, ...policies.reasons];
  const evidence = [...found.evidence, ...policies.evidence];
  if (reasons.length > 0) {
    return finding('fail', {
      expected,
      actual: listSome(reasons.map(reasonText), 4),
      evidence,
      notes,
      reasons: atLeastOne([...reasons, ...absentOnSome]),
      data,
    });
  }
  const [[value, c] = [0, { count: 0, first: 0 }]] = sorted;
  const declared = figure.declared
    ? [because('limit-declared-in-config', { limit: figure.value, announced: value })]
    : [];
  return finding('pass', {
    expected,
    actual: `Limit ${value} on all ${c.count} responses`,
    evidence: [c.first],
    notes,
    reasons: [...declared, ...absentOnSome],
    data,
  });
}
