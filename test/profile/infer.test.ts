/**
 * Limiter-profile inference on recorded discoveries: what counts, how windows start, whether Reset
 * holds still, told from the server's answers alone, and left open (with the reason) where they cannot
 * tell.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { CountingPair, DiscoveryRecord, PairQuestion } from '../../src/profile/record.ts';
import { algorithmOf, firstRound, inferProfile, secondRoundAt } from '../../src/profile/infer.ts';
import type { Observation } from '../../src/measure/observation.ts';
import type { EndEstimate } from '../../src/measure/reset-format.ts';
import { T0, obs, resetObservations, type ObsInit } from '../helpers/observations.ts';

const W = 3000;
const read = (remaining: number | null, init: ObsInit = {}) => obs({ limit: 60, remaining, reset: T0 + 3, serverMs: T0 * 1000 + 100, ...init });

/** A pair whose request in question took `step - 1` from Remaining (step 1: free; 2: counted). */
function pair(question: PairQuestion, before: number, step: number, probe: ObsInit = {}): CountingPair {
  return { question, before: read(before), probe: obs({ path: '/x', ...probe }), after: read(before - step) };
}

function record(parts: Partial<DiscoveryRecord>): DiscoveryRecord {
  const base: DiscoveryRecord = {
    tier: 'starter',
    org: 'starter-a',
    windowMs: W,
    figures: { read: recruitingApi.tiers.starter.read, ingest: recruitingApi.tiers.starter.ingest },
    pairs: [],
    exhaustion: [],
    refill: [],
    expiry: [],
    expiryDelayMs: null,
    exhaustedEnd: null,
    expiryEnd: null,
    expiryFollowUps: [],
    expiryAgain: [],
    expirySkipped: null,
    all: [],
    durationMs: 1000,
  };
  const merged = { ...base, ...parts };
  const all: Observation[] = [
    ...merged.pairs.flatMap((p) => [p.before, p.probe, p.after]),
    ...merged.exhaustion,
    ...merged.refill.flatMap((r) => [r.probe, ...r.followUps]),
    ...merged.expiry,
    ...merged.expiryFollowUps,
    ...merged.expiryAgain,
  ];
  return { ...merged, all };
}

const rejected = () => read(0, { status: 429, retryAfter: 2 });

beforeEach(() => resetObservations());

describe('what counts', () => {
  it('reads each answer from the Remaining of the reads around it: two fewer counted it, one fewer did not', () => {
    const profile = inferProfile(record({ pairs: [pair('head', 50, 2, { method: 'HEAD' }), pair('not-found', 40, 1, { status: 404 })] }));
    expect(profile.counts.head.value).toBe(true);
    expect(profile.counts.head.how).toContain('it counted');
    expect(profile.counts['not-found'].value).toBe(false);
    expect(profile.counts.forbidden.value).toBeNull();
    expect(profile.counts.forbidden.how).toBe('no key lacking scopes was available to get a 403');
  });

  it('leaves an answer open when a window boundary (Remaining rose) or missing headers hide it', () => {
    const rolled: CountingPair = { question: 'head', before: read(3), probe: obs({ method: 'HEAD' }), after: read(59) };
    const bare: CountingPair = { question: 'not-found', before: read(null), probe: obs({ status: 404 }), after: read(null) };
    const profile = inferProfile(record({ pairs: [rolled, bare] }));
    expect(profile.counts.head).toMatchObject({ value: null });
    expect(profile.counts.head.how).toContain('a window boundary fell between');
    expect(profile.counts['not-found'].how).toContain('no X-RateLimit-Remaining to compare');
  });

  it('leaves an answer open when the request in question was lost on the way: it may not have reached the server', () => {
    const profile = inferProfile(record({ pairs: [pair('head', 50, 1, { method: 'HEAD', status: null })] }));
    expect(profile.counts.head.value).toBeNull();
    expect(profile.counts.head.how).toContain('lost on the way');
  });

  it('leaves an answer open when the reads around it announce different window ends: a boundary may fall between', () => {
    const straddled: CountingPair = { question: 'head', before: read(59), probe: obs({ method: 'HEAD' }), after: read(58, { reset: T0 + 6 }) };
    const profile = inferProfile(record({ pairs: [straddled] }));
    expect(profile.counts.head.value).toBeNull();
    expect(profile.counts.head.how).toContain('a window boundary may fall between');
  });

  it('answers a question only with the answer in question: a 403 that came back 200 says nothing of 403s', () => {
    const profile = inferProfile(record({ pairs: [pair('forbidden', 50, 2, { status: 200 })] }));
    expect(profile.counts.forbidden.value).toBeNull();
    expect(profile.counts.forbidden.how).toContain('not the 403 in question');
  });

  it('tells one read counter across routes from one per route, and shared classes from separate ones', () => {
    const shared = inferProfile(record({ pairs: [pair('other-route', 50, 2), pair('ingest', 40, 1, { method: 'POST' })] }));
    expect(shared.readSharedAcrossRoutes.value).toBe(true);
    expect(shared.classesIndependent.value).toBe(true);
    const apart = inferProfile(record({ pairs: [pair('other-route', 50, 1, { remaining: 59 }), pair('ingest', 40, 2, { method: 'POST' })] }));
    expect(apart.readSharedAcrossRoutes.value).toBe(false);
    expect(apart.readSharedAcrossRoutes.how).toContain('reads count per route');
    expect(apart.classesIndependent.value).toBe(false);
  });
});

describe('how windows start', () => {
  /**
   * algorithmOf after the expiry read (Remaining 59, sent at 10,000 unless `expiry` says otherwise)
   * and reads after it showing `remaining`, 700 ms apart unless `sentAt` places them.
   */
  function learnedAfterExpiry(
    remaining: readonly number[],
    exhaustedEnd: EndEstimate,
    options: { readonly expiryDelayMs?: number; readonly expiry?: ObsInit; readonly sentAt?: (i: number) => number; readonly noReset?: boolean } = {},
  ) {
    const reset = options.noReset ? { reset: null } : {};
    const expiry = [read(59, { sentAt: 10_000, ...reset, ...options.expiry })];
    const followUps = remaining.map((r, i) => read(r, { sentAt: options.sentAt?.(i) ?? 10_000 + (i + 1) * 700, ...reset }));
    return algorithmOf(record({ exhaustion: [read(1), rejected()], expiry, expiryDelayMs: options.expiryDelayMs ?? 1500, expiryFollowUps: followUps, exhaustedEnd }));
  }

  it('leaves how windows start open, with the reason, where a brief discovery sent no expiry read', () => {
    const learned = algorithmOf(record({ exhaustion: [read(1), rejected()], expirySkipped: 'not asked: the checks waited' }));
    expect(learned).toMatchObject({ value: null, how: 'not asked: the checks waited' });
  });

  it('refilling: admitted soon after the 429, and refused again right after', () => {
    const r = record({ exhaustion: [read(1), rejected()], refill: [{ probe: read(0), followUps: [rejected()] }] });
    const learned = algorithmOf(r);
    expect(learned.value).toBe('refilling');
    expect(learned.how).toContain('quota comes back a little at a time');
  });

  it('on a refilling limiter, an unchanged Remaining proves nothing: only "it counted" stands', () => {
    const profile = inferProfile(
      record({
        pairs: [pair('head', 50, 1, { method: 'HEAD' }), pair('not-found', 40, 2, { status: 404 })],
        exhaustion: [read(1), rejected()],
        refill: [{ probe: read(0), followUps: [rejected()] }],
      }),
    );
    expect(profile.counts.head.value).toBeNull();
    expect(profile.counts.head.how).toContain('proves nothing');
    expect(profile.counts['not-found'].value).toBe(true);
  });

  it('first request: Remaining one lower at every read over nearly a window after the one that opened it', () => {
    // The used-up window ended 1.5 to 1.7 s before the read: aligned windows would roll over 1.3 to 1.5 s after it.
    expect(learnedAfterExpiry([58, 57, 56, 55], { earliest: 8_300, latest: 8_500 }).value).toBe('fixed-first-request');
  });

  it('first request across a read lost on the way: Remaining one more lower where it may have counted, and only there', () => {
    const exhaustedEnd = { earliest: 8_300, latest: 8_500 };
    const expiry = [read(59, { sentAt: 10_000 })];
    // The second follow-up fell 2 below the first: the read sent between them got no answer.
    const followUps = [58, 56, 55, 54].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const lost = obs({ status: null, sentAt: 11_000 });
    const base = record({ exhaustion: [read(1), rejected()], expiry, expiryDelayMs: 1500, expiryFollowUps: followUps, exhaustedEnd });
    expect(algorithmOf({ ...base, all: [...base.all, lost] }).value).toBe('fixed-first-request');
    // Without a lost request between them, a step of two is other traffic: nothing is concluded.
    expect(algorithmOf(base).value).toBeNull();
  });

  it('a read lost after the refill probe is no refusal: it does not make a fixed window a bucket', () => {
    const lost = obs({ status: null });
    expect(algorithmOf(record({ exhaustion: [read(1), rejected()], refill: [{ probe: read(0), followUps: [lost] }] })).value).not.toBe('refilling');
  });

  it('not first request on the same reads when the previous end is too coarse to rule out an aligned window that began just before them', () => {
    // Ended 1.5 to 3.5 s before the read (a countdown read either way): an aligned boundary may lie 0 to 200 ms before it.
    expect(learnedAfterExpiry([58, 57, 56, 55], { earliest: 6_500, latest: 8_500 }, { noReset: true }).value).toBeNull();
  });

  it('not first request when the reads span less than a window past the latest previous end: the aligned window that began there holds them all', () => {
    // Slow round trips (260 ms) kept the reads to 1.4 s; the previous end may lie at 8,150, a window before 11,150.
    const learned = learnedAfterExpiry([58, 57, 56, 55], { earliest: 8_000, latest: 8_150 }, {
      expiry: { sentAt: 9_600, headersAt: 9_860 },
      sentAt: (i) => 9_950 + i * 350,
      expiryDelayMs: 1450,
      noReset: true,
    });
    expect(learned.value).toBeNull();
  });

  it('not first request when a countdown rounded down could put the previous end within a window before the last read', () => {
    // Announced to end by 9,600; rounded down, it may end as late as 9,900 (a tenth of the 3 s window), past 12,800 less a window.
    expect(learnedAfterExpiry([58, 57, 56, 55], { earliest: 9_400, latest: 9_600 }, { expiryDelayMs: 400, noReset: true }).value).toBeNull();
  });

  it('a second round half a window later tells when the first could not: Remaining back up is aligned, all in one window again is first request', () => {
    // The first round: a read at 10,000 and reads over 2.8 s, counting down: fits an aligned window that began just before it.
    const expiry = [read(59, { sentAt: 10_000 })];
    const followUps = [58, 57, 56, 55].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const base = { exhaustion: [read(1), rejected()], expiry, expiryDelayMs: 6500, expiryFollowUps: followUps, exhaustedEnd: { earliest: 3_500, latest: 8_500 } };
    expect(algorithmOf(record(base)).value).toBeNull();
    // Half a window past its end: aligned boundaries (near 13,000 and 16,000) fall among these reads.
    const rolled = [59, 58, 59, 58, 57].map((r, i) => read(r, { sentAt: 14_500 + i * 700 }));
    const aligned = algorithmOf(record({ ...base, expiryAgain: rolled }));
    expect(aligned.value).toBe('fixed-aligned');
    expect(aligned.how).toContain('back up 1400 ms after its first');
    const countedDown = [59, 58, 57, 56, 55].map((r, i) => read(r, { sentAt: 14_500 + i * 700 }));
    expect(algorithmOf(record({ ...base, expiryAgain: countedDown })).value).toBe('fixed-first-request');
    // A second round that starts where the first's grid can put a boundary just before it tells nothing.
    const onTheGrid = [59, 58, 57, 56, 55].map((r, i) => read(r, { sentAt: 16_000 + i * 700 }));
    expect(algorithmOf(record({ ...base, expiryAgain: onTheGrid })).value).toBeNull();
  });

  it('a Remaining that stays put tells neither: it does not count', () => {
    const learned = learnedAfterExpiry([59, 59, 59, 59], { earliest: 8_300, latest: 8_500 });
    expect(learned.value).toBeNull();
    expect(learned.how).toContain('does not show what counts');
  });

  it('first request with starts kept to the whole second: back up within a second of a full window, where no aligned boundary falls', () => {
    // Aligned boundaries would fall at 11.3–11.8 s; the window the read at 10 s opened, started at its whole second, ends at 12–13 s.
    const kept = learnedAfterExpiry([58, 57, 56, 59], { earliest: 8_300, latest: 8_500 });
    expect(kept.value).toBe('fixed-first-request');
    expect(kept.how).toContain('its start kept to the whole second');
    // A previous end known only to a second lets an aligned boundary fall there too: open.
    const both = learnedAfterExpiry([58, 57, 56, 59], { earliest: 8_300, latest: 9_300 });
    expect(both.value).toBeNull();
    expect(both.how).toContain('both fit there');
  });

  it('a second round after a boundary that fit either kind: on the grid it allows is aligned, at the end of a window its first read opened is first request', () => {
    // First round: back up between 12,100 and 12,800, where the grid (previous end known to a second) and a whole-second window both fit.
    const exhaustedEnd = { earliest: 8_300, latest: 9_300 };
    const expiry = [read(59, { sentAt: 10_000 })];
    const followUps = [58, 57, 56, 59].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const base = { exhaustion: [read(1), rejected()], expiry, expiryDelayMs: 1500, expiryFollowUps: followUps, exhaustedEnd };
    expect(algorithmOf(record(base)).value).toBeNull();
    const first = firstRound(expiry[0]!, followUps, record(base));
    expect(secondRoundAt(first, expiry[0]!, followUps.at(-1)!, W)).toBe(17_950);
    // The second round from 17,950 (a window after the last read, 150 ms before the grid's 18,100): back up
    // 700 ms after its first read is on the grid; 2,100 ms after is where a window it opened ends, off the grid.
    const round = (values: readonly number[]) => values.map((r, i) => read(r, { sentAt: 17_950 + i * 700 }));
    expect(algorithmOf(record({ ...base, expiryAgain: round([59, 59, 58, 57]) })).value).toBe('fixed-aligned');
    expect(algorithmOf(record({ ...base, expiryAgain: round([59, 58, 57, 59]) })).value).toBe('fixed-first-request');
    // A first read that found its window already counting tests nothing.
    expect(algorithmOf(record({ ...base, expiryAgain: round([57, 59, 58, 57]) })).value).toBeNull();
  });

  it('clock-aligned: Remaining back up among the reads, before a full window had passed', () => {
    const expiry = [read(59, { sentAt: 10_000 })];
    const followUps = [58, 59, 58, 57].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const learned = algorithmOf(record({ exhaustion: [read(1), rejected()], expiry, expiryDelayMs: 1500, expiryFollowUps: followUps }));
    expect(learned.value).toBe('fixed-aligned');
    expect(learned.how).toContain('back up 1400 ms after it');
  });

  it('without Remaining: where the window the expiry read opened ends, by the Retry-After of the 429 after it', () => {
    const bare = { limit: null, remaining: null, reset: null } as const;
    const opened = obs({ ...bare, sentAt: 10_000 });
    // The used-up window ended (by its Retry-After, to a second) at most 1.5 s before the read.
    const ended = { earliest: 7_500, latest: 8_500 };
    // First request: the 429 right after says wait a full window.
    const full = obs({ ...bare, status: 429, retryAfter: 3, sentAt: 10_050 });
    expect(algorithmOf(record({ exhaustion: [rejected()], expiry: [opened, full], expiryDelayMs: 1500, exhaustedEnd: ended })).value).toBe('fixed-first-request');
    // Aligned: only what is left of a window that began half a window earlier.
    const half = obs({ ...bare, status: 429, retryAfter: 2, sentAt: 10_050 });
    expect(algorithmOf(record({ exhaustion: [rejected()], expiry: [opened, half], expiryDelayMs: 1500, exhaustedEnd: ended })).value).toBe('fixed-aligned');
    // Too coarse to tell (a 1 s window, whole seconds): open.
    expect(algorithmOf(record({ windowMs: 1000, exhaustion: [rejected()], expiry: [opened, obs({ ...bare, status: 429, retryAfter: 1, sentAt: 10_050 })], expiryDelayMs: 500, exhaustedEnd: { earliest: 9000, latest: 9500 } })).value).toBeNull();
  });

  it('stays open when the quota was never shown used up', () => {
    const learned = algorithmOf(record({ exhaustion: [read(5), read(4)] }));
    expect(learned.value).toBeNull();
    expect(learned.how).toContain('no 429 within 2 reads');
  });
});

describe('Reset and headers', () => {
  it('finds the Reset format, and whether it holds still over at least a second of one window', () => {
    // Reads 600 ms apart from the server's T0 + 2, in a window announced to end at T0 + 5.
    const spaced = (remaining: number, i: number, init: ObsInit = {}) => read(remaining, { phase: 'exhaust', sentAt: 1_000 + i * 600, reset: T0 + 5, ...init });
    const steady = inferProfile(record({ exhaustion: [spaced(3, 0), spaced(2, 1), spaced(1, 2)] }));
    expect(steady.read.resetFormat.value).toBe('epoch-seconds');
    expect(steady.read.resetSteady.value).toBe(true);
    // Too short a span cannot rule out a Reset that moves once a second.
    const brief = inferProfile(record({ exhaustion: [read(3, { phase: 'exhaust' }), read(2, { phase: 'exhaust' })] }));
    expect(brief.read.resetSteady.value).toBeNull();
    const drifting = inferProfile(record({ exhaustion: [spaced(3, 0), spaced(2, 1, { reset: T0 + 6 }), spaced(1, 2, { reset: T0 + 6 })] }));
    expect(drifting.read.resetSteady.value).toBe(false);
    expect(drifting.read.resetSteady.how).toContain('it moves within a window');
    // Refusals of one window: the quota stayed used up, yet Reset moved.
    const refusals = inferProfile(record({ exhaustion: [spaced(1, 0), spaced(0, 1, { status: 429 })], refill: [{ probe: read(0, { status: 429, phase: 'refill', sentAt: 2_500, reset: T0 + 6 }), followUps: [] }] }));
    expect(refusals.read.resetSteady.how).toContain('while the quota stayed used up');
    // A Reset that changes once the end it announced may have come is a boundary, not a move (a
    // window that had counted one request shows no Remaining back up).
    const boundary = inferProfile(record({ exhaustion: [spaced(3, 0, { reset: T0 + 3 }), spaced(2, 1, { reset: T0 + 6 }), spaced(1, 2, { reset: T0 + 6 }), spaced(0, 3, { reset: T0 + 6 })] }));
    expect(boundary.read.resetSteady.value).not.toBe(false);
    const countdown = inferProfile(record({ exhaustion: [read(3, { reset: 3 }), read(2, { reset: 3 })] }));
    expect(countdown.read.resetFormat.value).toBe('seconds-until');
    const millis = inferProfile(record({ exhaustion: [read(3, { reset: (T0 + 3) * 1000 })] }));
    expect(millis.read.resetFormat.value).toBe('epoch-millis');
  });

  it('says when no response carries the rate-limit headers', () => {
    const profile = inferProfile(record({ exhaustion: [read(null, { limit: null, reset: null }), read(null, { limit: null, reset: null })] }));
    expect(profile.headers.value).toBe(false);
    expect(profile.read.resetFormat.value).toBe('absent');
    expect(profile.read.limit).toBeNull();
  });
});

describe('where boundaries fall', () => {
  it('learns the phase of clock-aligned windows from the used-up window\'s end, with its doubt', () => {
    const r = rejected();
    // The end, on our monotonic clock, that is 250 ms past a 3 s multiple on the server's clock.
    const endServerMs = Math.ceil((r.sentWall + 1000) / W) * W + 250;
    const mono = r.sentAt + (endServerMs - r.sentWall);
    const profile = inferProfile(record({ exhaustion: [read(1), r], exhaustedEnd: { earliest: mono - 100, latest: mono + 100 } }));
    expect(profile.read.phase.value).toEqual({ ms: 250, doubtMs: 100, clockOffsetMs: 0 });
    expect(inferProfile(record({ exhaustion: [read(1), read(0)] })).read.phase.value).toBeNull();
  });
});
