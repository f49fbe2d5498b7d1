/**
 * HDR-LIMIT (§8): on responses of one quota class on one organization, X-RateLimit-Limit equals
 * the tier's published figure (Enterprise: at least it), or the organization's own figure where the
 * config declares one (its contract: exactly), and is the same on every response.
 * Also home of `announcedLimit`, the Limit a series of responses agrees on.
 */
import type { Figure, QuotaClass } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { finding, listSome, atLeastOne } from './support/finding.ts';
import type { Finding } from '../catalogue/types.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

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
function limitExpected(figure: Figure, quotaClass: QuotaClass): string {
  const bound = figure.atLeast
    ? `at least ${figure.value}, the same on every`
    : figure.declared
      ? `${figure.value} (declared in the config) on every`
      : `${figure.value} on every`;
  return `X-RateLimit-Limit ${bound} ${quotaClass} response`;
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

/** Every way the Limits break §8 (no integer, varying, off the figure), with the responses that show it. */
function limitProblems(
  garbage: readonly Observation[],
  sorted: readonly (readonly [number, LimitTally])[],
  figure: Figure,
): { reasons: Reason[]; evidence: number[] } {
  const reasons: Reason[] = [];
  const evidence: number[] = [];
  for (const o of garbage.slice(0, 3)) {
    reasons.push(because('header-not-integer', { header: 'Limit', raw: o.rateLimit.limit.raw ?? '', request: o.id }));
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
      reasons.push(because('limit-off-figure', { announced: v, responses: c.count, figure: figure.value, basis }));
      evidence.push(c.first);
    }
  }
  return { reasons, evidence };
}

export function limitHeaderVerdict(
  obs: readonly Observation[],
  figure: Figure,
  quotaClass: QuotaClass,
): Finding<LimitHeaderData> {
  const expected = limitExpected(figure, quotaClass);
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

  // §8: on every response. None at all is the header missing, not a lack of evidence.
  if (withHeader.length === 0 && responses.length > 0) {
    const absentEverywhere = because('header-absent-everywhere', {
      header: 'X-RateLimit-Limit',
      responses: responses.length,
    });
    return finding('fail', {
      expected,
      actual: reasonText(absentEverywhere),
      evidence: responses.slice(0, 3).map((o) => o.id),
      notes,
      reasons: [absentEverywhere],
      data,
    });
  }
  if (withHeader.length === 0) {
    return finding('inconclusive', {
      expected,
      actual: 'no responses',
      notes,
      reasons: [because('no-answers-to-judge', { sent: obs.length })],
      data,
    });
  }

  const sorted = [...counts].sort((a, b) => b[1].count - a[1].count);
  const { reasons, evidence } = limitProblems(garbage, sorted, figure);
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
