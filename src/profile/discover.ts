/**
 * Discovery: the short, bounded sequence of requests from which a limiter profile is inferred
 * (infer.ts judges; this only sends and records). On one organization:
 *
 * 1. Counting pairs. Between two counted reads, one request whose counting is in question (HEAD,
 *    404, 403, 401, another read route, one resume upload): the second read's Remaining shows
 *    whether it counted against the read quota.
 * 2. Exhaustion. Reads until the first 429 (in batches, never more than Remaining shows left, the 429
 *    met by one read alone): its Reset or Retry-After says when the window ends.
 * 3. Refill. Shortly after the 429 (well before that end) one more read, and if it is admitted, one
 *    more at once: a bucket gives back one request at a time, a fixed window all of them.
 * 4. Expiry (unless kept brief: see DiscoveryInput.brief). After the announced end, clear of where an aligned boundary could fall just before it
 *    (expiryReadAt), one read, then reads spread over the next
 *    window (the last just before a full window after the first): a window the first read opened is
 *    still in force at each (Remaining one lower every time); a clock-aligned one rolls over among
 *    them (Remaining back up), wherever its boundary lies. Without Remaining, where the first read's
 *    window ends tells. (A Reset can drift or be coarse; Remaining read over a window cannot.)
 *
 * Every loop is bounded in count and time, and the run's signal stops it.
 */
import { endpointById } from '../contract/lookup.ts';
import { unissuedKey } from '../contract/keys.ts';
import type { Contract, Endpoint, OrgLimits, TierName } from '../contract/types.ts';
import { MAX_LIMIT_FACTOR, figuresOf } from '../contract/org-limits.ts';
import type { HttpProber, ProbeRequest } from '../measure/http-prober.ts';
import { sleep } from '../util/sleep.ts';
import { requestFor } from '../measure/requests.ts';
import { carriesRateHeaders, isAdmitted, type Observation } from '../measure/observation.ts';
import type { DiscoveryPhase } from '../measure/tags.ts';
import {
  CLOCK_SLACK_MS,
  announcedEnd,
  narrowedEnd,
  resetFormatOf,
  endSourceOf,
  endEstimateOf,
  windowMayHaveTurned,
  roundingAllowanceMs,
  type EndEstimate,
  type EndSource,
} from '../measure/reset-format.ts';
import {
  quotaRefused,
  type CountingPair,
  type DialectsSentBy,
  type DiscoveryRecord,
  type PairQuestion,
  type RefillProbe,
} from './record.ts';
import { dialectsSent, type DialectsSent } from '../contract/rate-limit-sent.ts';
import type { RawHeaderValues } from '../contract/rate-limit-dialects.ts';
import { firstRound, secondRoundAt, secondRoundHelps, usedUpEnds } from './window-algorithm.ts';

export interface DiscoveryInput {
  readonly prober: HttpProber;
  readonly contract: Contract;
  readonly tier: TierName;
  readonly org: string;
  /** A key holding every scope, and one holding none (for the 403 question) when there is one. */
  readonly keys: { readonly primary: string; readonly unscoped: string | null };
  readonly windowMs: number;
  readonly clockOffsetMs: () => number;
  readonly signal: AbortSignal;
  /** The organization's own figures, where it declares them (the published ones otherwise). */
  readonly limits?: Partial<OrgLimits>;
  /** May it upload a resume (the ingest question)? Not where the run may write nothing (`writes: none`). */
  readonly uploads?: boolean;
  /** Names the resume it uploads (tiergate and the run id). */
  readonly runId: string;
  /**
   * Stop once the used-up window is read where the server shows rate-limit headers: how its windows
   * start (the expiry reads, two windows or more) stays open. For a discovery the checks wait for:
   * with the headers, openers find their windows without knowing it.
   */
  readonly brief?: boolean;
}

/** Reads sent to exhaust the quota at most: the announced or published Limit, times this, plus a few. */
const EXHAUST_FACTOR = 2;
const EXHAUST_EXTRA = 5;
/** ...and for at most this many windows. */
const EXHAUST_WINDOWS = 2;
/** Reads in flight at once while filling a quota, at most (and never more than the tier's cap less one). */
const FILL_BATCH = 16;
/** This many requests in a row without an answer end the discovery. */
const SILENT_AFTER = 3;
/** A counting pair spoiled (a boundary between its reads, or an answer lost) is asked again, this many times in all at most. */
export const PAIR_ATTEMPTS = 3;
/** The longest a discovery waits for anything, in windows (plus a second). */
const MAX_WAIT_WINDOWS = 2;
/** Reads after the expiry read, evenly spread over a window less the margin. */
const FOLLOW_UP_READS = 4;

/** How far before a window's end the last follow-up read stays: it must reach the server inside it. */
function followUpClearance(input: DiscoveryInput, o: Observation): number {
  return input.prober.network.margins(o.edge).lastReadClearanceMs;
}

/**
 * When to send the expiry read: surely after the used-up window ended (a rounding allowance past its
 * latest announced end), and where no clock-aligned
 * boundary (whole windows after that end, wherever in its interval) can fall in the stretch just
 * before it, which the follow-up reads could not tell from a window the read opened (see the
 * profile's followUpsVerdict): the middle of [latest end + clearance, earliest end + a window). An
 * end too coarse for that: half a window after its latest (the follow-ups then decide nothing alone).
 */
export function expiryReadAt(
  end: { readonly earliest: number; readonly latest: number },
  windowMs: number,
  clearanceMs: number,
): number {
  const from = end.latest + roundingAllowanceMs(windowMs) + clearanceMs;
  const to = end.earliest + windowMs;
  return from < to ? (from + to) / 2 : end.latest + windowMs / 2;
}

/** The discovery's own sending: every request recorded in `all`, reads on the jobs list with the primary key. */
interface Session {
  readonly input: DiscoveryInput;
  /** Every request the discovery sent, in order. */
  readonly all: Observation[];
  /** The rate-limit dialects of each answer that carried a rate-limit field, read from its raw headers. */
  readonly dialects: DialectsSentBy[];
  send(request: ProbeRequest, phase: DiscoveryPhase): Promise<Observation>;
  read(phase: DiscoveryPhase): Promise<Observation>;
  /**
   * A read whose answer is needed where it falls: one lost on the way (a flaky network) is sent again
   * at once, until answered or the server is silent. The lost one stays in `all`: where it may have
   * counted, inference allows for it (see profile/infer.ts lostBetween).
   */
  answeredRead(phase: DiscoveryPhase): Promise<Observation>;
  /** A server that does not answer teaches nothing: stop at once (the checks will say what they saw). */
  silent(): boolean;
}

function openSession(input: DiscoveryInput): Session {
  const { prober, contract, signal } = input;
  const edge = prober.edges[0]!;
  const all: Observation[] = [];
  const dialects: DialectsSentBy[] = [];
  const jobs = endpointById(contract, 'jobs-list');
  const session: Session = {
    input,
    all,
    dialects,
    send: async (request, phase) => {
      const heard: { sent?: DialectsSent } = {};
      const onHeaders = (headers: RawHeaderValues) => (heard.sent = dialectsSent(headers));
      const tags = { check: 'PROFILE', phase, tier: input.tier, org: input.org } as const;
      const o = await prober.send(edge, { ...request, onHeaders }, tags);
      all.push(o);
      const { sent } = heard;
      if (sent && Object.keys(sent.fields).length > 0) dialects.push({ id: o.id, sent });
      return o;
    },
    read: (phase) => session.send(requestOf(jobs, input.keys.primary), phase),
    answeredRead: async (phase) => {
      let o = await session.read(phase);
      while (o.status === null && !signal.aborted && !session.silent()) o = await session.read(phase);
      return o;
    },
    silent: () =>
      all.slice(-SILENT_AFTER).length === SILENT_AFTER && all.slice(-SILENT_AFTER).every((o) => o.status === null),
  };
  return session;
}

const requestOf = (endpoint: Endpoint, key: string | null, path = endpoint.path): ProbeRequest => ({
  method: endpoint.method,
  path,
  key,
});

export async function discover(input: DiscoveryInput): Promise<DiscoveryRecord> {
  const { prober, contract, windowMs } = input;
  const own = figuresOf(contract, { tier: input.tier, limits: input.limits });
  const figures = { read: own.read, ingest: own.ingest };
  const started = prober.now();
  const session = openSession(input);
  const { pairs, before } = await askCountingPairs(session, countingQuestions(input));
  // Exhaustion: bounded by the Limit announced (or published).
  const announced = before.rateLimit.limit.value;
  const limit = Math.min(announced ?? figures.read.value, figures.read.value * MAX_LIMIT_FACTOR);
  // The organization is the discovery's alone: one slot of the cap stays free.
  const batch = Math.max(1, Math.min(FILL_BATCH, own.concurrency.value - 1));
  const exhaustion = before.status === null ? [] : await exhaust(session, before, limit, batch);
  const rejected = exhaustion.at(-1);
  const afterwards =
    rejected && rejected.status === contract.statuses.rateLimited && !input.signal.aborted
      ? await afterTheRefusal(session, exhaustion, rejected, { limit, batch })
      : NOTHING_AFTER;
  return {
    tier: input.tier,
    org: input.org,
    windowMs,
    figures,
    pairs,
    exhaustion,
    ...afterwards,
    all: session.all,
    dialects: session.dialects,
    durationMs: prober.now() - started,
  };
}

/** 1. The requests whose counting is in question, each asked between two counted reads. */
function countingQuestions(input: DiscoveryInput): { question: PairQuestion; request: ProbeRequest }[] {
  const { contract, keys } = input;
  const jobs = endpointById(contract, 'jobs-list');
  return [
    { question: 'head', request: requestOf(endpointById(contract, 'bootstrap-head'), keys.primary) },
    {
      question: 'not-found',
      request: { method: 'GET', path: '/recruiter/tiergate-profile-not-found', key: keys.primary },
    },
    ...(keys.unscoped ? [{ question: 'forbidden' as const, request: requestOf(jobs, keys.unscoped) }] : []),
    {
      question: 'unauthenticated',
      request: requestOf(jobs, unissuedKey(contract.keyFormats[0]?.prefix ?? 'xh_test_')),
    },
    { question: 'other-route', request: requestOf(endpointById(contract, 'scope-list'), keys.primary) },
    ...(input.uploads === false
      ? []
      : [
          {
            question: 'ingest' as const,
            request: requestFor(endpointById(contract, 'resume-analysis'), keys.primary, { runId: input.runId }),
          },
        ]),
  ];
}

/**
 * 1. Counting pairs: each question between two counted reads, asked again (up to PAIR_ATTEMPTS) where
 * spoiled. Returns the pairs and the last counted read, which the exhaustion starts from.
 */
async function askCountingPairs(
  session: Session,
  questions: readonly { question: PairQuestion; request: ProbeRequest }[],
): Promise<{ pairs: CountingPair[]; before: Observation }> {
  const { signal } = session.input;
  const pairs: CountingPair[] = [];
  let before = await session.answeredRead('counted');
  for (const { question, request } of questions) {
    if (signal.aborted || before.status === null) break;
    let pair: CountingPair | null = null;
    for (let attempt = 1; attempt <= PAIR_ATTEMPTS && !signal.aborted && before.status !== null; attempt++) {
      const probe = await session.send(request, question);
      const after = await session.read('counted');
      pair = { question, before, probe, after };
      // Spoiled, asked again from a fresh read before: a window boundary between the reads (Remaining
      // back up, or the announced end moved), or an answer lost (a lost probe may have counted unseen).
      const lost = probe.status === null || after.status === null;
      if (!lost && !windowMayHaveTurned(before, after)) break;
      before = after.status === null ? await session.answeredRead('counted') : after;
    }
    if (pair === null) break;
    pairs.push(pair);
    before = pair.after.status === null ? before : pair.after;
  }
  return { pairs, before };
}

/** 2. Exhaustion: reads until the first 429 (exhaustQuota), from the last counted read's Remaining. */
function exhaust(session: Session, before: Observation, limit: number, batch: number): Promise<Observation[]> {
  const { prober, windowMs, signal, contract } = session.input;
  // Bounded in time: a server too slow to answer Limit reads within two windows is not exhausted
  // this way (the algorithm then stays open).
  const exhaustUntil = prober.now() + EXHAUST_WINDOWS * windowMs;
  return exhaustQuota(() => session.read('exhaust'), {
    left: before.rateLimit.remaining.value,
    batch,
    perWindow: limit * EXHAUST_FACTOR + EXHAUST_EXTRA,
    going: () => !signal.aborted && !session.silent() && prober.now() < exhaustUntil,
    rateLimited: contract.statuses.rateLimited,
  });
}

/** What the discovery learns after the first 429: the refill, the used-up window's end, the expiry. */
type AfterTheRefusal = Pick<
  DiscoveryRecord,
  | 'refill'
  | 'expiry'
  | 'expiryDelayMs'
  | 'exhaustedEnd'
  | 'expiryEnd'
  | 'expiryFollowUps'
  | 'expiryAgain'
  | 'expirySkipped'
>;

/** A discovery that learned nothing after the refusal (kept brief, or no 429): tests build records from it too. */
export const NOTHING_AFTER: AfterTheRefusal = {
  refill: [],
  expiry: [],
  expiryDelayMs: null,
  exhaustedEnd: null,
  expiryEnd: null,
  expiryFollowUps: [],
  expiryAgain: [],
  expirySkipped: null,
};

/** 3 and 4: the refill probes, the used-up window's end (narrowed), and the expiry reads. */
async function afterTheRefusal(
  session: Session,
  exhaustion: readonly Observation[],
  rejected: Observation,
  reads: { readonly limit: number; readonly batch: number },
): Promise<AfterTheRefusal> {
  const { windowMs, clockOffsetMs } = session.input;
  // Where Reset was seen moving, Retry-After alone places the end. (Where the two merely disagree on
  // the 429, either may be wrong: a Retry-After too short, or a Reset that drifts.)
  const endSource = endSourceOf(exhaustion, { windowMs, clockOffsetMs: clockOffsetMs(), slackMs: CLOCK_SLACK_MS });
  const announced = announcedEnd(rejected, windowMs, clockOffsetMs(), CLOCK_SLACK_MS, endSource);
  const refill = await probeRefill(session, rejected, announced, endSource, reads);
  const refilled = refill.some((r) => r.followUps.length > 0);
  // A countdown in whole seconds places the end only to a second: more 429s at chosen instants narrow it.
  const exhaustedEnd =
    announced !== null && !refilled ? (await narrowEnd(announced, session.read, session.input)).end : announced;
  // 4. Expiry, unless kept brief.
  const brief = session.input.brief === true && carriesRateHeaders(rejected);
  const expirySkipped = brief
    ? 'not asked: the checks waited for this discovery, and with rate-limit headers they find their windows without it (an organization of its own per tier lets the discovery learn it beside them)'
    : null;
  const expiry =
    !brief && exhaustedEnd !== null && !refilled
      ? await readExpiry(session, { rejected, exhaustedEnd, endSource, ...reads })
      : NO_EXPIRY;
  return { refill, exhaustedEnd, expirySkipped, ...expiry };
}

/**
 * 3. Refill: reads well inside the window (never past the earliest announced end). The first comes
 * after about one request's worth of refill time, so a bucket has one to give back; one admitted is
 * followed by reads at once until one is refused.
 */
async function probeRefill(
  session: Session,
  rejected: Observation,
  end: EndEstimate | null,
  endSource: EndSource,
  reads: { readonly limit: number; readonly batch: number },
): Promise<RefillProbe[]> {
  const { prober, windowMs, signal } = session.input;
  const rejectedAt = rejected.headersAt ?? rejected.doneAt;
  const perRequest = windowMs / Math.max(1, reads.limit);
  const refill: RefillProbe[] = [];
  for (const [i, delay] of [Math.min(Math.max(1.5 * perRequest, 20), windowMs / 8), windowMs / 4].entries()) {
    const at = rejectedAt + delay;
    // Where only Retry-After places the end (to a whole second: it may come at once), the first
    // probe goes all the same: a bucket (whose Reset moves) shows itself only this way, and a
    // boundary shows as reads admitted on and on, not refused right after.
    const clearance = prober.network.margins(rejected.edge).lastReadClearanceMs;
    if (end !== null && at >= end.earliest - clearance && !(i === 0 && endSource === 'wait-only')) break;
    await sleep(at - prober.now(), signal);
    if (signal.aborted) break;
    const probe = await session.answeredRead('refill');
    const followUps = isAdmitted(probe)
      ? await readsUntilRefused(() => session.answeredRead('refill-follow-up'), {
          count: Math.ceil((prober.now() - rejectedAt) / perRequest) + 2,
          batch: reads.batch,
          going: () => !signal.aborted && !session.silent(),
        })
      : [];
    refill.push({ probe, followUps });
    if (followUps.length > 0) break;
  }
  return refill;
}

/**
 * Reads at once after an admitted refill probe, until one is refused for its quota: at most `count`
 * (the refill time since the 429 allows, plus two), `batch` at a time. One after another, a bucket
 * giving back a request per round trip or faster (a loaded machine's round trips) would admit every
 * one, and pass for a window that ended early; a window that did end admits them all (the bound is
 * well under its Limit). A refusal that is not the quota's (a concurrency cap counting a slot the
 * server still holds) makes it one at a time from there, as the exhaustion goes on after one.
 */
export async function readsUntilRefused(
  read: () => Promise<Observation>,
  bounds: { readonly count: number; readonly batch: number; readonly going: () => boolean },
): Promise<Observation[]> {
  const followUps: Observation[] = [];
  let size = bounds.batch;
  while (followUps.length < bounds.count && bounds.going()) {
    const count = Math.min(size, bounds.count - followUps.length);
    const answers = await Promise.all(Array.from({ length: count }, read));
    followUps.push(...answers);
    const refused = answers.filter((o) => !isAdmitted(o));
    if (refused.some(quotaRefused) || (refused.length > 0 && count === 1)) break;
    if (refused.length > 0) size = 1;
  }
  return followUps;
}

type ExpiryReads = Pick<DiscoveryRecord, 'expiry' | 'expiryDelayMs' | 'expiryEnd' | 'expiryFollowUps' | 'expiryAgain'>;

const NO_EXPIRY: ExpiryReads = {
  expiry: [],
  expiryDelayMs: null,
  expiryEnd: null,
  expiryFollowUps: [],
  expiryAgain: [],
};

/**
 * 4. Expiry: one read after the announced end, where no aligned boundary can hide just before it
 * (expiryReadAt), and reads spread over the window after it. Without a Reset on it, reads until a
 * 429, whose countdown (narrowed) says where the window that read opened ends.
 */
async function readExpiry(
  session: Session,
  used: { rejected: Observation; exhaustedEnd: EndEstimate; endSource: EndSource; limit: number; batch: number },
): Promise<ExpiryReads> {
  const { prober, windowMs, signal, clockOffsetMs } = session.input;
  const { rejected, exhaustedEnd, endSource } = used;
  const at = expiryReadAt(exhaustedEnd, windowMs, 2 * followUpClearance(session.input, rejected));
  if (at - prober.now() > windowMs * MAX_WAIT_WINDOWS + 1000) return NO_EXPIRY;
  await sleep(at - prober.now(), signal);
  if (signal.aborted) return NO_EXPIRY;
  const expiryDelayMs = Math.round(prober.now() - exhaustedEnd.latest);
  const first = await session.answeredRead('expiry');
  const rounds =
    isAdmitted(first) && first.rateLimit.remaining.value !== null
      ? await expiryRounds(session, first, usedUpEnds(exhaustedEnd, rejected, windowMs))
      : { expiryFollowUps: [], expiryAgain: [] };
  const format = resetFormatOf(first, windowMs, clockOffsetMs());
  const unusable = endEstimateOf(first, format, clockOffsetMs()) === null || endSource === 'wait-only';
  const opened = isAdmitted(first) && unusable ? await endOfWindowOpened(session, endSource, first, used) : null;
  return {
    expiry: [first, ...(opened?.sent ?? [])],
    expiryDelayMs,
    expiryEnd: opened?.end ?? null,
    ...rounds,
  };
}

/**
 * The reads spread over the window after the expiry read; where they leave the kind of window open (all
 * in one window, counting down: a window the read opened, or an aligned one that began just before it;
 * or back up where either kind fits), a second round, placed where the two kinds' boundaries fall
 * apart (secondRoundAt), tells them apart. `usedUp`: the used-up window's ends the inference will judge
 * the reads against (usedUpEnds: two where the 429's Reset and Retry-After disagree), so a second round
 * goes wherever the inference will need one.
 */
async function expiryRounds(
  session: Session,
  first: Observation,
  usedUp: readonly (EndEstimate | null)[],
): Promise<Pick<DiscoveryRecord, 'expiryFollowUps' | 'expiryAgain'>> {
  const { prober, windowMs, signal } = session.input;
  const expiryFollowUps = await followUpsOver(session, first, 'expiry-follow-up');
  const round = usedUp
    .map((exhaustedEnd) => firstRound(first, expiryFollowUps, { exhaustedEnd, windowMs, all: session.all }))
    .find(secondRoundHelps);
  if (!round) return { expiryFollowUps, expiryAgain: [] };
  const beforeBoundaryMs = prober.network.margins(first.edge).beforeBoundaryMs;
  await sleep(secondRoundAt(round, first, windowMs, beforeBoundaryMs) - prober.now(), signal);
  const second = signal.aborted ? null : await session.answeredRead('expiry-again');
  if (!second || !isAdmitted(second)) return { expiryFollowUps, expiryAgain: [] };
  // After a boundary, twice as many: where it falls against the grid is the question.
  const count = round.grid?.by === 'boundary' ? 2 * FOLLOW_UP_READS : FOLLOW_UP_READS;
  const again = await followUpsOver(session, second, 'expiry-again-follow-up', count, true);
  return { expiryFollowUps, expiryAgain: [second, ...again] };
}

/**
 * Where the window the expiry read opened ends, when its own Reset cannot say: reads until a 429
 * (bounded in count and time; in batches while Remaining shows quota left, as the exhaustion goes),
 * whose countdown is narrowed. Every read sent, and the end (with the observation that placed it)
 * where a 429 came.
 */
async function endOfWindowOpened(
  session: Session,
  endSource: EndSource,
  first: Observation,
  reads: { readonly limit: number; readonly batch: number },
): Promise<{ sent: Observation[]; end: DiscoveryRecord['expiryEnd'] }> {
  const { prober, windowMs, signal, contract, clockOffsetMs } = session.input;
  const expiryUntil = prober.now() + EXHAUST_WINDOWS * windowMs;
  const sent = await exhaustQuota(() => session.read('expiry-exhaust'), {
    left: first.rateLimit.remaining.value,
    batch: reads.batch,
    perWindow: reads.limit * EXHAUST_FACTOR + EXHAUST_EXTRA,
    going: () => !signal.aborted && !session.silent() && prober.now() < expiryUntil,
    rateLimited: contract.statuses.rateLimited,
  });
  const last = sent.at(-1);
  const opened =
    last && last.status === contract.statuses.rateLimited
      ? announcedEnd(last, windowMs, clockOffsetMs(), CLOCK_SLACK_MS, endSource)
      : null;
  if (!last || !opened) return { sent, end: null };
  const narrowed = await narrowEnd(opened, session.read, session.input);
  return { sent: [...sent, ...narrowed.sent], end: { ...narrowed.end, by: narrowed.sent.at(-1)?.id ?? last.id } };
}

/**
 * `count` reads spread over a window after `first`, the last clear of its end by a few round trips;
 * stops at a refusal, and (`untilBack`) once Remaining comes back up: the inference places the first
 * such boundary, and later reads show nothing more (the first round's still show whether Reset holds
 * still over a second or more).
 */
async function followUpsOver(
  session: Session,
  first: Observation,
  phase: DiscoveryPhase,
  count = FOLLOW_UP_READS,
  untilBack = false,
): Promise<Observation[]> {
  const { prober, windowMs, signal } = session.input;
  const reads: Observation[] = [];
  const span = windowMs - followUpClearance(session.input, first);
  for (let k = 1; k <= count && !signal.aborted; k++) {
    await sleep(first.sentAt + (span * k) / count - prober.now(), signal);
    if (signal.aborted) break;
    const o = await session.answeredRead(phase);
    const before = (reads.at(-1) ?? first).rateLimit.remaining.value;
    reads.push(o);
    if (!isAdmitted(o)) break;
    const back = before !== null && o.rateLimit.remaining.value !== null && o.rateLimit.remaining.value > before;
    if (untilBack && back) break;
  }
  return reads;
}

/**
 * Reads until the first 429. While the server shows quota left, reads go in batches under the
 * concurrency cap, never more than its Remaining, so a quota is used up inside the window it started
 * in (why batches this large: docs/decisions/discovery-exhaustion-batches.md); once Remaining is
 * 0, one read alone meets the 429. A refusal in a batch (a 429 early, a concurrency refusal, an error
 * status) makes it one at a time from there; an answer lost on the way changes nothing (the others'
 * Remaining shows what counted). A boundary that falls before the 429 (Remaining back up) begins a fresh window, counted
 * and batched anew: on a loaded machine, short windows often turn during the last reads.
 * Bounded per window by `perWindow` reads, in all by as many windows as EXHAUST_WINDOWS and one, and
 * in time by `going`.
 */
export async function exhaustQuota(
  read: () => Promise<Observation>,
  bounds: {
    readonly left: number | null;
    readonly batch: number;
    readonly perWindow: number;
    readonly going: () => boolean;
    readonly rateLimited: number;
  },
): Promise<Observation[]> {
  const { batch, perWindow, going, rateLimited } = bounds;
  const sent: Observation[] = [];
  let left = bounds.left;
  let inWindow = 0;
  let batching = true;
  while (inWindow < perWindow && sent.length < perWindow * (EXHAUST_WINDOWS + 1) && going()) {
    const size = batching && left !== null ? Math.max(1, Math.min(batch, left, perWindow - inWindow)) : 1;
    const answers = await Promise.all(Array.from({ length: size }, read));
    sent.push(...answers);
    inWindow += size;
    if (size === 1 && answers[0]!.status === rateLimited) break;
    const answered = answers.filter((o) => o.status !== null);
    if (size > 1 && (answered.length === 0 || !answered.every(isAdmitted))) batching = false;
    const shown = answered
      .filter(isAdmitted)
      .map((o) => o.rateLimit.remaining.value)
      .filter((r): r is number => r !== null);
    if (shown.length === 0) continue;
    if (left !== null && Math.max(...shown) > left) inWindow = size;
    left = Math.min(...shown);
  }
  return sent;
}

/** Narrowing stops at this width, ms, or after this many 429s. */
const NARROW_ENOUGH_MS = 150;
const NARROW_PROBES = 3;

/**
 * Narrow a window end known to a second: a read sent when the middle of the interval lies a whole
 * number of seconds ahead is answered with a countdown that says on which side of the middle the end
 * lies (bisection). Only while the window surely lasts: every read is a 429, counted or not.
 */
async function narrowEnd(
  start: EndEstimate,
  read: (phase: DiscoveryPhase) => Promise<Observation>,
  input: DiscoveryInput,
): Promise<{ end: EndEstimate; sent: Observation[] }> {
  const { prober, windowMs, signal } = input;
  const sent: Observation[] = [];
  let end = start;
  for (let i = 0; i < NARROW_PROBES && end.latest - end.earliest > NARROW_ENOUGH_MS && !signal.aborted; i++) {
    const middle = (end.earliest + end.latest) / 2;
    // The read must reach the server before the middle is whole seconds ahead of it.
    const seconds = Math.floor((middle - prober.now() - prober.network.margins().lastReadClearanceMs) / 1000);
    if (seconds < 1) break;
    await sleep(middle - seconds * 1000 - prober.now(), signal);
    if (signal.aborted) break;
    const o = await read('narrow');
    sent.push(o);
    const narrowed = isAdmitted(o) ? null : narrowedEnd(end, o, windowMs, input.clockOffsetMs());
    if (!narrowed) break;
    end = narrowed;
  }
  return { end, sent };
}
