/**
 * From a discovery's observations to a limiter profile: pure, every answer with its evidence or the
 * reason it stayed open. Nothing here assumes what the spec leaves open; it reads the server.
 */
import { TOO_MANY_REQUESTS, type QuotaClass } from '../contract/types.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import type { DiscoveryPhase } from '../measure/tags.ts';
import { countedDownFrom, type CountingPair, type DiscoveryRecord, type PairQuestion } from './record.ts';
import { CLOCK_SLACK_MS, announcedEnd, announcedWaitS, resetFormatOf, resetMovement, resetMoved, endEstimateOf, roundingAllowanceMs, type EndPlacing } from '../measure/reset-format.ts';
import type { ClassProfile, CountingQuestion, LimiterProfile, Learned, ResetFormat, WindowAlgorithm, WindowPhase } from './types.ts';
import { CONCURRENCY_NOT_LEARNED } from './concurrency.ts';

const undecided = <T>(how: string, evidence: readonly number[] = []): Learned<T> => ({ value: null, how, evidence });
const learned = <T>(value: T, how: string, evidence: readonly (number | undefined)[]): Learned<T> => ({
  value,
  how,
  evidence: evidence.filter((id): id is number => id !== undefined),
});

/** Responses compared for a Reset that moves are placed against announced ends by the run's clock estimate. */
const placingOf = (record: DiscoveryRecord, clockOffsetMs: number): EndPlacing => ({ windowMs: record.windowMs, clockOffsetMs, slackMs: CLOCK_SLACK_MS });

/** Tolerance when comparing an announced window end with a prediction, ms. */
const END_TOLERANCE_MS = 100;

export function inferProfile(record: DiscoveryRecord, clockOffsetMs = 0): LimiterProfile {
  // The reads the key holding every scope sent (the pairs' probes are other requests, even on the same path).
  const probes = new Set(record.pairs.map((p) => p.probe.id));
  const reads = record.all.filter((o) => o.status !== null && o.path === readPath(record) && !probes.has(o.id));
  const headers = headersLearned(reads);
  const pair = (q: PairQuestion) => record.pairs.find((p) => p.question === q);
  const algorithm = algorithmOf(record, clockOffsetMs);
  // A limiter that gives quota back between two reads can hide a decrement, never invent one: there
  // only "it counted" is evidence.
  const refills = algorithm.value === 'refilling';
  const counts = Object.fromEntries(
    (['head', 'not-found', 'forbidden', 'unauthenticated'] as const).map((q) => [q, unlessRefilled(countedBy(pair(q), q), refills)]),
  ) as Record<Exclude<CountingQuestion, 'rejected'>, Learned<boolean>>;
  return {
    tier: record.tier,
    org: record.org,
    windowMs: record.windowMs,
    headers,
    read: {
      quotaClass: 'read',
      limit: commonLimit(reads),
      resetFormat: formatOf(reads, record.windowMs, clockOffsetMs),
      resetSteady: steadiness(record, readPath(record), placingOf(record, clockOffsetMs)),
      algorithm,
      phase: phaseOf(record, clockOffsetMs),
    },
    ingest: ingestProfile(pair('ingest') ?? null, algorithm, record.windowMs, clockOffsetMs),
    counts: {
      ...counts,
      rejected: undecided(
        'not observable in a short discovery: while a window is used up, a counted 429 changes nothing the server shows; the checks keep every 429 in their ledger',
      ),
    },
    readSharedAcrossRoutes: unlessRefilled(sharedAcrossRoutes(pair('other-route')), refills, true),
    classesIndependent: unlessRefilled(classesIndependent(pair('ingest'), record.windowMs, clockOffsetMs), refills, false),
    concurrency: CONCURRENCY_NOT_LEARNED,
    observations: record.all.length,
    durationMs: Math.round(record.durationMs),
  };
}

/**
 * On a refilling limiter, an answer read from a Remaining that did not fall is no answer: a token may
 * have come back between the reads. Only `proven` (the value a fall shows) stands.
 */
function unlessRefilled(answer: Learned<boolean>, refills: boolean, proven = true): Learned<boolean> {
  if (!refills || answer.value === null || answer.value === proven) return answer;
  return undecided(`${answer.how}; but quota comes back between reads on this server, so an unchanged Remaining proves nothing`, answer.evidence);
}

function readPath(record: DiscoveryRecord): string {
  return record.pairs[0]?.before.path ?? '/recruiter/jobs';
}

function headersLearned(reads: readonly Observation[]): Learned<boolean> {
  const withAll = reads.filter((o) => o.rateLimit.limit.raw !== null && o.rateLimit.remaining.raw !== null && o.rateLimit.reset.raw !== null);
  const withNone = reads.filter((o) => o.rateLimit.limit.raw === null && o.rateLimit.remaining.raw === null && o.rateLimit.reset.raw === null);
  if (reads.length === 0) return undecided('no read was answered');
  if (withAll.length === reads.length) return learned(true, `all ${reads.length} reads carried X-RateLimit-Limit, -Remaining and -Reset`, [reads[0]?.id]);
  if (withNone.length === reads.length) return learned(false, `none of ${reads.length} reads carried an X-RateLimit header`, [reads[0]?.id]);
  return learned(true, `${withAll.length} of ${reads.length} reads carried all three X-RateLimit headers`, [withNone[0]?.id ?? reads[0]?.id]);
}

function commonLimit(obs: readonly Observation[]): number | null {
  const values = new Set(obs.map((o) => o.rateLimit.limit.value).filter((v): v is number => v !== null));
  return values.size === 1 ? [...values][0]! : null;
}

function formatOf(obs: readonly Observation[], windowMs: number, clockOffsetMs: number): Learned<ResetFormat> {
  if (obs.length === 0) return undecided('no response to read X-RateLimit-Reset from');
  const tally = new Map<ResetFormat, Observation[]>();
  for (const o of obs) {
    const format = resetFormatOf(o, windowMs, clockOffsetMs);
    tally.set(format, [...(tally.get(format) ?? []), o]);
  }
  const [top, seen] = [...tally.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  const example = seen[0]!;
  const raw = example.rateLimit.reset.raw;
  const others = [...tally.entries()].filter(([f]) => f !== top).map(([f, os]) => `${os.length} ${f}`);
  const mixed = others.length > 0 ? `; the others: ${others.join(', ')}` : '';
  const what: Record<ResetFormat, string> = {
    'epoch-seconds': `Reset ${raw} is a Unix epoch in seconds, within a window of the server's Date`,
    'epoch-millis': `Reset ${raw} is a Unix epoch in milliseconds`,
    'seconds-until': `Reset ${raw} counts seconds until the window resets`,
    absent: 'no X-RateLimit-Reset header',
    unreadable: `Reset '${raw}' is neither an epoch nor a count of seconds within a window of the server's clock`,
  };
  return learned(top, `${what[top]} (${seen.length} of ${obs.length} responses${mixed})`, [example.id]);
}

/** The status each counting question is about. */
const MEANT_STATUS: Partial<Record<PairQuestion, number>> = { 'not-found': 404, forbidden: 403, unauthenticated: 401 };

/** A request in question counted when the read after it shows two fewer Remaining than the read before it. */
function countedBy(p: CountingPair | undefined, question: PairQuestion): Learned<boolean> {
  if (!p) return undecided(question === 'forbidden' ? 'no key lacking scopes was available to get a 403' : 'not asked');
  const step = remainingStep(p);
  const what = `${p.probe.method} ${p.probe.path} → ${p.probe.status ?? p.probe.error?.code ?? 'no response'}`;
  // The answer in question must be that answer: a 403 that came back 200 says nothing of 403s.
  const meant = MEANT_STATUS[question];
  // A request lost on the way may or may not have reached the server: its pair shows nothing.
  if (p.probe.status === null) return undecided(`${what}: lost on the way, it may not have reached the server`, [p.probe.id]);
  if (meant !== undefined && p.probe.status !== meant) return undecided(`${what}, not the ${meant} in question`, [p.probe.id]);
  if (typeof step === 'string') return undecided(`${what}: ${step}`, [p.before.id, p.probe.id, p.after.id]);
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (step === 2) return learned(true, `${what}; Remaining went ${p.before.rateLimit.remaining.value} → ${p.after.rateLimit.remaining.value} over it and one read: it counted`, ids);
  if (step === 1) return learned(false, `${what}; Remaining went ${p.before.rateLimit.remaining.value} → ${p.after.rateLimit.remaining.value}: only the read counted`, ids);
  return undecided(`${what}; Remaining moved by ${step} over it and one read: other traffic or a window boundary fell between`, ids);
}

/** How far Remaining fell from the read before to the read after, or why that cannot be read. */
function remainingStep(p: CountingPair): number | string {
  const before = p.before.rateLimit.remaining.value;
  const after = p.after.rateLimit.remaining.value;
  if (!isAdmitted(p.before) || !isAdmitted(p.after)) return 'a read around it was not admitted';
  if (before === null || after === null) return 'no X-RateLimit-Remaining to compare';
  if (after > before) return `Remaining rose ${before} → ${after}: a window boundary fell between`;
  if (p.before.rateLimit.reset.raw !== null && p.after.rateLimit.reset.raw !== null && resetMoved(p.before, p.after)) {
    return `Reset went ${p.before.rateLimit.reset.raw} → ${p.after.rateLimit.reset.raw}: a window boundary may fall between`;
  }
  return before - after;
}

function sharedAcrossRoutes(p: CountingPair | undefined): Learned<boolean> {
  if (!p) return undecided('not asked');
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (!isAdmitted(p.probe)) return undecided(`${p.probe.method} ${p.probe.path} was not admitted (${p.probe.status ?? p.probe.error?.code}); cannot tell`, ids);
  const step = remainingStep(p);
  if (typeof step === 'string') return undecided(step, ids);
  if (step === 2) return learned(true, `a read of ${p.probe.path} took one from the same Remaining as ${p.before.path}`, ids);
  if (step === 1) {
    const own = p.probe.rateLimit.remaining.value;
    return learned(false, `a read of ${p.probe.path} left ${p.before.path}'s Remaining untouched${own !== null ? ` and showed its own (${own})` : ''}: reads count per route`, ids);
  }
  return undecided(`Remaining moved by ${step}: other traffic or a window boundary fell between`, ids);
}

function classesIndependent(p: CountingPair | undefined, windowMs: number, clockOffsetMs: number): Learned<boolean> {
  if (!p) return undecided('not asked');
  const ids = [p.before.id, p.probe.id, p.after.id];
  if (!isAdmitted(p.probe)) return undecided(`the resume upload was not admitted (${p.probe.status ?? p.probe.error?.code})`, ids);
  const step = remainingStep(p);
  if (step === 2) return learned(false, 'a resume upload took one from the read Remaining: reads and ingest share one counter', ids);
  const phase = windowPhase(p, windowMs, clockOffsetMs);
  if (step === 1) return learned(true, `a resume upload left the read Remaining untouched: separate counters${phase}`, ids);
  return undecided(typeof step === 'string' ? step : `Remaining moved by ${step}`, ids);
}

/** Whether the upload's window ends where the reads' does, in words. */
function windowPhase(p: CountingPair, windowMs: number, clockOffsetMs: number): string {
  const format = resetFormatOf(p.probe, windowMs, clockOffsetMs);
  const ingestEnd = endEstimateOf(p.probe, format, clockOffsetMs);
  const readEnd = endEstimateOf(p.after, resetFormatOf(p.after, windowMs, clockOffsetMs), clockOffsetMs);
  if (!ingestEnd || !readEnd) return '';
  const apart = Math.abs((ingestEnd.earliest + ingestEnd.latest) / 2 - (readEnd.earliest + readEnd.latest) / 2);
  return apart > 1000 ? `, and windows of their own (ends ${Math.round(apart / 100) / 10} s apart)` : ', windows ending together';
}

/**
 * The ingest class, from the one upload discovery sends between two reads. How its windows start is
 * taken from the reads only where that cannot mislead: reads on clock-aligned windows, and the upload
 * announcing the very end the reads announce (the same boundaries). Otherwise it stays open, and the
 * ingest checks are scheduled as for an unknown limiter.
 */
function ingestProfile(p: CountingPair | null, read: Learned<WindowAlgorithm>, windowMs: number, clockOffsetMs: number): ClassProfile {
  const quotaClass: QuotaClass = 'ingest';
  const probe = p?.probe ?? null;
  if (!p || !probe || probe.status === null) {
    return { quotaClass, limit: null, resetFormat: undecided('no resume upload was answered'), resetSteady: undecided('not probed'), algorithm: undecided('not probed'), phase: undecided('not probed') };
  }
  return {
    quotaClass,
    limit: probe.rateLimit.limit.value,
    resetFormat: formatOf([probe], windowMs, clockOffsetMs),
    resetSteady: undecided('one upload cannot show it; taken as for reads', [probe.id]),
    algorithm: ingestAlgorithm(p, read),
    phase: undecided('one upload cannot show it', [probe.id]),
  };
}

function ingestAlgorithm(p: CountingPair, read: Learned<WindowAlgorithm>): Learned<WindowAlgorithm> {
  const [upload, after] = [p.probe.rateLimit.reset.raw, p.after.rateLimit.reset.raw];
  if (read.value !== 'fixed-aligned') return undecided(`one upload cannot show how ingest windows start; the reads' windows are ${read.value ?? 'unknown'}`, [p.probe.id]);
  if (upload === null || upload !== after) return undecided(`reads are on clock-aligned windows, but the upload's Reset (${upload ?? 'absent'}) is not the reads' (${after ?? 'absent'})`, [p.probe.id, p.after.id]);
  return learned('fixed-aligned', `the upload announced the reads' own Reset ${upload}, and reads are on clock-aligned windows: the same boundaries`, [p.probe.id, p.after.id]);
}

/**
 * How windows start. A read admitted soon after the 429 (before the announced end) with a 429 again
 * right after it gives back quota one request at a time: refilling. Else the read sent after the
 * announced end (clear of where an aligned boundary could fall) and the reads spread over a window
 * after it show where its own window ends: a full window after it (first request), or sooner, whole
 * windows after the previous end (clock-aligned).
 */
export function algorithmOf(record: DiscoveryRecord, clockOffsetMs = 0): Learned<WindowAlgorithm> {
  const rejected = record.exhaustion.at(-1);
  if (!rejected || rejected.status === null || isAdmitted(rejected)) {
    return undecided(`no 429 within ${record.exhaustion.length} reads: the quota was never shown used up`, rejected ? [rejected.id] : []);
  }
  for (const { probe, followUps } of record.refill) {
    if (!isAdmitted(probe)) continue;
    // A read lost on the way is no refusal (the discovery sends it again).
    const refused = followUps.find((o) => o.status !== null && !isAdmitted(o));
    const after = Math.round((probe.sentAt - (rejected.headersAt ?? rejected.doneAt)));
    if (refused) {
      return learned(
        'refilling',
        `a read ${after} ms after the 429 was admitted, well before the announced end, and the ${followUps.indexOf(refused) + 1}. read right after it got ${refused.status}: quota comes back a little at a time (token bucket, GCRA or sliding counter)`,
        [rejected.id, probe.id, refused.id],
      );
    }
    return undecided(`a read ${after} ms after the 429 was admitted, before the announced end, and ${followUps.length} more after it: the window ended before its announced end`, [rejected.id, probe.id]);
  }
  if (record.expirySkipped !== null) return undecided(record.expirySkipped, [rejected.id]);
  const expiry = record.expiry[0];
  if (!expiry || record.expiryDelayMs === null) {
    return undecided('the 429 announced no usable end (no Reset, no Retry-After): when windows start stays open', [rejected.id]);
  }
  if (!isAdmitted(expiry)) {
    return undecided(`a read ${record.expiryDelayMs} ms after the announced end got ${expiry.status ?? expiry.error?.code}: the window outlasted its announcement`, [rejected.id, expiry.id]);
  }
  const round = firstRound(expiry, record.expiryFollowUps, record);
  if (round.learned !== null && !secondRoundHelps(round)) return round.learned;
  const again = round.grid === null ? null : againVerdict(expiry, record, round.grid.span, round.grid.by);
  if (again) return again;
  if (round.learned) return round.learned;
  const end = expiryWindowEnd(record, expiry, clockOffsetMs);
  if (!end) return undecided('the read after the window carried no Reset and no later 429 told where its window ends', [expiry.id]);
  // The two predictions: a full window after the read (it opened one), or a whole number of windows
  // after the previous end (aligned), wherever in its announced interval that end lay. Decided only
  // when the announced end fits one and excludes the other; coarse headers leave it open.
  const base = record.exhaustedEnd;
  if (!base) return undecided('the used-up window announced no end', [rejected.id]);
  const W = record.windowMs;
  const full = expiry.sentAt + W;
  const fitsFull = end.earliest - END_TOLERANCE_MS <= full && full <= end.latest + END_TOLERANCE_MS;
  const fitsAligned = alignedEndWithin(end.earliest - END_TOLERANCE_MS, end.latest + END_TOLERANCE_MS, base, W);
  const ids = [rejected.id, expiry.id, end.by];
  const sayEnd = `between ${Math.round(end.earliest - expiry.sentAt)} and ${Math.round(end.latest - expiry.sentAt)} ms after it was sent`;
  const read = `a read ${record.expiryDelayMs} ms after the previous window ended`;
  if (fitsFull && !fitsAligned) {
    return learned('fixed-first-request', `${read} opened a window that ends ${sayEnd}, a full window: windows start at the first counted request`, ids);
  }
  if (fitsAligned && !fitsFull) {
    return learned('fixed-aligned', `${read} fell in a window that ends ${sayEnd}, whole windows after the previous end: windows are aligned to the clock`, ids);
  }
  return undecided(`${read} fell in a window ending ${sayEnd}: the announced ends are too coarse to tell a full window after it from whole windows after the previous end`, ids);
}

/**
 * Whether some instant in [from, to] lies a whole number of windows (at least one) after an instant
 * of `base` (an end known only to an interval).
 */
function alignedEndWithin(from: number, to: number, base: { readonly earliest: number; readonly latest: number }, windowMs: number): boolean {
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
  const own = resetMovement(record.exhaustion, placingOf(record, clockOffsetMs)).moved === null ? endEstimateOf(expiry, resetFormatOf(expiry, record.windowMs, clockOffsetMs), clockOffsetMs) : null;
  if (own) return { ...own, by: expiry.id };
  if (record.expiryEnd) return record.expiryEnd;
  const later = record.expiry.find((o) => o.status !== null && !isAdmitted(o) && announcedWaitS(o) !== null);
  const end = later ? announcedEnd(later, record.windowMs, clockOffsetMs) : null;
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
  if (followUps.length === 0 || !reads.every(isAdmitted) || values.some((v) => v === null)) return { learned: null, grid: null };
  const last = followUps.at(-1)!;
  const span = Math.round(last.sentAt - first.sentAt);
  const ids = reads.map((o) => o.id);
  // Remaining as high as before is a new window only where it is seen to count at all.
  const falls = values.some((v, i) => i > 0 && v! < values[i - 1]!);
  const rose = values.findIndex((v, i) => i > 0 && (v! > values[i - 1]! || (falls && v === values[i - 1])));
  // The end as announced, and as much later as a countdown rounded otherwise than up can put it.
  const ended = previousEnd && { earliest: previousEnd.earliest, latest: previousEnd.latest + roundingAllowanceMs(windowMs) };
  if (rose > 0) {
    const at = Math.round(reads[rose]!.sentAt - first.sentAt);
    const went = `Remaining went ${values.slice(0, rose + 1).join(' → ')} over reads from one opening a window: back up ${at} ms after it`;
    const boundary = boundaryBetween(reads[rose - 1]!, reads[rose]!);
    const fits = boundaryFits(first, boundary, ended, windowMs);
    if (fits.aligned && !fits.firstRequest) return { learned: learned('fixed-aligned', `${went}, before a full window: windows are aligned to the clock`, ids), grid: null };
    if (fits.firstRequest && !fits.aligned) {
      const how = `${went}, within a second of a full window and where no clock-aligned boundary falls: the window that read opened, its start kept to the whole second`;
      return { learned: learned('fixed-first-request', how, ids), grid: null };
    }
    return { learned: undecided(`${went}: a clock-aligned boundary and the end of a window the read opened (its start kept to the whole second) both fit there`, ids), grid: { span: boundary, by: 'boundary' } };
  }
  if (reads.every((o, i) => i === 0 || countedDownFrom(reads[i - 1]!, o, record.all))) {
    // An aligned window that began just before the first read holds them all too: possible where a
    // boundary (the used-up window's end, or whole windows after it, wherever in its interval) can lie
    // between a window before the last read and the first read's answer.
    const before = { earliest: last.sentAt - windowMs, latest: first.headersAt ?? first.doneAt };
    if (!ended || ended.latest > before.earliest || alignedEndWithin(before.earliest, before.latest, ended, windowMs)) return { learned: null, grid: { span: before, by: 'counted-down' } };
    const how = `Remaining went ${values.join(' → ')} over ${span} ms of reads from one sent after the previous window ended: the window that read opened held for all of them, where an aligned window would have rolled over: windows start at the first counted request`;
    return { learned: learned('fixed-first-request', how, ids), grid: null };
  }
  if (!falls) return { learned: undecided(`Remaining stayed at ${values[0]} over ${reads.length} admitted reads: it does not show what counts`, ids), grid: null };
  return { learned: undecided(`Remaining went ${values.join(' → ')}: other traffic between the reads`, ids), grid: null };
}

/** Whether a second round of reads can decide what the first left open. */
export function secondRoundHelps(round: Round): boolean {
  return round.grid !== null && (round.learned === null || round.learned.value === null);
}

/** How far before a clock-aligned boundary the first read of a second round after a boundary goes. */
const BEFORE_GRID_MS = 150;

/**
 * When the second round's first read goes. After a round all in one window: half a window after its
 * first read, past the end of either kind of window. After a boundary that fits either kind: once a
 * full window has passed since the round's last read (so that read opens a window of its own, if
 * windows start at the first request), just before a whole window after the boundary: an aligned
 * boundary then comes a moment after it, where a window it opened (kept to the whole second) ends at
 * least a window less a second after it.
 */
export function secondRoundAt(round: Round, first: Observation, last: Observation, windowMs: number): number {
  if (round.grid === null || round.grid.by === 'counted-down') return first.sentAt + 1.5 * windowMs;
  const idle = (last.headersAt ?? last.doneAt) + windowMs + END_TOLERANCE_MS;
  const from = round.grid.span.earliest - BEFORE_GRID_MS;
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
function boundaryFits(opener: Observation, boundary: Span, grid: Span | null, windowMs: number): { readonly aligned: boolean; readonly firstRequest: boolean } {
  const firstRequest = boundary.earliest <= (opener.headersAt ?? opener.doneAt) + windowMs && boundary.latest >= opener.sentAt + windowMs - WHOLE_SECOND_MS;
  const aligned = grid === null ? !firstRequest : alignedEndWithin(boundary.earliest - END_TOLERANCE_MS, boundary.latest + END_TOLERANCE_MS, grid, windowMs);
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
function againVerdict(first: Observation, record: DiscoveryRecord, grid: Span, by: 'counted-down' | 'boundary'): Learned<WindowAlgorithm> | null {
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
    if (fits.aligned && !fits.firstRequest) return learned('fixed-aligned', `the first round of reads left a clock-aligned window possible; ${went}, whole windows after it: windows are aligned to the clock`, ids);
    if (fits.firstRequest && !fits.aligned) {
      return learned('fixed-first-request', `${went}, within a second of a full window after its first read and off every clock-aligned grid the first round allows: windows start at the first counted request, kept to the whole second`, ids);
    }
    return null;
  }
  if (!reads.every((o, i) => i === 0 || countedDownFrom(reads[i - 1]!, o, record.all))) return null;
  // Aligned boundaries the first round allows, and whole windows after them, against the second round's reads.
  const lastAgain = followUps.at(-1)!;
  if (alignedEndWithin(lastAgain.sentAt, (again.headersAt ?? again.doneAt) + W, grid, W)) return null;
  return learned('fixed-first-request', `two rounds of reads, each from one read sent after the window before ended, counted down over most of a window without a boundary, half a window apart: no clock-aligned grid fits both; windows start at the first counted request`, ids);
}

/** A span a Reset that moves every second cannot hide in. */
const STEADY_SPAN_MS = 1000;

/**
 * Whether Reset holds still within a window, over every stretch of the discovery known to lie in one
 * window: the reads counting down to the 429, the refusals after it (refill and narrowing probes, all
 * before the announced end), and the reads after the expiry read. Held still is claimed only over
 * at least a second of them: a Reset that moves once a second could hide in less.
 */
function steadiness(record: DiscoveryRecord, readPathOf: string, placing: EndPlacing): Learned<boolean> {
  const on = (phases: readonly DiscoveryPhase[]) => record.all.filter((o) => o.path === readPathOf && phases.some((p) => p === o.phase));
  const opened = record.expiry[0]?.sentAt ?? Infinity;
  const refusedIn = (phases: readonly DiscoveryPhase[], from: number, to: number) => on(phases).filter((o) => o.status === TOO_MANY_REQUESTS && o.sentAt >= from && o.sentAt < to);
  const stretches = [
    on(['counted', 'exhaust']),
    refusedIn(['exhaust', 'refill', 'narrow'], -Infinity, opened),
    on(['expiry', 'expiry-follow-up']),
    on(['expiry-again', 'expiry-again-follow-up']),
    refusedIn(['expiry-exhaust', 'narrow'], opened, Infinity),
  ];
  let comparedMs = 0;
  let compared = 0;
  for (const stretch of stretches) {
    const seen = resetMovement(stretch, placing);
    if (seen.moved) {
      const { before: a, after: b } = seen.moved;
      const how = a.status === TOO_MANY_REQUESTS ? 'while the quota stayed used up (429 then 429)' : `while Remaining counted down ${a.rateLimit.remaining.value} → ${b.rateLimit.remaining.value}`;
      return learned(false, `Reset went ${a.rateLimit.reset.raw} → ${b.rateLimit.reset.raw} ${how}: it moves within a window`, [a.id, b.id]);
    }
    comparedMs += seen.comparedMs;
    compared += seen.compared;
  }
  if (comparedMs < STEADY_SPAN_MS) return undecided(`Reset held still over ${compared} comparisons spanning only ${Math.round(comparedMs)} ms: too short to rule out one that moves each second`);
  return learned(true, `Reset held still over ${compared} comparisons within windows, spanning ${Math.round(comparedMs)} ms`, []);
}

/**
 * The used-up window's end on the server's clock, modulo the window length: where clock-aligned
 * boundaries fall. From our monotonic estimate through the 429's own send time and wall clock, and
 * the clock offset the run estimated from Date.
 */
function phaseOf(record: DiscoveryRecord, clockOffsetMs: number): Learned<WindowPhase> {
  const end = record.exhaustedEnd;
  const rejected = record.exhaustion.at(-1);
  if (!end || !rejected || rejected.status === null || isAdmitted(rejected)) return undecided('no used-up window announced its end');
  const serverMs = (mono: number) => rejected.sentWall + (mono - rejected.sentAt) + clockOffsetMs;
  const mid = serverMs((end.earliest + end.latest) / 2);
  const W = record.windowMs;
  const ms = ((Math.round(mid) % W) + W) % W;
  const doubtMs = Math.ceil((end.latest - end.earliest) / 2);
  return learned(
    { ms, doubtMs, clockOffsetMs },
    `the used-up window ended ${ms} ms (±${doubtMs}) past a multiple of ${W / 1000} s on the server's clock (estimated ${clockOffsetMs} ms from ours)`,
    [rejected.id],
  );
}
