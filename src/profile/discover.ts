/**
 * Discovery: the short, bounded sequence of requests from which a limiter profile is inferred
 * (infer.ts judges; this only sends and records). On one organization:
 *
 * 1. Counting pairs. Between two counted reads, one request whose counting is in question (HEAD,
 *    404, 403, 401, another read route, one resume upload): the second read's Remaining shows
 *    whether it counted against the read quota.
 * 2. Exhaustion. Reads until the first 429: its Reset or Retry-After says when the window ends.
 * 3. Refill. Shortly after the 429 (well before that end) one more read, and if it is admitted, one
 *    more at once: a bucket gives back one request at a time, a fixed window all of them.
 * 4. Expiry. Half a window after the announced end, one read, then reads spread over the next
 *    window (the last just before a full window after the first): a window the first read opened is
 *    still in force at each (Remaining one lower every time); a clock-aligned one rolls over among
 *    them (Remaining back up), wherever its boundary lies. Without Remaining, where the first read's
 *    window ends tells. (A Reset can drift or be coarse; Remaining read over a window cannot.)
 *
 * Every loop is bounded in count and time, and the run's signal stops it.
 */
import { endpointById } from '../contract/lookup.ts';
import { unissuedKey } from '../contract/keys.ts';
import type { Contract, Endpoint, Figure, TierName } from '../contract/types.ts';
import type { HttpProber, ProbeRequest } from '../drivers/http-prober.ts';
import { sleep } from '../drivers/window-sync.ts';
import type { Observation } from '../observe/observation.ts';
import { isAdmitted } from '../checks/finding.ts';
import { announcedWaitS, narrowedEnd, resetFormatOf, resetHoldsStill, windowEndOf, type EndEstimate } from '../observe/reset-format.ts';
import type { CountingQuestion } from './types.ts';

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
}

export type PairQuestion = Exclude<CountingQuestion, 'rejected'> | 'other-route' | 'ingest';

/** A request in question between two counted reads. */
export interface CountingPair {
  readonly question: PairQuestion;
  readonly before: Observation;
  readonly probe: Observation;
  readonly after: Observation;
}

export interface RefillProbe {
  readonly probe: Observation;
  /**
   * After an admitted probe, reads sent at once until one is refused (bounded by the quota the
   * elapsed time could have refilled, plus two): a bucket gives back a few, a fresh window all.
   */
  readonly followUps: readonly Observation[];
}

export interface DiscoveryRecord {
  readonly tier: TierName;
  readonly org: string;
  readonly windowMs: number;
  readonly figures: { readonly read: Figure; readonly ingest: Figure };
  readonly pairs: readonly CountingPair[];
  /** Reads until the first 429 (inclusive), or until the bound. */
  readonly exhaustion: readonly Observation[];
  readonly refill: readonly RefillProbe[];
  /**
   * The read sent half a window after the announced end; when it carries no usable Reset, the reads
   * after it until a 429, whose Retry-After tells where the new window ends.
   */
  readonly expiry: readonly Observation[];
  /** When the expiry read was sent, relative to the announced end: the half window waited. */
  readonly expiryDelayMs: number | null;
  /** Where the used-up window ends, as its 429s announced it (Reset, else Retry-After); monotonic ms. */
  readonly exhaustedEnd: EndEstimate | null;
  /**
   * Where the window the expiry read opened ends, when that read carried no usable Reset: from the
   * 429s after it (narrowed, see narrowEnd); with the last of them as evidence.
   */
  readonly expiryEnd: (EndEstimate & { readonly by: number }) | null;
  /** Reads spread over the window after the expiry read, the last just before a full window after it. */
  readonly expiryFollowUps: readonly Observation[];
  /** Every observation of the discovery, in send order. */
  readonly all: readonly Observation[];
  readonly durationMs: number;
}

/** Reads sent to exhaust the quota at most: the announced or published Limit, times this, plus a few. */
const EXHAUST_FACTOR = 2;
const EXHAUST_EXTRA = 5;
/** The longest a discovery waits for anything, in windows (plus a second). */
const MAX_WAIT_WINDOWS = 2;
/** Reads after the expiry read, evenly spread over a window less the margin. */
const FOLLOW_UP_READS = 4;
/** Allowance for our estimate of the server clock when an epoch Reset is turned into our time. */
export const CLOCK_SLACK_MS = 250;

export async function discover(input: DiscoveryInput): Promise<DiscoveryRecord> {
  const { prober, contract, windowMs, signal } = input;
  const edge = prober.edges[0]!;
  const figures = { read: contract.tiers[input.tier].read, ingest: contract.tiers[input.tier].ingest };
  const all: Observation[] = [];
  const started = prober.now();
  const send = async (request: ProbeRequest, phase: string) => {
    const o = await prober.send(edge, request, { check: 'PROFILE', phase, tier: input.tier, org: input.org });
    all.push(o);
    return o;
  };
  const as = (endpoint: Endpoint, key: string | null, path = endpoint.path): ProbeRequest => ({ method: endpoint.method, path, key });
  const jobs = endpointById(contract, 'jobs-list');
  const read = (phase: string) => send(as(jobs, input.keys.primary), phase);

  // 1. Counting pairs.
  const questions: { question: PairQuestion; request: ProbeRequest }[] = [
    { question: 'head', request: as(endpointById(contract, 'bootstrap-head'), input.keys.primary) },
    { question: 'not-found', request: { method: 'GET', path: '/recruiter/tiergate-profile-not-found', key: input.keys.primary } },
    ...(input.keys.unscoped ? [{ question: 'forbidden' as const, request: as(jobs, input.keys.unscoped) }] : []),
    { question: 'unauthenticated', request: as(jobs, unissuedKey(contract.keyFormats[0]?.prefix ?? 'xh_test_')) },
    { question: 'other-route', request: as(endpointById(contract, 'scope-list'), input.keys.primary) },
    {
      question: 'ingest',
      request: { ...as(endpointById(contract, 'resume-analysis'), input.keys.primary), headers: { 'content-type': 'text/plain' }, body: 'Jane Doe\nEngineer\n' },
    },
  ];
  const pairs: CountingPair[] = [];
  let before = await read('counted');
  for (const { question, request } of questions) {
    if (signal.aborted) break;
    const probe = await send(request, question);
    const after = await read('counted');
    pairs.push({ question, before, probe, after });
    before = after;
  }

  // 2. Exhaustion: reads until the first 429, bounded by the Limit announced (or published).
  const announced = before.rateLimit.limit.value;
  const limit = Math.min(announced ?? figures.read.value, figures.read.value * 20);
  const exhaustion: Observation[] = [];
  for (let n = 0; n < limit * EXHAUST_FACTOR + EXHAUST_EXTRA && !signal.aborted; n++) {
    const o = await read('exhaust');
    exhaustion.push(o);
    if (o.status === contract.statuses.rateLimited) break;
  }
  const rejected = exhaustion.at(-1);
  const refill: RefillProbe[] = [];
  const expiry: Observation[] = [];
  let expiryDelayMs: number | null = null;
  let exhaustedEnd: DiscoveryRecord['exhaustedEnd'] = null;
  let expiryEnd: DiscoveryRecord['expiryEnd'] = null;
  const expiryFollowUps: Observation[] = [];
  if (rejected && rejected.status === contract.statuses.rateLimited && !signal.aborted) {
    let end = announcedEnd(rejected, windowMs, input.clockOffsetMs());
    const rejectedAt = rejected.headersAt ?? rejected.doneAt;

    // 3. Refill: reads well inside the window (never past the earliest announced end). The first
    // comes after about one request's worth of refill time, so a bucket has one to give back.
    const perRequest = windowMs / Math.max(1, limit);
    for (const delay of [Math.min(Math.max(1.5 * perRequest, 20), windowMs / 8), windowMs / 4]) {
      const at = rejectedAt + delay;
      if (end !== null && at >= end.earliest - 100) break;
      await sleep(at - prober.now(), signal);
      if (signal.aborted) break;
      const probe = await read('refill');
      const followUps: Observation[] = [];
      if (isAdmitted(probe)) {
        const bound = Math.ceil((prober.now() - rejectedAt) / perRequest) + 2;
        while (followUps.length < bound && !signal.aborted) {
          const o = await read('refill-follow-up');
          followUps.push(o);
          if (!isAdmitted(o)) break;
        }
      }
      refill.push({ probe, followUps });
      if (followUps.length > 0) break;
    }

    // A countdown in whole seconds places the end only to a second: more 429s at chosen instants narrow it.
    if (end !== null && refill.every((r) => r.followUps.length === 0)) end = (await narrowEnd(end, read, input)).end;
    exhaustedEnd = end;

    // 4. Expiry: half a window after the announced end, one read. Without a Reset on it, reads
    // until a 429, whose countdown (narrowed) says where the window that read opened ends.
    if (end !== null && refill.every((r) => r.followUps.length === 0)) {
      const at = end.latest + windowMs / 2;
      if (at - prober.now() <= windowMs * MAX_WAIT_WINDOWS + 1000) {
        await sleep(at - prober.now(), signal);
        if (!signal.aborted) {
          expiryDelayMs = Math.round(prober.now() - end.latest);
          const first = await read('expiry');
          expiry.push(first);
          if (isAdmitted(first) && first.rateLimit.remaining.value !== null) {
            // The last read must surely fall inside a window the first one opened: clear of its end
            // by a margin of a few round trips.
            const rtt = Math.max(5, (first.headersAt ?? first.doneAt) - first.sentAt);
            const span = windowMs - Math.max(50, 4 * rtt);
            for (let k = 1; k <= FOLLOW_UP_READS && !signal.aborted; k++) {
              await sleep(first.sentAt + (span * k) / FOLLOW_UP_READS - prober.now(), signal);
              if (signal.aborted) break;
              const o = await read('expiry-follow-up');
              expiryFollowUps.push(o);
              if (!isAdmitted(o)) break;
            }
          }
          const format = resetFormatOf(first, windowMs, input.clockOffsetMs());
          const unusable = windowEndOf(first, format, input.clockOffsetMs()) === null || !resetHoldsStill(exhaustion);
          if (isAdmitted(first) && unusable) {
            for (let n = 0; n < limit * EXHAUST_FACTOR + EXHAUST_EXTRA && !signal.aborted; n++) {
              const o = await read('expiry-exhaust');
              expiry.push(o);
              if (o.status === contract.statuses.rateLimited) break;
            }
            const last = expiry.at(-1)!;
            const opened = last.status === contract.statuses.rateLimited ? announcedEnd(last, windowMs, input.clockOffsetMs()) : null;
            if (opened) {
              const narrowed = await narrowEnd(opened, read, input);
              expiry.push(...narrowed.sent);
              expiryEnd = { ...narrowed.end, by: narrowed.sent.at(-1)?.id ?? last.id };
            }
          }
        }
      }
    }
  }
  return {
    tier: input.tier,
    org: input.org,
    windowMs,
    figures,
    pairs,
    exhaustion,
    refill,
    expiry,
    expiryDelayMs,
    exhaustedEnd,
    expiryEnd,
    expiryFollowUps,
    all,
    durationMs: prober.now() - started,
  };
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
  read: (phase: string) => Promise<Observation>,
  input: DiscoveryInput,
): Promise<{ end: EndEstimate; sent: Observation[] }> {
  const { prober, windowMs, signal } = input;
  const sent: Observation[] = [];
  let end = start;
  for (let i = 0; i < NARROW_PROBES && end.latest - end.earliest > NARROW_ENOUGH_MS && !signal.aborted; i++) {
    const middle = (end.earliest + end.latest) / 2;
    const seconds = Math.floor((middle - prober.now() - 50) / 1000);
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

/** When the window a 429 belongs to ends, from its Reset (any format) or else its Retry-After. */
export function announcedEnd(rejected: Observation, windowMs: number, clockOffsetMs: number) {
  const fromReset = windowEndOf(rejected, resetFormatOf(rejected, windowMs, clockOffsetMs), clockOffsetMs, CLOCK_SLACK_MS);
  if (fromReset) return fromReset;
  const wait = announcedWaitS(rejected);
  if (wait === null || rejected.headersAt === null) return null;
  // Retry-After is rounded up to whole seconds: the end lies in the second before it.
  return { earliest: rejected.sentAt + (Math.ceil(wait) - 1) * 1000, latest: rejected.headersAt + Math.ceil(wait) * 1000 };
}
