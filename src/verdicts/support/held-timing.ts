/**
 * Where a fast request x fell among slow requests held before it, from the run's own timings alone
 * (CONCURRENCY-CAP). Times are this machine's monotonic clock: s_k when request k was sent, h_k when
 * its answer's headers were read. The server's moments are never seen; they are bounded by figures
 * the measurement took itself (measure/network.ts, heldUploadFigures):
 *
 * - m and M, the fastest and slowest round trip of its fast reads (those timed before anything was
 *   held, and the control), and σ = M − m, their spread (at least a floor: measure/network.ts);
 * - λ, how late its own timers fired (each planned send's `intendedAt` against when it really left):
 *   this machine's event loop ran that late around the measurement, so an answer may be read up to
 *   λ after it arrived.
 *
 * The model. Every request goes one path to one edge. Request k reaches the server's decision on it
 * (admit, refuse or queue: the cap's moment, its routing included) U_k after it was sent; its answer
 * leaves the server when its slot frees, and arrives here D_k later. For some u and d, never known,
 * u ≤ U_k ≤ u + σ and d ≤ D_k ≤ d + σ for every request: either way strays above the path's own by
 * no more than the fast reads' round trips spread. And u + d ≤ m: the fastest read went both ways and
 * spent some time on the server besides. A request is written to its socket in the call that records
 * s_k (a warm connection, pipelining 1), an upload's body (one resume) with its headers.
 *
 * For held request i, how a round trip splits into u and d does not matter: each inequality holds for
 * any split, because u and d cancel or appear only as u + d.
 * - (A) i reached the server before x when s_x − s_i > σ: i's decision came by s_i + u + σ, x's no
 *   sooner than s_x + u.
 * - (B) x reached the server before i's answer left it when h_i − s_x > m + 2σ + λ: x's decision came
 *   by s_x + u + σ; i's answer arrived no sooner than h_i − λ, so it left no sooner than
 *   h_i − λ − d − σ, and (u + d) + 2σ + λ ≤ m + 2σ + λ.
 * - (C) x's answer left the server before i's when h_i − h_x > σ + λ: x's left by h_x − d, i's no
 *   sooner than h_i − λ − d − σ; d cancels.
 * With (A) and (B) for every held one, x met them all on the server; with (C) besides, it was served
 * while they all were (C implies B: x was on the server before its answer left).
 *
 * (A) trusts each held upload's way there to stray no more than σ. One that strays more (a lost
 * segment sent again, a handshake on a connection that had closed) can reach the server after x,
 * which then meets one fewer held than the cap and is rightly admitted. So an admission is failed
 * only on (A′) besides, which rests on each held upload's answer instead: every held upload spends
 * at least S = L_held − (m + 2σ + λ) on the server, L_held the fastest of them (it did, less the most
 * the network and our reading can have taken of its time; the parser's time is assumed no shorter
 * for the others), so held i reached the server by h_i − S. (A′) i reached the server before x when
 * h_i − s_x < S, that is S − (h_i − s_x) > 0. A late way there only makes it harder to hold.
 *
 * The figures are the measurement's sample: a stray beyond σ is possible. So the measurement places
 * each request a margin from every bound, not at it (planHold, extraSendAt), and a placement that
 * does not hold proves nothing either way: measured again, never judged.
 */
import type { Observation } from '../../measure/observation.ts';
import { isAdmitted } from '../../measure/observation.ts';
import { STRAY_FLOOR_MS, heldUploadFigures, type HeldUploadFigures } from '../../measure/network.ts';
import { ms } from '../../util/phrases.ts';

/** The figures a placement rests on: the network's bounds, and L, the fastest upload seen (send to answer), ms. */
export interface HoldFigures extends HeldUploadFigures {
  readonly fastestUploadMs: number;
}

/** Time to the response headers, ms; null without a response. */
export function latencyOf(o: Observation): number | null {
  return o.headersAt === null || !Number.isFinite(o.headersAt) || !Number.isFinite(o.sentAt)
    ? null
    : o.headersAt - o.sentAt;
}

const latencies = (list: readonly Observation[]): number[] =>
  list.map(latencyOf).filter((ms): ms is number => ms !== null);

/** The fastest admitted upload, send to answer, ms; null before any. */
export function fastestUploadMs(uploads: readonly Observation[]): number | null {
  const times = latencies(uploads.filter(isAdmitted));
  return times.length === 0 ? null : Math.min(...times);
}

/** How late the timer that sent each of `sends` fired, at the most: its send against the moment it was due (`intendedAt`), ms. */
export function timersLateMs(sends: readonly Observation[]): number {
  return sends.reduce((late, o) => (o.intendedAt === null ? late : Math.max(late, o.sentAt - o.intendedAt)), 0);
}

/**
 * The bounds from the fast reads that were answered (refused ones too: a 429 is a round trip) and
 * the lateness of the timed sends, and L from the uploads admitted; null without a read or an upload.
 */
export function holdFigures(
  fastReads: readonly Observation[],
  uploads: readonly Observation[],
  timedSends: readonly Observation[],
): HoldFigures | null {
  const network = heldUploadFigures(latencies(fastReads), timersLateMs(timedSends));
  const fastest = fastestUploadMs(uploads);
  return network === null || fastest === null ? null : { ...network, fastestUploadMs: fastest };
}

/** The inequalities above: (A), (A′), (B) and (C). */
export type InequalityName =
  | 'held-arrived-first'
  | 'held-in-service'
  | 'arrived-before-answers'
  | 'answered-while-held';

/** One inequality of the placement: the gap measured (null: nothing held) against the bound it must exceed. */
export interface Inequality {
  readonly name: InequalityName;
  readonly ok: boolean;
  readonly gapMs: number | null;
  readonly boundMs: number;
}

/** How a request `x` fell against the requests held before it; each part with the figure that decides it. */
export interface Placement {
  /** (A) Every held one reached the server first: s_x − the last held send, against σ. */
  readonly heldArrivedFirst: Inequality & { readonly last: Observation | null };
  /** (B) x reached the server before any held answer left it: the first held answer − s_x, against m + 2σ + λ. */
  readonly arrivedBeforeAnswers: Inequality & { readonly first: Observation | null };
  /** (C) x's answer left before any held one's: the first held answer − h_x (null: none held or x unanswered), against σ + λ. */
  readonly answeredWhileHeld: Inequality;
}

const byTime = (list: readonly Observation[], at: (o: Observation) => number, later: boolean): Observation | null =>
  list.reduce<Observation | null>(
    (best, o) => (best === null || (later ? at(o) > at(best) : at(o) < at(best)) ? o : best),
    null,
  );

/** Places `x` against `held` (every one answered), by the inequalities above. */
export function placeAgainst(x: Observation, held: readonly Observation[], figures: HeldUploadFigures): Placement {
  const answeredAt = (o: Observation) => o.headersAt ?? Number.NaN;
  const last = byTime(held, (o) => o.sentAt, true);
  const first = byTime(held, answeredAt, false);
  const afterLast = last === null ? null : x.sentAt - last.sentAt;
  const beforeFirst = first === null ? null : answeredAt(first) - x.sentAt;
  const answeredBefore = first === null || x.headersAt === null ? null : answeredAt(first) - x.headersAt;
  const exceeds = (gap: number | null, bound: number) => gap === null || gap > bound;
  return {
    heldArrivedFirst: {
      name: 'held-arrived-first',
      ok: exceeds(afterLast, figures.arrivedAfterMs),
      gapMs: afterLast,
      boundMs: figures.arrivedAfterMs,
      last,
    },
    arrivedBeforeAnswers: {
      name: 'arrived-before-answers',
      ok: exceeds(beforeFirst, figures.arrivedBeforeAnswerMs),
      gapMs: beforeFirst,
      boundMs: figures.arrivedBeforeAnswerMs,
      first,
    },
    answeredWhileHeld: {
      name: 'answered-while-held',
      ok: x.headersAt !== null && exceeds(answeredBefore, figures.answeredBeforeMs),
      gapMs: answeredBefore,
      boundMs: figures.answeredBeforeMs,
    },
  };
}

/**
 * (A′) Every held upload reached the server before x, by their answers: S − (the last held answer −
 * s_x), against 0, S = L_held − (m + 2σ + λ) the least a held upload spends on the server.
 */
export function heldInService(x: Observation, held: readonly Observation[], figures: HeldUploadFigures): Inequality {
  const last = byTime(held, (o) => o.headersAt ?? Number.NaN, true);
  const fastest = fastestUploadMs(held);
  const serviceMs = fastest === null ? null : fastest - figures.arrivedBeforeAnswerMs;
  const gapMs = last?.headersAt == null || serviceMs === null ? null : serviceMs - (last.headersAt - x.sentAt);
  return { name: 'held-in-service', ok: gapMs !== null && gapMs > 0, gapMs, boundMs: 0 };
}

/** A request placed among held ones. */
export type PlacedRequest = 'extra' | 'control';

/** Each inequality in words, of a request placed among held ones. */
const WORDS: Record<InequalityName, { shows: (x: string) => string; gap: (x: string) => string; bound: string }> = {
  'held-arrived-first': {
    shows: (x) => `(A) every held upload reached the server before the ${x}`,
    gap: (x) => `sent(${x}) − sent(last held)`,
    bound: 'σ',
  },
  'held-in-service': {
    shows: (x) => `(A′) every held upload, by its answer, reached the server before the ${x}`,
    gap: (x) => `(L_held − m − 2σ − λ) − (answered(last held) − sent(${x}))`,
    bound: '0',
  },
  'arrived-before-answers': {
    shows: (x) => `(B) the ${x} reached the server before any held answer left it`,
    gap: (x) => `answered(first held) − sent(${x})`,
    bound: 'm + 2σ + λ',
  },
  'answered-while-held': {
    shows: (x) => `(C) the answer to the ${x} left the server before any held one's`,
    gap: (x) => `answered(first held) − answered(${x})`,
    bound: 'σ + λ',
  },
};

/** "(A) every held upload reached the server before the extra: sent(extra) − sent(last held) = 40 ms > σ = 1 ms", or "…, not more than σ = 1 ms". */
export function inequalityText(x: PlacedRequest, { name, ok, gapMs, boundMs }: Inequality): string {
  const words = WORDS[name];
  const gap = gapMs === null ? 'nothing held' : `${words.gap(x)} = ${ms(gapMs)}`;
  return `${words.shows(x)}: ${gap}${ok ? ' >' : ', not more than'} ${words.bound} = ${ms(boundMs)}`;
}

/** The figures of the inequalities, as the notes state them. */
export function figuresText(f: HoldFigures): string {
  return `figures: m = ${ms(f.fastestTripMs)} and M = ${ms(f.slowestTripMs)}, the fastest and slowest round trip of ${f.reads} fast reads; σ = ${ms(f.strayMs)}, their spread M − m (at least ${ms(STRAY_FLOOR_MS)}), the most either way of a request strays; λ = ${ms(f.readLateMs)}, how late an answer may be read; L = ${ms(f.fastestUploadMs)}, the fastest upload. Every inequality holds for any split of a round trip into its two ways`;
}

/**
 * The least an upload must last for a measurement to place its requests among the held ones, the
 * wait for the control's slot aside: the control goes once the held ones surely reached the server
 * (A) and comes back within the slowest round trip; the extra goes once the last upload is surely on
 * the server by its answer to come (A′: m + 2σ + λ after it) and early enough to arrive before any
 * held answer leaves (B: m + 2σ + λ before the first). The control's own (C) then holds too: its
 * answer is read before the last upload leaves.
 */
export function holdSpanMs(f: HeldUploadFigures): number {
  return f.arrivedAfterMs + f.slowestTripMs + 2 * f.arrivedBeforeAnswerMs;
}

/** When the requests of one measurement go, from the figures before it and the fastest upload seen (null: none yet). */
export interface HoldPlan {
  readonly figures: HeldUploadFigures;
  readonly fastestUploadMs: number | null;
  /** The control's margin past the bound (A) after the held uploads (and the extra's, while L is unknown). */
  readonly marginMs: number;
  /** After the held uploads leave, the control: once they surely reached the server, and a margin. */
  readonly controlAfterMs: number;
  /** After the control's answer, the last upload: once the control's slot is surely free. */
  readonly slotWaitMs: number;
}

/**
 * The plan: what an upload leaves beyond the span and the slot's wait (the slack), a quarter before
 * the control, the rest to the extra's interval (extraSendAt), the extra halfway through it. Before
 * any upload was seen (L unknown), many round trips: 10 of the slowest, at least 20 ms (timers and
 * the event loop's own jitter).
 */
export function planHold(figures: HeldUploadFigures, fastestUploadMs: number | null, slotWaitMs: number): HoldPlan {
  const marginMs =
    fastestUploadMs === null
      ? Math.max(FIRST_MARGIN_ROUND_TRIPS * figures.slowestTripMs, FIRST_MARGIN_MIN_MS)
      : Math.max(0, fastestUploadMs - holdSpanMs(figures) - slotWaitMs) * CONTROL_SHARE;
  return { figures, fastestUploadMs, marginMs, controlAfterMs: figures.arrivedAfterMs + marginMs, slotWaitMs };
}

/**
 * When to send the extra, on the prober's clock, reckoned from when the uploads really left and by
 * `figures` as they stand then (the control's round trip among the fast reads, the lateness of the
 * timers so far as λ): halfway from the moment the last upload is surely on the server by the answer
 * it will get at the soonest (A′: L after it left, less S) to the last moment the extra can reach the
 * server before any held answer leaves (B, ahead of the first held answer: the fastest upload after
 * the first ones left). The early side keeps half against an upload slower than the fastest; the
 * late side half against a stray beyond σ and a timer that fires late. With no room left (a slow
 * control, late timers), as soon as (A′) can hold: it proves nothing then, and is measured again.
 * L unknown: the first margin after (A).
 */
export function extraSendAt(
  plan: HoldPlan,
  figures: HeldUploadFigures,
  sent: { readonly heldAt: number; readonly lastAt: number },
): number {
  if (plan.fastestUploadMs === null) return sent.lastAt + figures.arrivedAfterMs + plan.marginMs;
  const inService = sent.lastAt + figures.arrivedBeforeAnswerMs;
  const beforeAnswers = sent.heldAt + plan.fastestUploadMs - figures.arrivedBeforeAnswerMs;
  return inService + Math.max(0, beforeAnswers - inService) * EXTRA_PLACE;
}

/** Uploads too fast to hold anything among: an upload no longer than the span and the slot's wait leaves no margin. */
export function tooFastToHold(figures: HeldUploadFigures, fastestUploadMs: number, slotWaitMs = 0): boolean {
  return fastestUploadMs - holdSpanMs(figures) - slotWaitMs <= 0;
}

/** The control's share of the slack; the rest is the extra's interval. */
const CONTROL_SHARE = 1 / 4;
/** Where in its interval the extra goes, from the early end. */
const EXTRA_PLACE = 1 / 2;
const FIRST_MARGIN_ROUND_TRIPS = 10;
const FIRST_MARGIN_MIN_MS = 20;

/** The figures of the inequalities, to a tenth of a millisecond. */
export { ms };
