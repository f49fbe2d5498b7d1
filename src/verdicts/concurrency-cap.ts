/**
 * CONCURRENCY-CAP (§8, `concurrency-status`): with the cap of slow uploads held in flight, every one
 * is admitted, and one more fast read, sent while they are all in service, is not served beside
 * them: refused (429 assumed; 503 a gateway's "too many"), or held until one of them finishes.
 *
 * Decided from the run's own timings, whatever the server says or counts (support/held-timing.ts,
 * whose inequalities hold for any split of a round trip into its two ways): the extra counts only
 * when every held upload reached the server before it (A), and it reached the server before any of
 * their answers left (B). Then:
 * - refused with a "too many" status: pass; with another status: inconclusive, named as what it is
 *   (§8 does not say how the cap answers, and the status alone cannot tell a cap from a failure);
 * - admitted, its answer gone before any held one's (C): fail, cap + 1 served at once;
 * - admitted only as a held one finished: pass, but only against the control, the same read with
 *   one fewer held (with nothing held at a cap of one), answered while those were in service: else a
 *   server merely slow would pass by luck.
 * An extra sent too early or too late proves nothing: inconclusive, and `measureAgain` says a later
 * measurement may decide it. A held upload refused fails the check (the held ones alone never exceed
 * the cap), unless it is the only one and the extra was admitted (the server may have seen the extra
 * first), its Remaining 0 says the quota may have refused it, or it is the last upload alone, sent
 * once the control was admitted with the cap in flight (the control's slot not yet freed).
 */
import type { Figure } from '../contract/types.ts';
import { exactFigureText } from '../contract/org-limits.ts';
import type { Observation } from '../measure/observation.ts';
import type { ConcurrencyAnswer, Learned } from '../profile/types.ts';
import type { CheckResult, Finding } from '../catalogue/types.ts';
import {
  TOO_MANY_REQUESTS,
  describe,
  finding,
  isAdmitted,
  listSome,
  outcomeOf,
  atLeastOne,
} from './support/finding.ts';
import {
  heldInService,
  holdFigures,
  holdSpanMs,
  ms,
  placeAgainst,
  tooFastToHold,
  figuresText,
  inequalityText,
  type HoldFigures,
  type Inequality,
  type InequalityName,
  type Placement,
  type PlacedRequest,
} from './support/held-timing.ts';
import { heldUploadFigures } from '../measure/network.ts';
import { relativeTo } from '../util/phrases.ts';
import { because, reasonText, type Reason } from '../catalogue/reasons/index.ts';

/** A gateway's "too many" (RFC 9110 §15.6.4: overloaded), taken as the cap's refusal too. */
export const SERVICE_UNAVAILABLE = 503;

export interface ConcurrencyCapInput {
  /** The cap of slow uploads: all but the last sent together, the last once the control was answered. */
  readonly held: readonly Observation[];
  /** The fast read sent with every held upload in service. */
  readonly extra: Observation;
  /** The same read, sent with the held uploads sent before it (one fewer than the cap) in service. */
  readonly control: Observation;
  /** Fast reads sent one after another before anything was held: with the control, their round trips bound the network. */
  readonly roundTrips: readonly Observation[];
  /** Uploads of earlier measurements: with the held ones, they give the fastest upload. */
  readonly earlierUploads?: readonly Observation[];
  readonly figure: Figure;
  /** The cap the harness tested where the figure is a minimum (Enterprise). */
  readonly capAnnounced?: number;
  /** The contract's `statuses.concurrencyCapped` (429 when absent). */
  readonly rejectedStatus?: number;
}

/** What the measurement showed; `undecided` when it could not show the extra met the cap full. */
export type ConcurrencyOutcome = 'refused' | 'admitted' | 'queued' | 'undecided';

/** One request of the measurement, for the report's timeline (ms from the first send). */
export interface HeldTimelineRow {
  readonly role: 'held' | 'control' | 'extra';
  readonly sentMs: number;
  readonly answeredMs: number | null;
  readonly status: number | null;
}

/** One inequality the judgement weighed, with its figures (support/held-timing.ts). */
export interface InequalityWeighed {
  readonly request: PlacedRequest;
  readonly name: InequalityName;
  readonly held: boolean;
  /** What was measured, ms (null: nothing held before it). */
  readonly gapMs: number | null;
  /** What it had to exceed, ms. */
  readonly boundMs: number;
}

/** When the extra had to leave for (A) and (B) to hold, on the timeline (ms from the first send): after `fromMs`, before `toMs`. */
export interface ExtraWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/** `data` of CONCURRENCY-CAP: the figures of the timing proof, the inequalities weighed, the outcome, the profile's answer and the timeline. */
export type ConcurrencyCapData = {
  readonly cap: number;
  /** The status the contract assumes the cap refuses with (assumption concurrency-status). */
  readonly rejectedStatus: number;
  readonly outcome: ConcurrencyOutcome;
  readonly extraStatus: number | null;
  readonly controlStatus: number | null;
  /** m, M, σ, λ, L and the bounds of (A), (B), (C), ms; null where no round trip or upload was timed. */
  readonly figures: HoldFigures | null;
  /** Every inequality the judgement weighed, held or not. */
  readonly inequalities: readonly InequalityWeighed[];
  readonly extraWindow: ExtraWindow | null;
  /** What the limiter profile learns (withConcurrency). */
  readonly answer: Learned<ConcurrencyAnswer>;
  readonly timeline: readonly HeldTimelineRow[];
};

type Evidence = readonly (number | null | undefined)[];

/** What every phase of the judgement shares. */
interface Judging {
  readonly input: ConcurrencyCapInput;
  readonly cap: number;
  readonly rejectedStatus: number;
  readonly expected: string;
  readonly notes: readonly string[];
  readonly figures: HoldFigures | null;
  /** The finding's data: its outcome, what the profile learns, and the inequalities weighed. */
  data(
    outcome: ConcurrencyOutcome,
    answer: Learned<ConcurrencyAnswer>,
    weighed?: readonly InequalityWeighed[],
  ): ConcurrencyCapData;
  /**
   * Inconclusive for `reasons`, `actual` also the profile's reason; `measureAgain` when a measurement
   * of its own, in this window while its quota has room, may decide it (Finding.measureAgain
   * 'this-window'). `notes` carry the figures of the timing proof.
   */
  open(
    actual: string,
    evidence: Evidence,
    reasons: readonly Reason[],
    measureAgain: boolean,
    weighed?: readonly InequalityWeighed[],
    notes?: readonly string[],
  ): Finding<ConcurrencyCapData>;
}

/** The extra met the cap full: how, in words and figures, with the observations that show it. */
interface MetCap {
  readonly figures: HoldFigures;
  readonly placed: Placement;
  readonly met: string;
  readonly evidence: Evidence;
}

/** An inequality as the data records it. */
const weigh = (request: PlacedRequest, { name, ok, gapMs, boundMs }: Inequality): InequalityWeighed => ({
  request,
  name,
  held: ok,
  gapMs: gapMs === null ? null : tenth(gapMs),
  boundMs: tenth(boundMs),
});

/** The extra's inequalities as notes: the figures, then each one with its own. */
const extraNotes = (figures: HoldFigures, ...inequalities: Inequality[]): string[] => [
  figuresText(figures),
  ...inequalities.map((i) => inequalityText('extra', i)),
];

export function concurrencyCapVerdict(input: ConcurrencyCapInput): Finding<ConcurrencyCapData> {
  const j = judging(input);
  const shortfall = heldShortfall(j);
  if (shortfall) return shortfall;
  const placed = placeExtra(j);
  if (!('met' in placed)) return placed;
  if (!isAdmitted(input.extra)) return refusedVerdict(j, placed);
  const whileHeld = placed.placed.answeredWhileHeld;
  if (whileHeld.ok) return admittedOrOpen(j, placed);
  // Answered before any held one, but within the bound of the first: served beside them, or right
  // after one finished, the timings cannot tell.
  if (whileHeld.gapMs !== null && whileHeld.gapMs > 0) {
    const ambiguous = because('extra-answer-ambiguous', {
      status: input.extra.status!,
      gapMs: tenth(whileHeld.gapMs),
      boundMs: tenth(whileHeld.boundMs),
    });
    const weighed = extraWeighed(placed.placed);
    const proof = [figuresText(placed.figures), inequalityText('extra', whileHeld)];
    return j.open(reasonText(ambiguous), placed.evidence, [ambiguous], true, weighed, proof);
  }
  return queuedVerdict(j, placed);
}

/** The extra's three inequalities as the data records them. */
const extraWeighed = (p: Placement): InequalityWeighed[] =>
  [p.heldArrivedFirst, p.arrivedBeforeAnswers, p.answeredWhileHeld].map((i) => weigh('extra', i));

function judging(input: ConcurrencyCapInput): Judging {
  const rejectedStatus = input.rejectedStatus ?? TOO_MANY_REQUESTS;
  const { cap, notes } = capJudged(input);
  const figures = holdFigures(
    fastReads(input),
    [...input.held, ...(input.earlierUploads ?? [])],
    [...input.held, input.control, input.extra],
  );
  const expected = `all ${cap} held requests admitted, and one more, sent while they were all in service, refused (${rejectedStatus} assumed) or held until one of them finished`;
  const data: Judging['data'] = (outcome, answer, weighed = []) =>
    dataOf({ cap, rejectedStatus, outcome, input, figures, answer, weighed });
  return {
    input,
    cap,
    rejectedStatus,
    expected,
    notes,
    figures,
    data,
    open: (actual, evidence, reasons, measureAgain, weighed, proof = []) =>
      finding('inconclusive', {
        expected,
        actual,
        evidence,
        notes: [...notes, ...proof],
        reasons: atLeastOne(reasons),
        data: data('undecided', unknown(actual, evidence), weighed),
        measureAgain: measureAgain && 'this-window',
      }),
  };
}

/**
 * The fast reads whose round trips bound the network: those timed before anything was held, and the
 * control, a read sent as the extra is, into the same held uploads (a server slowed by them slows both).
 */
const fastReads = (input: ConcurrencyCapInput): Observation[] => [...input.roundTrips, input.control];

/** The cap judged by: the published one, or for a minimum (Enterprise) the one announced or tested. */
function capJudged(input: ConcurrencyCapInput): { cap: number; notes: string[] } {
  const { figure, held, capAnnounced } = input;
  if (!figure.atLeast) {
    const notes =
      capAnnounced !== undefined && capAnnounced !== figure.value
        ? [`cap ${capAnnounced} was announced; judged against the ${exactFigureText(figure)}`]
        : [];
    return { cap: figure.value, notes };
  }
  const cap = capAnnounced ?? held.length;
  const notes: string[] = [];
  if (cap < figure.value) notes.push(`cap ${cap} is below the published minimum ${figure.value}`);
  if (capAnnounced === undefined)
    notes.push(`the published cap is at least ${figure.value}; tested with ${held.length} held`);
  return { cap, notes };
}

/** The held uploads: not the cap of them, or not all admitted. Null when they are. */
function heldShortfall(j: Judging): Finding<ConcurrencyCapData> | null {
  const { held, extra, figure } = j.input;
  const { cap } = j;
  if (held.length !== cap) {
    const notHeld = because('cap-not-held', { held: held.length, cap });
    return j.open(reasonText(notHeld), [extra.id], [notHeld], false);
  }
  // Enterprise: with cap + 1 at most the published minimum in flight, the server must admit them all.
  if (figure.atLeast && cap + 1 <= figure.value) return underMinimumVerdict(j);
  const admitted = held.filter(isAdmitted).length;
  const tally = `${admitted} of ${held.length} held admitted`;
  const refused = held.filter((o) => o.status !== null && !isAdmitted(o));
  const lost = held.filter((o) => o.status === null);
  const some = (list: readonly Observation[]) => [...list.slice(0, 3).map((o) => o.id), extra.id];
  if (refused.length === 1 && isAdmitted(extra)) {
    const first = refused[0]!;
    const seenFirst = because('extra-seen-first', {
      request: first.id,
      status: first.status!,
      extraStatus: extra.status!,
    });
    return j.open(`${tally}; ${describe(first)}; the extra got ${extra.status}`, some(refused), [seenFirst], true);
  }
  // A refusal showing the quota used up may be the quota's, not the cap's: no fail on it.
  const quota = refused.filter((o) => o.rateLimit.remaining.value === 0);
  if (quota.length > 0) {
    return j.open(
      `${tally}; ${listSome(quota.map((o) => `${describe(o)}, Remaining 0`))}`,
      some(quota),
      [because('held-refused-quota-spent', { requests: quota.map((o) => o.id) })],
      false,
    );
  }
  const lingering = lingeringControl(j, refused);
  if (lingering) return lingering;
  if (refused.length > 0) {
    const actual = `cap admitted only ${admitted} of ${cap}: ${listSome(refused.map(describe))}; extra got ${outcomeOf(extra)}`;
    return finding('fail', {
      expected: j.expected,
      actual,
      evidence: some(refused),
      notes: j.notes,
      reasons: [
        because('held-refused', {
          admitted,
          cap,
          statuses: [...new Set(refused.map((o) => o.status!))],
          requests: refused.map((o) => o.id),
        }),
      ],
      data: j.data('undecided', unknown(actual, [])),
    });
  }
  if (lost.length > 0) {
    return j.open(
      `${tally}; ${listSome(lost.map(describe))}; extra got ${outcomeOf(extra)}`,
      some(lost),
      [because('held-unanswered', { requests: lost.map((o) => o.id) })],
      true,
    );
  }
  return null;
}

/**
 * The last upload alone refused, sent once the control was answered, the control admitted while the
 * uploads before it were all still waiting for their answers: the server had the cap in flight at
 * once and admitted it, so the refusal shows the control's slot still counted when the last upload
 * arrived (a server frees a slot on its own time after its answer leaves), not a cap under its
 * figure. Null where that is not the case.
 */
function lingeringControl(j: Judging, refused: readonly Observation[]): Finding<ConcurrencyCapData> | null {
  const { held, control, extra } = j.input;
  const last = held.reduce((a, b) => (b.sentAt > a.sentAt ? b : a));
  const others = held.filter((o) => o !== last);
  const controlAt = control.headersAt;
  if (refused.length !== 1 || refused[0] !== last || !isAdmitted(control) || controlAt === null) return null;
  if (last.sentAt <= controlAt || others.some((o) => o.headersAt === null || o.headersAt <= controlAt)) return null;
  const actual = `${held.length - 1} of ${held.length} held admitted; ${describe(last)}, sent ${ms(last.sentAt - controlAt)} after the control's answer; the extra got ${outcomeOf(extra)}`;
  const lingering = because('control-slot-lingering', {
    request: last.id,
    afterControlMs: tenth(last.sentAt - controlAt),
    before: others.length,
    cap: j.cap,
  });
  return j.open(actual, [last.id, control.id, extra.id], [lingering], true);
}

/** Where the extra fell among the held uploads: it met the cap full, or why that is not shown. */
function placeExtra(j: Judging): MetCap | Finding<ConcurrencyCapData> {
  const { held, control, extra } = j.input;
  const { figures } = j;
  const tally = `${j.cap} of ${j.cap} held admitted`;
  if (extra.status === null || extra.headersAt === null) {
    const lost = because('extra-unanswered', { error: outcomeOf(extra) });
    return j.open(`${tally}; extra got no response (${outcomeOf(extra)})`, [extra.id], [lost], true);
  }
  if (
    ![...held, control, extra].every(
      (o) => Number.isFinite(o.sentAt) && (o.headersAt === null || Number.isFinite(o.headersAt)),
    )
  ) {
    return j.open(
      `${tally}; extra got ${extra.status}, but the order of the answers is unknown (times missing)`,
      [extra.id],
      [because('answer-times-missing', {})],
      true,
    );
  }
  if (figures === null) {
    return j.open(
      `${tally}; extra got ${extra.status}, but no round trip of a fast read was measured`,
      [extra.id],
      [because('no-round-trip-timed', {})],
      true,
    );
  }
  const placed = placeAgainst(extra, held, figures);
  const { heldArrivedFirst: early, arrivedBeforeAnswers: late } = placed;
  if (early.ok && late.ok) {
    return {
      figures,
      placed,
      met: `sent ${ms(early.gapMs!)} after the last held upload and ${ms(late.gapMs!)} before the first held answer, so with every held one on the server (${shortFigures(figures)})`,
      evidence: [extra.id, late.first?.id, early.last?.id],
    };
  }
  const weighed = [weigh('extra', early), weigh('extra', late)];
  if (tooFastToHold(figures, figures.fastestUploadMs)) return tooFastVerdict(j, figures, weighed);
  if (!early.ok) {
    const actual = `the extra was sent too early (${shortFigures(figures)}): ${relativeTo(early.gapMs!, 'after', 'before')} held ${describe(early.last!)} was sent, not more than σ = ${ms(early.boundMs)} after, so it may have reached the server first`;
    const tooEarly = because('extra-sent-too-early', {
      request: early.last!.id,
      gapMs: tenth(early.gapMs!),
      boundMs: tenth(early.boundMs),
    });
    const proof = [figuresText(figures), inequalityText('extra', early)];
    return j.open(actual, [extra.id, early.last?.id], [tooEarly], true, weighed, proof);
  }
  const actual = `the extra was sent too late (${shortFigures(figures)}): ${relativeTo(late.gapMs!)} held ${describe(late.first!)} was answered, not more than m + 2σ + λ = ${ms(late.boundMs)} before, so a slot may have freed before it arrived`;
  const tooLate = because('extra-sent-too-late', {
    request: late.first!.id,
    gapMs: tenth(late.gapMs!),
    boundMs: tenth(late.boundMs),
  });
  const proof = [figuresText(figures), inequalityText('extra', late)];
  return j.open(actual, [extra.id, late.first?.id], [tooLate], true, weighed, proof);
}

/** "m 70 ms, σ 20 ms, λ 0 ms, L 1580 ms": the figures a placement's words cite. */
const shortFigures = (f: HoldFigures): string =>
  `m ${ms(f.fastestTripMs)}, σ ${ms(f.strayMs)}, λ ${ms(f.readLateMs)}, L ${ms(f.fastestUploadMs)}`;

/**
 * The extra missed its place among uploads too short to place anything among: said so with the
 * figures, and measured again. A round trip slowed by a moment's load (were every fast read as quick
 * as the quickest, the uploads would be long enough) may not recur. Every read slow may be load too
 * (the harness's own other tasks at the same moment: revocation probes every edge every few ms),
 * which the reads alone cannot tell from a slow network: measured again in another window (within
 * the run's announced uploads), a quieter moment may decide it either way.
 */
function tooFastVerdict(
  j: Judging,
  figures: HoldFigures,
  weighed: readonly InequalityWeighed[],
): Finding<ConcurrencyCapData> {
  const { extra, roundTrips } = j.input;
  const actual = `the uploads are too fast to hold: the fastest took ${ms(figures.fastestUploadMs)}, and placing a request among held ones takes more than ${ms(holdSpanMs(figures))} (${shortFigures(figures)})`;
  const quiet = heldUploadFigures([figures.fastestTripMs], figures.readLateMs)!;
  const measured = {
    fastestUploadMs: tenth(figures.fastestUploadMs),
    holdSpanMs: tenth(holdSpanMs(figures)),
    fastestTripMs: tenth(figures.fastestTripMs),
  };
  const why = !tooFastToHold(quiet, figures.fastestUploadMs)
    ? because('reads-slow-now', { ...measured, slowestTripMs: tenth(figures.slowestTripMs) })
    : because('uploads-too-fast', measured);
  const evidence = [extra.id, ...roundTrips.map((o) => o.id)];
  return j.open(actual, evidence, [why], true, weighed, [figuresText(figures)]);
}

/** The extra met the cap full and was refused: a "too many" passes; any other status is named as what it is. */
function refusedVerdict(j: Judging, { figures, placed, met, evidence }: MetCap): Finding<ConcurrencyCapData> {
  const { extra, control } = j.input;
  const { expected, rejectedStatus } = j;
  const notes = [...j.notes, ...extraNotes(figures, placed.heldArrivedFirst, placed.arrivedBeforeAnswers)];
  const weighed = extraWeighed(placed).slice(0, 2);
  const status = extra.status!;
  const answer = learned(
    { kind: 'refuses', status },
    `one request beyond the cap of ${j.cap}, sent with the ${j.cap} held in service, got ${status}`,
    evidence,
  );
  if (!isAdmitted(control)) {
    const actual = `the extra got ${status}, ${met}; but the control, the same read with one fewer held, got ${outcomeOf(control)} too`;
    return finding('inconclusive', {
      expected,
      actual,
      evidence: [...evidence, control.id],
      notes,
      reasons: [because('control-refused', { status, controlOutcome: outcomeOf(control) })],
      data: j.data('undecided', unknown(actual, [control.id]), weighed),
      measureAgain: 'this-window',
    });
  }
  if (![rejectedStatus, TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE].includes(status)) {
    const actual = `the extra got ${status}, ${met}: a refusal, but not one that says "too many"`;
    return finding('inconclusive', {
      expected,
      actual,
      evidence,
      notes,
      reasons: [because('cap-refusal-not-too-many', { status, assumed: rejectedStatus })],
      data: j.data('refused', answer, weighed),
    });
  }
  const gateway =
    status === SERVICE_UNAVAILABLE && rejectedStatus !== SERVICE_UNAVAILABLE
      ? [because('cap-refused-503', { assumed: rejectedStatus })]
      : [];
  return finding('pass', {
    expected,
    actual: `all ${j.cap} held admitted; the extra got ${status}, ${met}`,
    evidence,
    notes,
    reasons: gateway,
    data: j.data('refused', answer, weighed),
  });
}

/**
 * An extra admitted and answered while every held one was in service fails, but only where (A′)
 * holds too: a held upload late on its way (a segment sent again, a handshake) can have reached the
 * server after the extra, which then met one fewer than the cap.
 */
function admittedOrOpen(j: Judging, met: MetCap): Finding<ConcurrencyCapData> {
  const inService = heldInService(j.input.extra, j.input.held, met.figures);
  if (inService.ok) return admittedVerdict(j, met);
  const late = because('held-may-have-arrived-late', { status: j.input.extra.status! });
  const weighed = [...extraWeighed(met.placed), weigh('extra', inService)];
  const proof = [figuresText(met.figures), inequalityText('extra', inService)];
  return j.open(reasonText(late), met.evidence, [late], true, weighed, proof);
}

/** The extra met the cap full, was admitted, and its answer left before any held one's: cap + 1 at once. */
function admittedVerdict(j: Judging, { figures, placed, met, evidence }: MetCap): Finding<ConcurrencyCapData> {
  const { extra, figure, capAnnounced } = j.input;
  const { cap } = j;
  const whileHeld = placed.answeredWhileHeld;
  const weighed = extraWeighed(placed);
  // Enterprise "100 or more": without the organization's own cap, one more admitted may be within it.
  if (figure.atLeast && capAnnounced === undefined) {
    const above = because('cap-above-tested', { status: extra.status!, cap, minimum: figure.value });
    return j.open(reasonText(above), evidence, [above], false, weighed, [inequalityText('extra', whileHeld)]);
  }
  const actual = `admitted all ${cap + 1}: the extra got ${extra.status}, ${met}, and was answered ${ms(whileHeld.gapMs!)} before the first of them, more than σ + λ = ${ms(whileHeld.boundMs)}`;
  const answer = learned(
    { kind: 'no-cap' },
    `one request beyond the cap of ${cap} was served while the ${cap} held were in service (${shortFigures(figures)})`,
    evidence,
  );
  return finding('fail', {
    expected: j.expected,
    actual,
    evidence,
    notes: [...j.notes, ...extraNotes(figures, placed.heldArrivedFirst, placed.arrivedBeforeAnswers, whileHeld)],
    reasons: [
      because('cap-exceeded', {
        cap,
        status: extra.status!,
        gapMs: tenth(whileHeld.gapMs!),
        boundMs: tenth(whileHeld.boundMs),
      }),
    ],
    data: j.data('admitted', answer, weighed),
  });
}

/**
 * The extra met the cap full, was admitted, and answered only once a held upload could have
 * finished: queued, if it was answered as soon as the first slot freed (within m + 2σ + λ of the
 * first held answer: a read served the moment a slot frees comes back that soon, whichever way
 * strays), and the control shows the same read answered fast with one fewer held ((A) and (C) of the
 * control against the uploads sent before it). Answered later, it may have reached the server late
 * on its way and been served with no queue at all.
 */
function queuedVerdict(j: Judging, { figures, placed, met, evidence }: MetCap): Finding<ConcurrencyCapData> {
  const { extra, control, held } = j.input;
  const { expected, cap } = j;
  const whileHeld = placed.answeredWhileHeld;
  const afterFirst = -(whileHeld.gapMs ?? 0);
  if (afterFirst > figures.arrivedBeforeAnswerMs) {
    const late = because('extra-answered-late', {
      status: extra.status!,
      afterFirstMs: tenth(afterFirst),
      boundMs: tenth(figures.arrivedBeforeAnswerMs),
    });
    return j.open(reasonText(late), evidence, [late], true, extraWeighed(placed), [figuresText(figures)]);
  }
  const waited = `the extra got ${extra.status}, answered ${relativeTo(whileHeld.gapMs!)} the first held answer (not more than σ + λ = ${ms(whileHeld.boundMs)} before it), ${met}`;
  const before = held.filter((o) => o.sentAt < control.sentAt);
  const controlPlaced = placeAgainst(control, before, figures);
  const controlChecks = [controlPlaced.heldArrivedFirst, controlPlaced.answeredWhileHeld];
  const weighed = [...extraWeighed(placed), ...controlChecks.map((i) => weigh('control', i))];
  const notes = [
    ...j.notes,
    ...extraNotes(figures, placed.heldArrivedFirst, placed.arrivedBeforeAnswers),
    ...controlChecks.map((i) => inequalityText('control', i)),
  ];
  const controlText = `the control, the same read with ${before.length} held, got ${outcomeOf(control)}`;
  if (!isAdmitted(control) || controlChecks.some((i) => !i.ok)) {
    const failure = !isAdmitted(control)
      ? 'refused'
      : !controlPlaced.heldArrivedFirst.ok
        ? 'sent-too-early'
        : 'not-answered-while-held';
    const notFast = because('control-not-fast', { held: before.length, outcome: outcomeOf(control), failure });
    const actual = `${waited}; but ${reasonText(notFast)}`;
    return finding('inconclusive', {
      expected,
      actual,
      evidence: [...evidence, control.id],
      notes,
      reasons: [notFast],
      data: j.data('undecided', unknown(actual, [control.id]), weighed),
      measureAgain: 'this-window',
    });
  }
  const how = `one request beyond the cap of ${cap} waited until a held request finished; with ${before.length} held the same read was answered at once`;
  return finding('pass', {
    expected,
    actual: `all ${cap} held admitted; ${waited}; ${controlText}, answered ${ms(controlPlaced.answeredWhileHeld.gapMs ?? 0)} before the first of those: held until a slot freed`,
    evidence: [...evidence, control.id],
    notes,
    reasons: [because('cap-queues', { assumed: j.rejectedStatus })],
    data: j.data('queued', learned({ kind: 'queues' }, how, [...evidence, control.id]), weighed),
  });
}

/**
 * A cap below the published minimum was tested (Enterprise "100 or more"): cap + 1 in flight is still
 * within what the spec promises, so any rejection fails and every admission only shows the cap was
 * not reached.
 */
function underMinimumVerdict(j: Judging): Finding<ConcurrencyCapData> {
  const { extra, figure, held } = j.input;
  const { cap } = j;
  const minimum = `the published minimum is ${figure.value}`;
  const rejected = [...held, extra].filter((o) => o.status !== null && !isAdmitted(o));
  if (rejected.length > 0) {
    const actual = `rejected with only ${cap + 1} in flight (${minimum}): ${listSome(rejected.map(describe))}`;
    const requests = rejected.slice(0, 4).map((o) => o.id);
    return finding('fail', {
      expected: j.expected,
      actual,
      evidence: requests,
      notes: j.notes,
      reasons: [because('rejected-under-minimum', { inFlight: cap + 1, minimum: figure.value, requests })],
      data: j.data('undecided', unknown(actual, [])),
    });
  }
  const lost = held.filter((o) => o.status === null);
  const actual = `${held.length - lost.length} of ${held.length} held admitted; extra got ${outcomeOf(extra)}; the cap was not reached with ${cap + 1} in flight (${minimum})`;
  return j.open(
    actual,
    [extra.id, ...lost.slice(0, 3).map((o) => o.id)],
    [because('cap-not-reached', { inFlight: cap + 1, minimum: figure.value })],
    false,
  );
}

const tenth = (value: number) => Math.round(value * 10) / 10;

/** Every figure to a tenth of a millisecond, as the data records them. */
const toTenths = (f: HoldFigures): HoldFigures => {
  const entries = Object.entries(f).map(([name, value]: [string, number]) => [name, tenth(value)]);
  return Object.fromEntries(entries) as unknown as HoldFigures;
};

const ids = (evidence: Evidence): number[] => evidence.filter((id): id is number => typeof id === 'number');

function learned(value: ConcurrencyAnswer, how: string, evidence: Evidence): Learned<ConcurrencyAnswer> {
  return { value, how, evidence: ids(evidence) };
}

function unknown(how: string, evidence: Evidence): Learned<ConcurrencyAnswer> {
  return { value: null, how, evidence: ids(evidence) };
}

interface DataInput {
  readonly cap: number;
  readonly rejectedStatus: number;
  readonly outcome: ConcurrencyOutcome;
  readonly input: ConcurrencyCapInput;
  readonly figures: HoldFigures | null;
  readonly answer: Learned<ConcurrencyAnswer>;
  readonly weighed: readonly InequalityWeighed[];
}

function dataOf({ cap, rejectedStatus, outcome, input, figures, answer, weighed }: DataInput): ConcurrencyCapData {
  const { held, control, extra } = input;
  const zero = Math.min(...held.map((o) => o.sentAt), control.sentAt, extra.sentAt);
  const row = (role: HeldTimelineRow['role'], o: Observation): HeldTimelineRow => ({
    role,
    sentMs: tenth(o.sentAt - zero),
    answeredMs: o.headersAt === null ? null : tenth(o.headersAt - zero),
    status: o.status,
  });
  return {
    cap,
    rejectedStatus,
    outcome,
    extraStatus: extra.status,
    controlStatus: control.status,
    figures: figures && toTenths(figures),
    inequalities: weighed,
    extraWindow: figures && extraWindowOf(held, figures, zero),
    answer,
    timeline: [...held.map((o) => row('held', o)), row('control', control), row('extra', extra)],
  };
}

/** Where the extra had to leave for (A) and (B), from `zero`: after the last held send, before the first held answer, by their bounds. */
function extraWindowOf(held: readonly Observation[], f: HoldFigures, zero: number): ExtraWindow | null {
  const answers = held.map((o) => o.headersAt).filter((at): at is number => at !== null && Number.isFinite(at));
  if (held.length === 0 || answers.length === 0) return null;
  return {
    fromMs: tenth(Math.max(...held.map((o) => o.sentAt)) + f.arrivedAfterMs - zero),
    toMs: tenth(Math.min(...answers) - f.arrivedBeforeAnswerMs - zero),
  };
}

/**
 * What a CONCURRENCY-CAP result teaches the limiter profile (withConcurrency): the answer its data
 * holds, or, where the task decided nothing (no fresh window, interrupted), unknown with its reason.
 */
export function learnedConcurrency(
  result: Pick<CheckResult, 'verdict' | 'actual' | 'data'>,
): Learned<ConcurrencyAnswer> {
  const data = result.data as Partial<ConcurrencyCapData> | undefined;
  return data?.answer ?? { value: null, how: `CONCURRENCY-CAP was ${result.verdict}: ${result.actual}`, evidence: [] };
}
