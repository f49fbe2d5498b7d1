/**
 * QUOTA-READ (§7.1, §8) and QUOTA-INGEST (§8): exactly Limit requests (or units, for bulk
 * uploads under `bulk-counts-per-resume`) are admitted in one window, and the rest get 429.
 *
 * Sequential: requests 1…k admitted, k+1 rejected. Burst (released together, order unknown):
 * exactly k of ≥ k+1 admitted, every other one 429. A request whose fate is unknown (no
 * response, or a status that is neither 2xx nor 429) is a wildcard: it may or may not have
 * counted. The verdict fails only when no reading of the wildcards conforms, and is
 * inconclusive when one does but the wildcards keep it from being proven. One reading is told apart:
 * the requests within the Limit admitted and every one past it answered 503 (none 429, none lost) is
 * the quota refusing with the wrong status (nginx's default), and fails the 429 it owes.
 */
import type { Figure } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import { TOO_MANY_REQUESTS, finding, isAdmitted, listSome, outcomeOf, judgedFinding } from './support/finding.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { limitText, type LimitFigures } from '../catalogue/reasons/quota.ts';
import { announcedLimit, type AnnouncedLimit } from './hdr-limit.ts';
import { seriesOf, type SeriesPoint } from './hdr-remaining.ts';
import type { Finding } from '../catalogue/types.ts';
import { integrityGrounds, withinOneWindow, type WindowIntegrity } from './support/window-integrity.ts';
import { windowSafeEnd } from '../measure/window.ts';
import {
  exactLimitBasis,
  freshness,
  refillCheck,
  spentBefore,
  type Judged,
  type QuotaExactInput,
} from './support/quota-window.ts';
import { lostByAdmissions, lostByRemaining, lostReason, type LostReading } from './support/lost-requests.ts';
import { uncountedTogether, type ReleasedTogether } from './support/released-together.ts';

export type { QuotaExactInput };

/**
 * `data` of QUOTA-READ and QUOTA-INGEST: the series (the report's chart), the Limit judged by, what it
 * admits of the series, what was admitted and refused, the first 429. The sentences are written from it.
 */
export type QuotaData = {
  readonly series: readonly SeriesPoint[];
  /** The Limit judged by; null where only a published minimum is known (a shortfall is judged, not exactness). */
  readonly limit: number | null;
  /** Requests the Limit admits in the series: the Limit (or minimum) less the ledger, in whole requests. */
  readonly admissible: number;
  /** The harness's own requests counted in the window before the series (the ledger). */
  readonly spentBefore: number;
  readonly admitted: number;
  /** The quota's 429s: a cap's refusals among requests released together are not among them. */
  readonly refused: number;
  /** Bulk uploads: resumes admitted, and resumes per upload. */
  readonly admittedUnits?: number;
  readonly unitsPerRequest?: number;
  /** Request number of the first 429, or null when none came. */
  readonly first429: number | null;
};

interface Outcomes {
  readonly obs: readonly Observation[];
  /** 1-based request numbers, in send order. */
  readonly admitted: readonly number[];
  readonly rejected: readonly number[];
  readonly wild: readonly number[];
  /** Refused with quota left among requests released together: a cap's refusal, counted for nothing. */
  readonly uncounted: readonly number[];
  readonly together: readonly ReleasedTogether[];
}

/**
 * The Limit the series is judged by (null: only a shortfall can be judged, and a reason says so), an
 * announced Limit below the published minimum, and reasons for the figure judged by.
 */
function quotaToJudge(
  figure: Figure,
  announced: AnnouncedLimit,
  units: number,
): { quota: number | null; belowMinimum: number | null; notes: string[]; reasons: Reason[] } {
  const notes: string[] = [];
  const reasons: Reason[] = [];
  let quota: number | null;
  /** Enterprise: the server announced less than the published minimum. A fail whatever it admitted. */
  let belowMinimum: number | null = null;
  if (!figure.atLeast) {
    quota = figure.value;
    const basis = exactLimitBasis(figure, announced.value);
    if (basis) reasons.push(basis);
  } else if (announced.value === null) {
    quota = null;
    reasons.push(because('no-announced-limit', { publishedMinimum: figure.value }));
  } else if (announced.value < figure.value) {
    // Exactness is judged against what the server announces; the announcement itself breaks §8.
    quota = announced.value;
    belowMinimum = announced.value;
  } else {
    quota = announced.value;
  }
  if (quota !== null && units > 1 && quota % units !== 0) {
    notes.push(
      `Limit ${quota} is not a multiple of ${units} per request: a request that does not fit is refused whole`,
    );
  }
  return { quota, belowMinimum, notes, reasons };
}

/** What the ledger says of the harness's own requests this window before the series: counted here, or on a counter of their own. */
function ledgerReasons(prior: readonly Observation[], sentBefore: readonly Observation[]): Reason[] {
  const figures = (own: readonly Observation[]) => ({
    requests: own.map((o) => o.id),
    routes: own.map((o) => `${o.method} ${o.path}`),
  });
  if (prior.length > 0) return [because('harness-requests-counted-before', figures(prior))];
  if (sentBefore.length > 0) return [because('harness-requests-counted-apart', figures(sentBefore))];
  return [];
}

/** Each request that got no answer and what may say whether it counted. */
function lostRequests(
  obs: readonly Observation[],
  input: QuotaExactInput,
  prior: readonly Observation[],
  announced: number | null,
  units: number,
): Map<number, LostReading> {
  // Requests that got no answer: the Remaining around each (one after another), else the values every
  // admission of the window took, may say whether it counted.
  const around = input.variant === 'sequential' ? lostByRemaining(obs, input.together) : new Map<number, LostReading>();
  return new Map([...around, ...lostByAdmissions(obs, prior.filter(isAdmitted), announced, units, around)]);
}

/** What every way of concluding QUOTA-READ/INGEST is written from. */
interface QuotaCase {
  readonly obs: readonly Observation[];
  readonly input: QuotaExactInput;
  readonly judged: Judged;
  readonly notes: readonly string[];
  /** What the series as a whole gives reason for (the figure judged by, the ledger, lost requests read), beside the judgement's own. */
  readonly reasons: readonly Reason[];
  readonly data: QuotaData;
  /** The Limit judged by, as reasons carry it (with the ledger's requests in it). */
  readonly limit: LimitFigures;
}

/** What a series shown within one window says of how that is known: a reason where the result rests on it, else a note. */
type WindowShown = { readonly notes: readonly string[]; readonly reasons: readonly Reason[] };

/** An announced Limit below the published minimum fails, whatever the series shows. */
function failBelowMinimum(c: QuotaCase, belowMinimum: number, shown: WindowShown): Finding<QuotaData> {
  const { obs, judged, input } = c;
  const announcedBy = obs.find((o) => o.rateLimit.limit.value === belowMinimum);
  const below = because('limit-below-minimum', { announced: belowMinimum, publishedMinimum: input.figure.value });
  return finding('fail', {
    expected: `Limit at least ${input.figure.value} (published minimum); ${judged.expected}`,
    actual: `${reasonText(below)}; ${judged.verdict === 'pass' ? 'otherwise exact: ' : ''}${judged.actual}`,
    evidence: [announcedBy?.id, ...judged.evidence],
    notes: [...c.notes, ...judged.notes, ...shown.notes],
    reasons: [below, ...judged.reasons, ...c.reasons, ...shown.reasons],
    data: c.data,
  });
}

/** A series not within one window: a fail if it over-admitted while the window surely lasted, else inconclusive. */
function judgeOutsideWindow(c: QuotaCase, integrity: Extract<WindowIntegrity, { ok: false }>): Finding<QuotaData> {
  const { obs, input, judged, notes, data } = c;
  // More admitted than the quota among the requests answered while the window surely lasted is an
  // over-admission whatever came after; anything else needs the whole series in one window.
  const safeEnd = windowSafeEnd(input.window, obs[0]);
  const inside = obs.filter((o) => o.doneAt <= safeEnd && isAdmitted(o));
  const k = data.admissible;
  if (data.limit !== null && integrity.reason.code !== 'window-rolled-over' && inside.length > k) {
    const over = because('admitted-past-limit-in-window', { admitted: inside.length, ...c.limit });
    return finding('fail', {
      expected: judged.expected,
      actual: reasonText(over),
      evidence: [inside[k - 1]?.id, inside[k]?.id],
      notes: [...notes, 'the series ran past the window; judged on the part inside it', `all of it: ${judged.actual}`],
      reasons: [over, integrity.reason, ...c.reasons],
      data,
    });
  }
  return finding('inconclusive', {
    expected: judged.expected,
    actual: integrity.note,
    evidence: judged.evidence,
    notes: [...notes, `had it been: ${judged.actual}`],
    reasons: [integrity.reason, ...c.reasons],
    data,
    measureAgain: 'next-window',
  });
}

export function quotaExactVerdict(obs: readonly Observation[], input: QuotaExactInput): Finding<QuotaData> {
  const { figure, variant } = input;
  const requestedUnits = input.unitsPerRequest ?? 1;
  // NaN, Infinity, 0 or a negative count would make every request number NaN: take one per request.
  const units = Number.isFinite(requestedUnits) && requestedUnits >= 1 ? Math.floor(requestedUnits) : 1;
  const announced = announcedLimit(obs);
  const notes: string[] = announced.note ? [announced.note] : [];
  const { quota, belowMinimum, notes: quotaNotes, reasons } = quotaToJudge(figure, announced, units);
  notes.push(...quotaNotes);

  // The ledger: what the harness itself sent in this window before the series, counted by the server.
  const prior = spentBefore(obs, input.window.prior, announced.value);
  reasons.push(...ledgerReasons(prior, input.window.prior));
  const lost = lostRequests(obs, input, prior, announced.value, units);
  for (const [i, reading] of [...lost].sort(([a], [b]) => a - b)) reasons.push(lostReason(i + 1, obs[i]!, reading));
  const outcomes = classify(obs, lost, input.together ?? []);
  reasons.push(...togetherReasons(outcomes));
  const left = Math.max(0, (quota ?? figure.value) - prior.length);
  const data: QuotaData = {
    series: seriesOf(obs),
    limit: quota,
    admissible: Math.floor(left / units),
    spentBefore: prior.length,
    admitted: outcomes.admitted.length,
    refused: outcomes.rejected.length,
    ...(units > 1 ? { admittedUnits: outcomes.admitted.length * units, unitsPerRequest: units } : {}),
    first429: outcomes.rejected[0] ?? null,
  };

  const limit: LimitFigures = {
    limit: left + prior.length,
    unitsPerRequest: units,
    spentBefore: prior.length,
    atLeast: quota === null,
  };
  const judge = variant === 'sequential' ? judgeSequential : judgeBurst;
  const judged = refillCheck(judge(outcomes, data, limit), obs, input);

  const integrity =
    freshness(obs, announced.value, prior.length, input.window, units) ?? withinOneWindow(obs, input.window);
  const c: QuotaCase = { obs, input, judged, notes, reasons, data, limit };
  const shown: WindowShown = integrity.ok ? integrityGrounds(integrity) : { notes: [integrity.note], reasons: [] };
  if (belowMinimum !== null) return failBelowMinimum(c, belowMinimum, shown);
  if (!integrity.ok) return judgeOutsideWindow(c, integrity);
  // Bulk uploads admitted past the Limit in resumes: the likeliest reading is a server counting each
  // upload as one. §8 sells ingest in resumes, so it fails, but a deployment may declare it intended.
  const perRequest =
    judged.verdict === 'fail' && units > 1 && quota !== null && outcomes.admitted.length > Math.floor(quota / units)
      ? [
          because('bulk-counted-per-upload', {
            admittedUploads: outcomes.admitted.length,
            unitsPerRequest: units,
            limit: quota,
          }),
        ]
      : [];
  return judgedFinding(judged.verdict, {
    expected: judged.expected,
    actual: judged.actual,
    evidence: judged.evidence,
    notes: [...notes, ...judged.notes, ...shown.notes],
    reasons: [...judged.reasons, ...perRequest, ...reasons, ...shown.reasons],
    data,
    // Requests without an answer (a dropped connection) left it open: another window may not lose one.
    measureAgain: outcomes.wild.some((n) => obs[n - 1]?.status === null) && 'next-window',
  });
}

/**
 * Each request's outcome; one that got no answer counts as the Remaining around it says (`lost`), else
 * it is a wildcard; one refused with quota left among requests released together counted nothing.
 */
function classify(
  obs: readonly Observation[],
  lost: ReadonlyMap<number, LostReading>,
  together: readonly ReleasedTogether[],
): Outcomes {
  const admitted: number[] = [];
  const rejected: number[] = [];
  const wild: number[] = [];
  const uncounted: number[] = [];
  for (const [i, o] of obs.entries()) {
    const fate = lost.get(i)?.fate;
    if (isAdmitted(o) || fate === 'counted') admitted.push(i + 1);
    else if (uncountedTogether(together, o, i)) uncounted.push(i + 1);
    else if (o.status === TOO_MANY_REQUESTS) rejected.push(i + 1);
    else if (fate === undefined) wild.push(i + 1);
  }
  return { obs, admitted, rejected, wild, uncounted, together };
}

/** What the parts released together were (numbered from 1, both ends included), and the cap's refusals among them. */
function togetherReasons(o: Outcomes): Reason[] {
  const parts = o.together.map((t) => because('released-together', { from: t.from + 1, to: t.to }));
  if (o.uncounted.length === 0) return parts;
  const remaining = o.uncounted.map((n) => o.obs[n - 1]?.rateLimit.remaining.value ?? 0);
  return [...parts, because('cap-refusals-not-counted', { requests: o.uncounted, remaining })];
}

/** The last request (1-based) of the part released together that holds request `n`; `n` itself where it went alone. */
function lastOfPart(o: Outcomes, n: number): number {
  return o.together.find((t) => t.from < n && n <= t.to)?.to ?? n;
}

/** The first and last request (1-based) of the part released together that holds request `n`; none where it went alone. */
function partOf(o: Outcomes, n: number): readonly number[] {
  const part = o.together.find((t) => t.from < n && n <= t.to);
  return part ? [part.from + 1, part.to] : [];
}

function idOf(o: Outcomes, n: number | undefined): number | undefined {
  return n === undefined ? undefined : o.obs[n - 1]?.id;
}

/** Requests whose fate is unknown (no answer, neither 2xx nor 429): why the count cannot be sure. */
function wildReasons(o: Outcomes): Reason[] {
  if (o.wild.length === 0) return [];
  return [because('outcome-unknown', { requests: o.wild, outcomes: o.wild.map((n) => outcomeOf(o.obs[n - 1]!)) })];
}

/** Service Unavailable: the status a quota refusal takes where 429 is not configured (nginx's limit_req). */
const SERVICE_UNAVAILABLE = 503;

/**
 * The quota refusing with 503 instead of 429: exactly the admissible requests admitted (sequential:
 * the first ones), every other request of the series 503 (none 429, none lost; a cap's refusal among
 * requests released together aside). Anything else leaves a 503 the wildcard it is. Null when not.
 */
function refusedWith503(o: Outcomes, k: number, limit: LimitFigures, sequential: boolean): Reason | null {
  if (limit.atLeast || k < 1 || o.rejected.length > 0 || o.wild.length === 0 || o.admitted.length !== k) return null;
  if (!o.wild.every((n) => o.obs[n - 1]?.status === SERVICE_UNAVAILABLE)) return null;
  if (o.admitted.length + o.wild.length + o.uncounted.length !== o.obs.length) return null;
  const firstRequest = Math.min(...o.wild);
  if (sequential && Math.max(...o.admitted) > firstRequest) return null;
  return because('quota-refused-with-503', { firstRequest, count: o.wild.length, admitted: k, ...limit });
}

/** A judgement that the quota refused with 503, where it did. */
function judged503(o: Outcomes, expected: string, why: Reason): Judged {
  return {
    verdict: 'fail',
    expected,
    actual: reasonText(why),
    evidence: [idOf(o, o.admitted.at(-1)), idOf(o, Math.min(...o.wild))],
    notes: [],
    reasons: [why],
  };
}

/** What breaks the count of a sequential series, and the requests that show it. */
function sequentialProblems(
  o: Outcomes,
  k: number,
  limit: LimitFigures,
  sent: number,
): { problems: Reason[]; evidence: (number | undefined)[] } {
  const firstR = o.rejected[0];
  const problems: Reason[] = [];
  const evidence: (number | undefined)[] = [];
  // Requests released together were taken in an order nobody saw: one of them counts as before the
  // first 429 if it shares its part, and an admission is after a 429 only in a later part.
  const upTo = (n: number) => lastOfPart(o, n);
  if (firstR !== undefined) {
    const admittedBefore = o.admitted.filter((n) => n <= upTo(firstR)).length;
    const unclearBefore = o.wild.filter((n) => n <= upTo(firstR)).length;
    if (admittedBefore + unclearBefore < k) {
      problems.push(
        because('refused-early', {
          firstRefusedAt: firstR,
          together: partOf(o, firstR),
          admittedBefore,
          admissible: k,
          unclearBefore,
          ...limit,
        }),
      );
      evidence.push(idOf(o, o.admitted.filter((n) => n <= upTo(firstR)).at(-1)), idOf(o, firstR));
    }
  }
  if (!limit.atLeast && o.admitted.length > k) {
    const over = o.admitted[k]!;
    problems.push(because('admitted-past-limit', { admittedAt: over, firstRefusedAt: firstR ?? null, sent, ...limit }));
    evidence.push(idOf(o, o.admitted[k - 1]), idOf(o, over), idOf(o, firstR));
  }
  if (firstR !== undefined && o.admitted.length <= k) {
    const late = o.admitted.find((n) => n > upTo(firstR));
    if (late !== undefined) {
      problems.push(because('admitted-after-refusal', { admittedAt: late, firstRefusedAt: firstR }));
      evidence.push(idOf(o, firstR), idOf(o, late));
    }
  }
  return { problems, evidence };
}

/** The sequential series' sentences, written from its data: what the Limit admits, and a pass's count. */
const sequentialExpected = (data: QuotaData, limit: LimitFigures) =>
  `requests 1–${data.admissible} admitted, 429 at request ${data.admissible + 1} (${limitText(limit)})`;
const sequentialPassed = (data: QuotaData) =>
  `requests 1–${data.admissible} admitted, 429 at request ${data.first429}${data.refused > 1 ? ` and on the ${data.refused - 1} after it` : ''}`;

function judgeSequential(o: Outcomes, data: QuotaData, limit: LimitFigures): Judged {
  const k = data.admissible;
  const minimumOnly = limit.atLeast;
  const sent = o.obs.length - o.uncounted.length;
  const expected = sequentialExpected(data, limit);
  const firstR = o.rejected[0];
  const { problems, evidence } = sequentialProblems(o, k, limit, sent);
  const wild = wildReasons(o);
  if (problems.length > 0)
    return {
      verdict: 'fail',
      expected,
      actual: problems.map(reasonText).join('; '),
      evidence,
      notes: [],
      reasons: [...problems, ...wild],
    };
  const with503 = refusedWith503(o, k, limit, true);
  if (with503) return judged503(o, expected, with503);
  if (minimumOnly) {
    // The reason (no announced Limit) is the series': quotaToJudge gives it.
    return {
      verdict: 'inconclusive',
      expected,
      actual: `${o.admitted.length} admitted${firstR !== undefined ? `, first 429 at request ${firstR}` : ''}`,
      evidence: [idOf(o, firstR)],
      notes: [],
      reasons: wild,
    };
  }
  if (o.wild.length > 0) {
    return {
      verdict: 'inconclusive',
      expected,
      actual: `${o.admitted.length} admitted; ${listSome(
        o.wild.map((n) => `${outcomeOf(o.obs[n - 1]!)} at request ${n}`),
        3,
        ', ',
      )}`,
      evidence: o.wild.slice(0, 3).map((n) => idOf(o, n)),
      notes: [],
      reasons: wild,
    };
  }
  if (sent < k + 1 || firstR === undefined) {
    const tooFew = because('too-few-requests', { sent, needed: k + 1, allAdmitted: true });
    return {
      verdict: 'inconclusive',
      expected,
      actual: reasonText(tooFew),
      evidence: [idOf(o, o.admitted.at(-1))],
      notes: [],
      reasons: [tooFew],
    };
  }
  return {
    verdict: 'pass',
    expected,
    actual: sequentialPassed(data),
    evidence: [idOf(o, o.admitted[k - 1]), idOf(o, firstR)],
    notes: [],
    reasons: [],
  };
}

/** The burst's sentences, written from its data: what the Limit admits of it, and its count. */
const burstExpected = (data: QuotaData, limit: LimitFigures) =>
  `exactly ${data.admissible} of ${Math.max(data.series.length, data.admissible + 1)} released together admitted, every other one 429 (${limitText(limit)})`;
const burstCounts = (data: QuotaData) => `admitted ${data.admitted} of ${data.series.length}; ${data.refused} got 429`;

function judgeBurst(o: Outcomes, data: QuotaData, limit: LimitFigures): Judged {
  const k = data.admissible;
  const minimumOnly = limit.atLeast;
  const { admitted: a, refused: r } = data;
  const sent = data.series.length;
  const expected = burstExpected(data, limit);
  const byArrival = (ns: readonly number[]) =>
    [...ns].sort((x, y) => (o.obs[x - 1]?.headersAt ?? Infinity) - (o.obs[y - 1]?.headersAt ?? Infinity));
  const firstRejectedToArrive = byArrival(o.rejected)[0];
  const wild = wildReasons(o);
  const fail = (
    code: 'burst-admitted-past-limit' | 'burst-admitted-short',
    evidence: (number | undefined)[],
  ): Judged => {
    const why = because(code, { admitted: a, sent, refused: r, ...limit });
    return { verdict: 'fail', expected, actual: reasonText(why), evidence, notes: [], reasons: [why, ...wild] };
  };

  if (!minimumOnly && a > k) {
    return fail(
      'burst-admitted-past-limit',
      [...byArrival(o.admitted).slice(k).slice(0, 3), firstRejectedToArrive].map((n) => idOf(o, n)),
    );
  }
  if (r > 0 && a + o.wild.length < k) {
    return fail('burst-admitted-short', [idOf(o, byArrival(o.admitted).at(-1)), idOf(o, firstRejectedToArrive)]);
  }
  const with503 = refusedWith503(o, k, limit, false);
  if (with503) return judged503(o, expected, with503);
  const counts = burstCounts(data);
  if (minimumOnly) {
    // The reason (no announced Limit) is the series': quotaToJudge gives it.
    return { verdict: 'inconclusive', expected, actual: counts, evidence: [], notes: [], reasons: wild };
  }
  if (sent < k + 1) {
    const tooFew = because('too-few-requests', { sent, needed: k + 1, allAdmitted: false });
    return {
      verdict: 'inconclusive',
      expected,
      actual: reasonText(tooFew),
      evidence: [],
      notes: [],
      reasons: [tooFew, ...wild],
    };
  }
  if (o.wild.length > 0) {
    return {
      verdict: 'inconclusive',
      expected,
      actual: `${counts}; ${o.wild.length} unclear`,
      evidence: o.wild.slice(0, 3).map((n) => idOf(o, n)),
      notes: [],
      reasons: wild,
    };
  }
  return {
    verdict: 'pass',
    expected,
    actual: counts,
    evidence: [idOf(o, byArrival(o.admitted).at(-1)), idOf(o, firstRejectedToArrive)],
    notes: [],
    reasons: [],
  };
}
