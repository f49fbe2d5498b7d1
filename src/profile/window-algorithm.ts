/**
 * How a server's windows start, from a discovery's reads (pure): quota given back a little at a time
 * (refilling), windows aligned to the clock, or windows that start at the first counted request (to
 * the millisecond, or kept to its whole second). Read from Remaining over a window after the used-up
 * one ended, and where that leaves it open, from a second round placed where the two kinds fall apart.
 */
import { isAdmitted, type Observation } from '../measure/observation.ts';
import {
  announcedEnd,
  announcedWaitS,
  endEstimateOf,
  endSourceOf,
  type EndEstimate,
  resetFormatOf,
  roundingAllowanceMs,
} from '../measure/reset-format.ts';
import { countedDownFrom, quotaRefused, type DiscoveryRecord } from './record.ts';
import type { Learned, WindowAlgorithm } from './types.ts';
import { learned, placingOf, undecided } from './learned.ts';

/** Tolerance when comparing an announced window end with a prediction, ms: timers, besides the reads' own round trips. */
const END_TOLERANCE_MS = 100;

/**
 * How windows start. A read admitted soon after the 429 (before the announced end) with a 429 again
 * right after it gives back quota one request at a time: refilling. Else the read sent after the
 * announced end (clear of where an aligned boundary could fall) and the reads spread over a window
 * after it show where its own window ends: a full window after it (first request), or sooner, whole
 * windows after the previous end (clock-aligned). `resetHeldStill`: the discovery saw Reset hold still
 * within windows (the profile's steadiness), so the used-up window ended where its Reset said.
 */
export function algorithmOf(
  record: DiscoveryRecord,
  clockOffsetMs = 0,
  resetHeldStill = false,
): Learned<WindowAlgorithm> {
  const rejected = record.exhaustion.at(-1);
  if (!rejected || rejected.status === null || isAdmitted(rejected)) {
    return undecided(
      `no 429 within ${record.exhaustion.length} reads: the quota was never shown used up`,
      rejected ? [rejected.id] : [],
    );
  }
  for (const { probe, followUps } of record.refill) {
    if (!isAdmitted(probe)) continue;
    // A read lost on the way is no refusal (the discovery sends it again).
    const refused = followUps.find(quotaRefused);
    const after = Math.round(probe.sentAt - (rejected.headersAt ?? rejected.doneAt));
    if (refused) {
      return learned(
        'refilling',
        `a read ${after} ms after the 429 was admitted, well before the announced end, and the ${followUps.indexOf(refused) + 1}. read right after it got ${refused.status}: quota comes back a little at a time (token bucket, GCRA or sliding counter)`,
        [rejected.id, probe.id, refused.id],
      );
    }
    const other = followUps.find((o) => o.status !== null && !isAdmitted(o));
    if (other) {
      return undecided(
        `a read ${after} ms after the 429 was admitted, before the announced end, and the ${followUps.indexOf(other) + 1}. read right after it got ${other.status} with Remaining ${other.rateLimit.remaining.raw ?? 'unsaid'}: refused, but not for its quota, so how quota comes back stays open`,
        [rejected.id, probe.id, other.id],
      );
    }
    return undecided(
      `a read ${after} ms after the 429 was admitted, before the announced end, and ${followUps.length} more after it: the window ended before its announced end`,
      [rejected.id, probe.id],
    );
  }
  if (record.expirySkipped !== null) return undecided(record.expirySkipped, [rejected.id]);
  const expiry = record.expiry[0];
  if (!expiry || record.expiryDelayMs === null) {
    return undecided('the 429 announced no usable end (no Reset, no Retry-After): when windows start stays open', [
      rejected.id,
    ]);
  }
  if (!isAdmitted(expiry)) {
    return undecided(
      `a read ${record.expiryDelayMs} ms after the announced end got ${expiry.status ?? expiry.error?.code}: the window outlasted its announcement`,
      [rejected.id, expiry.id],
    );
  }
  // A Reset the discovery saw hold still (over a second and more, within windows) does not drift: where
  // the 429's Retry-After disagrees with it, that is what is wrong (RETRY-AFTER judges it).
  const [usedUp, byRetryAfter] = resetHeldStill
    ? ([record.exhaustedEnd] as const)
    : usedUpEnds(record.exhaustedEnd, rejected, record.windowMs);
  const first = fromTheReadsAfter(record, rejected, expiry, usedUp, clockOffsetMs);
  if (!byRetryAfter) return first;
  const second = fromTheReadsAfter(record, rejected, expiry, byRetryAfter, clockOffsetMs);
  if (first.value === second.value) return first;
  // The 429's Reset and Retry-After put the used-up window's end apart: either may be wrong (a Reset
  // that moves each second holds still over an exhaustion shorter than a second, and announces an end
  // a full window after the 429). Decided only where the reads say the same from either end.
  const say = (end: EndEstimate | null) =>
    end === null
      ? 'nowhere'
      : `${Math.round(end.earliest - rejected.sentAt)} to ${Math.round(end.latest - rejected.sentAt)} ms after it`;
  return undecided(
    `the 429's Reset put the used-up window's end ${say(usedUp)}, its Retry-After ${say(byRetryAfter)}: from the one the reads say ${first.value ?? 'nothing'}, from the other ${second.value ?? 'nothing'}`,
    [...new Set([rejected.id, ...first.evidence, ...second.evidence])],
  );
}

/** What the reads after the used-up window (ended at `usedUp`) say of how windows start. */
function fromTheReadsAfter(
  record: DiscoveryRecord,
  rejected: Observation,
  expiry: Observation,
  usedUp: EndEstimate | null,
  clockOffsetMs: number,
): Learned<WindowAlgorithm> {
  const round = firstRound(expiry, record.expiryFollowUps, { ...record, exhaustedEnd: usedUp });
  if (round.learned !== null && !secondRoundHelps(round)) return round.learned;
  const again = round.grid === null ? null : againVerdict(expiry, record, round.grid.span, round.grid.by);
  if (again) return again;
  if (round.learned) return round.learned;
  const end = expiryWindowEnd(record, expiry, clockOffsetMs);
  if (!end)
    return undecided('the read after the window carried no Reset and no later 429 told where its window ends', [
      expiry.id,
    ]);
  // The two predictions: a full window after the read (it opened one), or a whole number of windows
  // after the previous end (aligned), wherever in its announced interval that end lay. Decided only
  // when the announced end fits one and excludes the other; coarse headers leave it open.
  if (!usedUp) return undecided('the used-up window announced no end', [rejected.id]);
  const W = record.windowMs;
  // The window the read opened starts when the server took it: after it was sent, before it was answered.
  const full = { earliest: expiry.sentAt + W, latest: (expiry.headersAt ?? expiry.doneAt) + W };
  const fitsFull = end.earliest - END_TOLERANCE_MS <= full.latest && full.earliest <= end.latest + END_TOLERANCE_MS;
  const fitsAligned = alignedEndWithin(end.earliest - END_TOLERANCE_MS, end.latest + END_TOLERANCE_MS, usedUp, W);
  const ids = [rejected.id, expiry.id, end.by];
  const sayEnd = `between ${Math.round(end.earliest - expiry.sentAt)} and ${Math.round(end.latest - expiry.sentAt)} ms after it was sent`;
  const read = `a read ${record.expiryDelayMs} ms after the previous window ended`;
  if (fitsFull && !fitsAligned) {
    return learned(
      'fixed-first-request',
      `${read} opened a window that ends ${sayEnd}, a full window: windows start at the first counted request`,
      ids,
    );
  }
  if (fitsAligned && !fitsFull) {
    return learned(
      'fixed-aligned',
      `${read} fell in a window that ends ${sayEnd}, whole windows after the previous end: windows are aligned to the clock`,
      ids,
    );
  }
  return undecided(
    `${read} fell in a window ending ${sayEnd}: the announced ends are too coarse to tell a full window after it from whole windows after the previous end`,
    ids,
  );
}

/**
 * Where the used-up window ends, for the reads after it to be judged against: the discovery's end
 * (from Reset where Reset held still over the exhaustion, narrowed) alone, or with the end the 429's
 * Retry-After gives where the two disagree (beyond the rounding a countdown may carry, and the
 * tolerance): then the reads decide only what they say from both. Retry-After is relative, so it
 * needs no clock; it is rounded to whole seconds, up (to nearest or down: the allowance).
 */
export function usedUpEnds(
  end: EndEstimate | null,
  rejected: Observation,
  windowMs: number,
): readonly [EndEstimate | null] | readonly [EndEstimate, EndEstimate] {
  const wait = announcedEnd(rejected, windowMs, 0, 0, 'wait-only');
  if (!end || !wait) return [end];
  const earliest = Math.max(rejected.sentAt, wait.earliest);
  const latest = wait.latest + roundingAllowanceMs(windowMs);
  const agree = earliest <= end.latest + END_TOLERANCE_MS && latest >= end.earliest - END_TOLERANCE_MS;
  return agree ? [end] : [end, { earliest, latest }];
}

/**
 * Whether some instant in [from, to] lies a whole number of windows (at least one) after an instant
 * of `base` (an end known only to an interval).
 */
function alignedEndWithin(
  from: number,
  to: number,
  base: { readonly earliest: number; readonly latest: number },
  windowMs: number,
): boolean {
  for (let n = 1; base.earliest + n * windowMs <= to; n++) {
    if (base.latest + n * windowMs >= from) return true;
  }
  return false;
}

/**
 * Where the expiry read's window ends: from its own Reset when the server's Reset holds still within
 * a window, else from the Retry-After of the 429 that followed it.
 */
function expiryWindowEnd(record: DiscoveryRecord, expiry: Observation, clockOffsetMs: number) {
  const source = endSourceOf(record.exhaustion, placingOf(record, clockOffsetMs));
  const own =
    source === 'reset-or-wait'
      ? endEstimateOf(expiry, resetFormatOf(expiry, record.windowMs, clockOffsetMs), clockOffsetMs)
      : null;
  if (own) return { ...own, by: expiry.id };
  if (record.expiryEnd) return record.expiryEnd;
  const later = record.expiry.find((o) => o.status !== null && !isAdmitted(o) && announcedWaitS(o) !== null);
  const end = later ? announcedEnd(later, record.windowMs, clockOffsetMs, 0, source) : null;
  return end && later ? { ...end, by: later.id } : null;
}

/** An interval of monotonic ms. */
interface Span {
  readonly earliest: number;
  readonly latest: number;
}

/**
 * What a round of reads spread over a window showed: the answer, if it decides one (null: nothing
 * yet), and where it leaves clock-aligned boundaries possible (null where it says nothing of them),
 * which a second round half a window later can test.
 */
export interface Round {
  readonly learned: Learned<WindowAlgorithm> | null;
  /**
   * Where aligned boundaries may lie by this round (whole windows after it): the stretch before an
   * aligned window that could hold every read ('counted-down'), or the boundary seen ('boundary').
   */
  readonly grid: { readonly span: Span; readonly by: 'counted-down' | 'boundary' } | null;
}

/** The parts of a discovery a round is judged by. */
type RoundContext = Pick<DiscoveryRecord, 'exhaustedEnd' | 'windowMs' | 'all'>;

/**
 * The reads after the expiry read, by Remaining: one lower at each, all the way to just before a full
 * window after the first, is a window the first read opened (a clock-aligned one would have rolled
 * over somewhere in that span); Remaining back up is an aligned boundary, unless the window the first
 * read opened, kept to its whole second, would end there too. Undecided (with where aligned
 * boundaries may lie) when an aligned window that began just before the first read could hold them
 * all, or when a boundary fits either.
 */
export function firstRound(first: Observation, followUps: readonly Observation[], record: RoundContext): Round {
  const { exhaustedEnd: previousEnd, windowMs } = record;
  const reads = [first, ...followUps];
  const values = reads.map((o) => o.rateLimit.remaining.value);
  if (followUps.length === 0 || !reads.every(isAdmitted) || values.some((v) => v === null))
    return { learned: null, grid: null };
  const last = followUps.at(-1)!;
  const span = Math.round(last.sentAt - first.sentAt);
  const ids = reads.map((o) => o.id);
  // Remaining as high as before is a new window only where it is seen to count at all.
  const falls = values.some((v, i) => i > 0 && v! < values[i - 1]!);
  const rose = values.findIndex((v, i) => i > 0 && (v! > values[i - 1]! || (falls && v === values[i - 1])));
  // The end as announced, and as much later as a countdown rounded otherwise than up can put it.
  const ended = previousEnd && {
    earliest: previousEnd.earliest,
    latest: previousEnd.latest + roundingAllowanceMs(windowMs),
  };
  if (rose > 0) {
    const at = Math.round(reads[rose]!.sentAt - first.sentAt);
    const went = `Remaining went ${values.slice(0, rose + 1).join(' → ')} over reads from one opening a window: back up ${at} ms after it`;
    const boundary = boundaryBetween(reads[rose - 1]!, reads[rose]!);
    const fits = boundaryFits(first, boundary, ended, windowMs);
    if (fits.aligned && !fits.firstRequest)
      return {
        learned: learned('fixed-aligned', `${went}, before a full window: windows are aligned to the clock`, ids),
        grid: null,
      };
    if (fits.firstRequest && !fits.aligned) {
      const how = `${went}, within a second of a full window and where no clock-aligned boundary falls: the window that read opened, its start kept to the whole second`;
      return { learned: learned('fixed-first-request', how, ids), grid: null };
    }
    return {
      learned: undecided(
        `${went}: a clock-aligned boundary and the end of a window the read opened (its start kept to the whole second) both fit there`,
        ids,
      ),
      grid: { span: boundary, by: 'boundary' },
    };
  }
  if (reads.every((o, i) => i === 0 || countedDownFrom(reads[i - 1]!, o, record.all))) {
    // An aligned window that began just before the first read holds them all too: possible where a
    // boundary (the used-up window's end, or whole windows after it, wherever in its interval) can lie
    // between a window before the last read and the first read's answer.
    const before = { earliest: last.sentAt - windowMs, latest: first.headersAt ?? first.doneAt };
    if (!ended || ended.latest > before.earliest || alignedEndWithin(before.earliest, before.latest, ended, windowMs))
      return { learned: null, grid: { span: before, by: 'counted-down' } };
    const how = `Remaining went ${values.join(' → ')} over ${span} ms of reads from one sent after the previous window ended: the window that read opened held for all of them, where an aligned window would have rolled over: windows start at the first counted request`;
    return { learned: learned('fixed-first-request', how, ids), grid: null };
  }
  if (!falls)
    return {
      learned: undecided(
        `Remaining stayed at ${values[0]} over ${reads.length} admitted reads: it does not show what counts`,
        ids,
      ),
      grid: null,
    };
  return {
    learned: undecided(`Remaining went ${values.join(' → ')}: other traffic between the reads`, ids),
    grid: null,
  };
}

/** Whether a second round of reads can decide what the first left open. */
export function secondRoundHelps(round: Round): boolean {
  return round.grid !== null && (round.learned === null || round.learned.value === null);
}

/**
 * When the second round's first read goes. After a round all in one window: half a window after its
 * first read, past the end of either kind of window. After a boundary that fits either kind: once the
 * window the read after the boundary opened (if windows start at the first request) is surely over,
 * so that this read opens one of its own, just before a whole window after the boundary: an aligned
 * boundary then comes a moment after it, where a window it opened (kept to the whole second) ends at
 * least a window less a second after it. (Our reads since that boundary all fell in the window the
 * first of them opened, or in the aligned one it began; neither reaches this read's.)
 */
export function secondRoundAt(round: Round, first: Observation, windowMs: number, beforeBoundaryMs: number): number {
  if (round.grid === null || round.grid.by === 'counted-down') return first.sentAt + 1.5 * windowMs;
  const idle = round.grid.span.latest + windowMs + END_TOLERANCE_MS;
  const from = round.grid.span.earliest - beforeBoundaryMs;
  return from + Math.max(1, Math.ceil((idle - from) / windowMs)) * windowMs;
}

/** A server may keep a window's start to its whole second: its window ends up to this much before a full window after the request that opened it. */
const WHOLE_SECOND_MS = 1000;

/** Where a boundary fell, seen between two reads (Remaining back up at `after`): after the one before was sent, before `after` was answered. */
function boundaryBetween(before: Observation, after: Observation): Span {
  return { earliest: before.sentAt, latest: after.headersAt ?? after.doneAt };
}

/**
 * Where a boundary can come from: a clock-aligned grid (whole windows after `grid`; unknown without
 * it), or the end of the window `opener` opened, a full window after it or up to a whole second sooner.
 */
function boundaryFits(
  opener: Observation,
  boundary: Span,
  grid: Span | null,
  windowMs: number,
): { readonly aligned: boolean; readonly firstRequest: boolean } {
  const firstRequest =
    boundary.earliest <= (opener.headersAt ?? opener.doneAt) + windowMs &&
    boundary.latest >= opener.sentAt + windowMs - WHOLE_SECOND_MS;
  const aligned =
    grid === null
      ? !firstRequest
      : alignedEndWithin(boundary.earliest - END_TOLERANCE_MS, boundary.latest + END_TOLERANCE_MS, grid, windowMs);
  return { aligned, firstRequest };
}

/**
 * The second round, half a window past the end of the first's window (whichever kind): reads spread
 * over a window again, against where the first round left aligned boundaries possible (`grid`: the
 * stretch between a window before its last read and its first answer, where it counted down in one
 * window; the boundary it saw, where that fit either kind). Remaining back up on that grid, where the
 * window the round's first read opened would not end, is an aligned boundary; back up where that
 * window would end, and off the grid, is that window. All in one window again, where every whole window
 * after the grid falls among the reads, is a window each first read opened.
 */
function againVerdict(
  first: Observation,
  record: DiscoveryRecord,
  grid: Span,
  by: 'counted-down' | 'boundary',
): Learned<WindowAlgorithm> | null {
  const [again, ...followUps] = record.expiryAgain;
  const last = record.expiryFollowUps.at(-1);
  if (!again || followUps.length === 0 || !last || !followUps.every(isAdmitted)) return null;
  const reads = [again, ...followUps];
  const values = reads.map((o) => o.rateLimit.remaining.value);
  if (values.some((v) => v === null)) return null;
  // After a boundary, the round is a test only where its first read found nothing counted before it.
  if (by === 'boundary' && values[0] !== (again.rateLimit.limit.value ?? 0) - 1) return null;
  const ids = [first.id, last.id, ...reads.map((o) => o.id)];
  const W = record.windowMs;
  const rose = values.findIndex((v, i) => i > 0 && v! >= values[i - 1]!);
  if (rose > 0) {
    const at = Math.round(reads[rose]!.sentAt - again.sentAt);
    const went = `in a second round of reads, from one sent after every window of the first was over, Remaining went ${values.slice(0, rose + 1).join(' → ')}, back up ${at} ms after its first`;
    const fits = boundaryFits(again, boundaryBetween(reads[rose - 1]!, reads[rose]!), grid, W);
    if (fits.aligned && !fits.firstRequest)
      return learned(
        'fixed-aligned',
        `the first round of reads left a clock-aligned window possible; ${went}, whole windows after it: windows are aligned to the clock`,
        ids,
      );
    if (fits.firstRequest && !fits.aligned) {
      return learned(
        'fixed-first-request',
        `${went}, within a second of a full window after its first read and off every clock-aligned grid the first round allows: windows start at the first counted request, kept to the whole second`,
        ids,
      );
    }
    return null;
  }
  if (!reads.every((o, i) => i === 0 || countedDownFrom(reads[i - 1]!, o, record.all))) return null;
  // Aligned boundaries the first round allows, and whole windows after them, against the second round's reads.
  const lastAgain = followUps.at(-1)!;
  if (alignedEndWithin(lastAgain.sentAt, (again.headersAt ?? again.doneAt) + W, grid, W)) return null;
  return learned(
    'fixed-first-request',
    `two rounds of reads, each from one read sent after the window before ended, counted down over most of a window without a boundary, half a window apart: no clock-aligned grid fits both; windows start at the first counted request`,
    ids,
  );
}
