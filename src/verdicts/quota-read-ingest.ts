/**
 * QUOTA-READ (§7.1, §8) and QUOTA-INGEST (§8): exactly Limit requests (or units, for bulk
 * uploads under `bulk-counts-per-resume`) are admitted in one window, and the rest get 429.
 *
 * Sequential: requests 1…k admitted, k+1 rejected. Burst (released together, order unknown):
 * exactly k of ≥ k+1 admitted, every other one 429. A request whose fate is unknown (no
 * response, or a status that is neither 2xx nor 429) is a wildcard: it may or may not have
 * counted. The verdict fails only when no reading of the wildcards conforms, and is
 * inconclusive when one does but the wildcards keep it from being proven.
 */
import { exactFigureText } from '../contract/org-limits.ts';
import type { Figure } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';
import {
  TOO_MANY_REQUESTS,
  countOf,
  finding,
  isAdmitted,
  listSome,
  outcomeOf,
  judgedFinding,
} from './support/finding.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';
import { limitText, type LimitFigures } from '../catalogue/reasons/quota.ts';
import { announcedLimit, type AnnouncedLimit } from './hdr-limit.ts';
import { seriesOf, type SeriesPoint } from './hdr-remaining.ts';
import type { Finding } from '../catalogue/types.ts';
import { withinOneWindow, type WindowIntegrity } from './support/window-integrity.ts';
import { windowSafeEnd } from '../measure/window.ts';
import { freshness, refillCheck, spentBefore, type Judged, type QuotaExactInput } from './support/quota-window.ts';
import { lostByAdmissions, lostByRemaining, lostReason, type LostReading } from './support/lost-requests.ts';
import { togetherText, uncountedTogether, type ReleasedTogether } from './support/released-together.ts';

export type { QuotaExactInput };

/** `data` of QUOTA-READ and QUOTA-INGEST: the series (the report's chart), the Limit judged by, what was admitted, the first 429. */
export type QuotaData = {
  readonly series: readonly SeriesPoint[];
  readonly limit: number | null;
  readonly admitted: number;
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
 * announced Limit below the published minimum, and notes on both.
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
    if (announced.value !== null && announced.value !== figure.value) {
      notes.push(`the server announced Limit ${announced.value}; judged against the ${exactFigureText(figure)}`);
    } else if (figure.declared) {
      notes.push(`judged against the ${exactFigureText(figure)}`);
    }
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
function ledgerNotes(prior: readonly Observation[], sentBefore: readonly Observation[]): string[] {
  if (prior.length > 0)
    return [
      `${countOf(prior.length, 'request')} of the harness's own (${prior.map((o) => `${o.method} ${o.path} #${o.id}`).join(', ')}) counted in this window before the first`,
    ];
  if (sentBefore.length > 0)
    return [
      `the harness's own ${sentBefore.map((o) => `${o.method} ${o.path} #${o.id}`).join(', ')} counted on a counter of its own: the first Remaining shows this one untouched`,
    ];
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
  /** What the series as a whole gives reason for (no announced Limit, lost requests read), beside the judgement's own. */
  readonly reasons: readonly Reason[];
  readonly data: QuotaData;
  /** The Limit judged by; null where only a shortfall can be judged. */
  readonly quota: number | null;
  /** The quota left to the series once the ledger's requests are taken off. */
  readonly left: number;
  readonly units: number;
  /** The harness's own requests counted in this window before the series. */
  readonly spent: number;
}

/** An announced Limit below the published minimum fails, whatever the series shows. */
function failBelowMinimum(c: QuotaCase, belowMinimum: number, integrityNote: string): Finding<QuotaData> {
  const { obs, judged, input } = c;
  const announcedBy = obs.find((o) => o.rateLimit.limit.value === belowMinimum);
  const below = because('limit-below-minimum', { announced: belowMinimum, publishedMinimum: input.figure.value });
  return finding('fail', {
    expected: `Limit at least ${input.figure.value} (published minimum); ${judged.expected}`,
    actual: `${reasonText(below)}; ${judged.verdict === 'pass' ? 'otherwise exact: ' : ''}${judged.actual}`,
    evidence: [announcedBy?.id, ...judged.evidence],
    notes: [...c.notes, ...judged.notes, integrityNote],
    reasons: [below, ...judged.reasons, ...c.reasons],
    data: c.data,
  });
}

/** A series not within one window: a fail if it over-admitted while the window surely lasted, else inconclusive. */
function judgeOutsideWindow(c: QuotaCase, integrity: Extract<WindowIntegrity, { ok: false }>): Finding<QuotaData> {
  const { obs, input, judged, notes, data, quota, left, units } = c;
  // More admitted than the quota among the requests answered while the window surely lasted is an
  // over-admission whatever came after; anything else needs the whole series in one window.
  const safeEnd = windowSafeEnd(input.window, obs[0]);
  const inside = obs.filter((o) => o.doneAt <= safeEnd && isAdmitted(o));
  const k = Math.floor(left / units);
  if (quota !== null && integrity.reason.code !== 'window-rolled-over' && inside.length > k) {
    const over = because('admitted-past-limit-in-window', {
      admitted: inside.length,
      ...limitFigures(left, units, false, c.spent),
    });
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
  notes.push(...ledgerNotes(prior, input.window.prior));
  const lost = lostRequests(obs, input, prior, announced.value, units);
  for (const [i, reading] of [...lost].sort(([a], [b]) => a - b)) reasons.push(lostReason(i + 1, obs[i]!, reading));
  const outcomes = classify(obs, lost, input.together ?? []);
  notes.push(...togetherNotes(outcomes));
  const first429 = outcomes.rejected[0] ?? null;
  const data: QuotaData = {
    series: seriesOf(obs),
    limit: quota,
    admitted: outcomes.admitted.length,
    ...(units > 1 ? { admittedUnits: outcomes.admitted.length * units, unitsPerRequest: units } : {}),
    first429,
  };

  const judge = variant === 'sequential' ? judgeSequential : judgeBurst;
  const left = Math.max(0, (quota ?? figure.value) - prior.length);
  const judged = refillCheck(judge(outcomes, left, units, quota === null, prior.length), obs, input);

  const integrity =
    freshness(obs, announced.value, prior.length, input.window, units) ?? withinOneWindow(obs, input.window);
  const c: QuotaCase = { obs, input, judged, notes, reasons, data, quota, left, units, spent: prior.length };
  if (belowMinimum !== null) return failBelowMinimum(c, belowMinimum, integrity.note);
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
    notes: [...notes, ...judged.notes, integrity.note],
    reasons: [...judged.reasons, ...perRequest, ...reasons],
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

/** What the parts released together were, and the cap's refusals among them. */
function togetherNotes(o: Outcomes): string[] {
  if (o.together.length === 0) return [];
  const parts = o.together.map(togetherText).join(', ');
  const cap =
    o.uncounted.length === 0
      ? []
      : [
          `${listSome(
            o.uncounted.map((n) => `request ${n} (Remaining ${o.obs[n - 1]!.rateLimit.remaining.value})`),
            5,
            ', ',
          )} refused with quota left among requests released together: the concurrency cap's refusal, counted for nothing`,
        ];
  return [`${parts}; the rest one at a time`, ...cap];
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

function limitFigures(quota: number, units: number, minimumOnly: boolean, spent: number): LimitFigures {
  return { limit: quota + spent, unitsPerRequest: units, spentBefore: spent, atLeast: minimumOnly };
}

function idOf(o: Outcomes, n: number | undefined): number | undefined {
  return n === undefined ? undefined : o.obs[n - 1]?.id;
}

/** Requests whose fate is unknown (no answer, neither 2xx nor 429): why the count cannot be sure. */
function wildReasons(o: Outcomes): Reason[] {
  if (o.wild.length === 0) return [];
  return [because('outcome-unknown', { requests: o.wild, outcomes: o.wild.map((n) => outcomeOf(o.obs[n - 1]!)) })];
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

function judgeSequential(o: Outcomes, quota: number, units: number, minimumOnly: boolean, spent: number): Judged {
  const k = Math.floor(quota / units);
  const sent = o.obs.length - o.uncounted.length;
  const limit = limitFigures(quota, units, minimumOnly, spent);
  const expected = `requests 1–${k} admitted, 429 at request ${k + 1} (${limitText(limit)})`;
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
  const after = o.rejected.length > 1 ? ` and on the ${o.rejected.length - 1} after it` : '';
  return {
    verdict: 'pass',
    expected,
    actual: `requests 1–${k} admitted, 429 at request ${firstR}${after}`,
    evidence: [idOf(o, o.admitted[k - 1]), idOf(o, firstR)],
    notes: [],
    reasons: [],
  };
}

function judgeBurst(o: Outcomes, quota: number, units: number, minimumOnly: boolean, spent: number): Judged {
  const k = Math.floor(quota / units);
  const sent = o.obs.length;
  const a = o.admitted.length;
  const r = o.rejected.length;
  const limit = limitFigures(quota, units, minimumOnly, spent);
  const expected = `exactly ${k} of ${Math.max(sent, k + 1)} released together admitted, every other one 429 (${limitText(limit)})`;
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
  const counts = `admitted ${a} of ${sent}; ${r} got 429`;
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
