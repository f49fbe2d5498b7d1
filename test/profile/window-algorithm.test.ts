/**
 * How windows start, inferred from recorded discoveries (profile/window-algorithm.ts): refilling,
 * aligned to the clock, or from the first request (to the millisecond or kept to the whole second),
 * and left open (with the reason) where the reads cannot tell.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { algorithmOf, firstRound, secondRoundAt } from '../../src/profile/window-algorithm.ts';
import { UNMEASURED, networkMargins } from '../../src/measure/network.ts';
import type { EndEstimate } from '../../src/measure/reset-format.ts';
import { T0, obs, resetObservations, type ObsInit } from '../helpers/observations.ts';
import { W, read, record, rejected, rejectedBefore } from '../helpers/discovery-records.ts';

beforeEach(() => resetObservations());

describe('how windows start', () => {
  /**
   * algorithmOf after the expiry read (Remaining 59, sent at 10,000 unless `expiry` says otherwise)
   * and reads after it showing `remaining`, 700 ms apart unless `sentAt` places them.
   */
  function learnedAfterExpiry(
    remaining: readonly number[],
    exhaustedEnd: EndEstimate,
    options: {
      readonly expiryDelayMs?: number;
      readonly expiry?: ObsInit;
      readonly sentAt?: (i: number) => number;
      readonly noReset?: boolean;
    } = {},
  ) {
    const reset = options.noReset ? { reset: null } : {};
    const expiry = [read(59, { sentAt: 10_000, ...reset, ...options.expiry })];
    const followUps = remaining.map((r, i) =>
      read(r, { sentAt: options.sentAt?.(i) ?? 10_000 + (i + 1) * 700, ...reset }),
    );
    return algorithmOf(
      record({
        exhaustion: [read(1), rejectedBefore(exhaustedEnd)],
        expiry,
        expiryDelayMs: options.expiryDelayMs ?? 1500,
        expiryFollowUps: followUps,
        exhaustedEnd,
      }),
    );
  }

  it('leaves how windows start open, with the reason, where a brief discovery sent no expiry read', () => {
    const learned = algorithmOf(
      record({ exhaustion: [read(1), rejected()], expirySkipped: 'not asked: the checks waited' }),
    );
    expect(learned).toMatchObject({ value: null, how: 'not asked: the checks waited' });
  });

  it('refilling: admitted soon after the 429, and refused again right after', () => {
    const r = record({ exhaustion: [read(1), rejected()], refill: [{ probe: read(0), followUps: [rejected()] }] });
    const learned = algorithmOf(r);
    expect(learned.value).toBe('refilling');
    expect(learned.how).toContain('quota comes back a little at a time');
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
    const base = record({
      exhaustion: [read(1), rejectedBefore(exhaustedEnd)],
      expiry,
      expiryDelayMs: 1500,
      expiryFollowUps: followUps,
      exhaustedEnd,
    });
    expect(algorithmOf({ ...base, all: [...base.all, lost] }).value).toBe('fixed-first-request');
    // Without a lost request between them, a step of two is other traffic: nothing is concluded.
    expect(algorithmOf(base).value).toBeNull();
  });

  it('a read refused with quota left after the refill probe (a concurrency cap) does not make a fixed window a bucket', () => {
    const capped = read(40, { status: 429 });
    const learned = algorithmOf(
      record({ exhaustion: [read(1), rejected()], refill: [{ probe: read(0), followUps: [read(41), capped] }] }),
    );
    expect(learned.value).toBeNull();
    expect(learned.how).toContain(
      'the 2. read right after it got 429 with Remaining 40: refused, but not for its quota',
    );
    expect(learned.evidence).toContain(capped.id);
  });

  it('a read lost after the refill probe is no refusal: it does not make a fixed window a bucket', () => {
    const lost = obs({ status: null });
    expect(
      algorithmOf(record({ exhaustion: [read(1), rejected()], refill: [{ probe: read(0), followUps: [lost] }] })).value,
    ).not.toBe('refilling');
  });

  it('not first request on the same reads when the previous end is too coarse to rule out an aligned window that began just before them', () => {
    // Ended 1.5 to 3.5 s before the read (a countdown read either way): an aligned boundary may lie 0 to 200 ms before it.
    expect(
      learnedAfterExpiry([58, 57, 56, 55], { earliest: 6_500, latest: 8_500 }, { noReset: true }).value,
    ).toBeNull();
  });

  it('not first request when the reads span less than a window past the latest previous end: the aligned window that began there holds them all', () => {
    // Slow round trips (260 ms) kept the reads to 1.4 s; the previous end may lie at 8,150, a window before 11,150.
    const learned = learnedAfterExpiry(
      [58, 57, 56, 55],
      { earliest: 8_000, latest: 8_150 },
      {
        expiry: { sentAt: 9_600, headersAt: 9_860 },
        sentAt: (i) => 9_950 + i * 350,
        expiryDelayMs: 1450,
        noReset: true,
      },
    );
    expect(learned.value).toBeNull();
  });

  it('not first request when a countdown rounded down could put the previous end within a window before the last read', () => {
    // Announced to end by 9,600; rounded down, it may end as late as 9,900 (a tenth of the 3 s window), past 12,800 less a window.
    expect(
      learnedAfterExpiry([58, 57, 56, 55], { earliest: 9_400, latest: 9_600 }, { expiryDelayMs: 400, noReset: true })
        .value,
    ).toBeNull();
  });

  it('a second round half a window later tells when the first could not: Remaining back up is aligned, all in one window again is first request', () => {
    // The first round: a read at 10,000 and reads over 2.8 s, counting down: fits an aligned window that began just before it.
    const expiry = [read(59, { sentAt: 10_000 })];
    const followUps = [58, 57, 56, 55].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const exhaustedEnd = { earliest: 3_500, latest: 8_500 };
    const base = {
      exhaustion: [read(1), rejectedBefore(exhaustedEnd)],
      expiry,
      expiryDelayMs: 6500,
      expiryFollowUps: followUps,
      exhaustedEnd,
    };
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

  it("an end the 429's Reset and Retry-After disagree on: decided only where the reads say the same from both", () => {
    // The reads of the test before, after a 429 whose Retry-After ends the used-up window 0 to 1 s
    // after it (5.3 to 6.6 s, rounding allowed for), where its Reset (a full window on, held still over
    // an exhaustion under a second) put it at 8.3 to 8.5 s. From the Reset's end: first request; from
    // the Retry-After's: aligned boundaries fall at 8.3 to 9.6 s, and 12.1 to 12.8 s is whole windows
    // after them too.
    const exhaustedEnd = { earliest: 8_300, latest: 8_500 };
    const followUps = [58, 57, 56, 59].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const learned = (exhaustion: ReturnType<typeof read>[], resetHeldStill = false) =>
      algorithmOf(
        record({
          exhaustion,
          expiry: [read(59, { sentAt: 10_000 })],
          expiryDelayMs: 1500,
          expiryFollowUps: followUps,
          exhaustedEnd,
        }),
        0,
        resetHeldStill,
      );
    const drifted = learned([read(1), rejected({ sentAt: 5_300, retryAfter: 1 })]);
    expect(drifted.value).toBeNull();
    // Where the discovery saw Reset hold still within windows, it does not drift: the Retry-After is
    // what is wrong (a Retry-After too short), and the end stands as Reset said.
    expect(learned([read(1), rejected({ sentAt: 5_300, retryAfter: 1 })], true).value).toBe('fixed-first-request');
    expect(drifted.how).toContain("the 429's Reset put the used-up window's end 3000 to 3200 ms after it");
    expect(drifted.how).toContain('from the one the reads say fixed-first-request, from the other nothing');
    // The same reads after a 429 whose Retry-After agrees: the end stands, and the window is the read's.
    expect(learned([read(1), rejectedBefore(exhaustedEnd)]).value).toBe('fixed-first-request');
    // A Retry-After rounded otherwise than up may end the window up to a tenth of a window (at most a
    // second) later than it says: one that says 1 s at 6.95 s still agrees with the same Reset.
    expect(learned([read(1), rejected({ sentAt: 6_950, retryAfter: 1 })]).value).toBe('fixed-first-request');
  });

  it('a second round after a boundary that fit either kind: on the grid it allows is aligned, at the end of a window its first read opened is first request', () => {
    // First round: back up between 12,100 and 12,800, where the grid (previous end known to a second) and a whole-second window both fit.
    const exhaustedEnd = { earliest: 8_300, latest: 9_300 };
    const expiry = [read(59, { sentAt: 10_000 })];
    const followUps = [58, 57, 56, 59].map((r, i) => read(r, { sentAt: 10_000 + (i + 1) * 700 }));
    const base = {
      exhaustion: [read(1), rejectedBefore(exhaustedEnd)],
      expiry,
      expiryDelayMs: 1500,
      expiryFollowUps: followUps,
      exhaustedEnd,
    };
    expect(algorithmOf(record(base)).value).toBeNull();
    const first = firstRound(expiry[0]!, followUps, record(base));
    expect(secondRoundAt(first, expiry[0]!, W, networkMargins(UNMEASURED).beforeBoundaryMs)).toBe(17_950);
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
    const learned = algorithmOf(
      record({ exhaustion: [read(1), rejected()], expiry, expiryDelayMs: 1500, expiryFollowUps: followUps }),
    );
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
    expect(
      algorithmOf(
        record({
          exhaustion: [rejectedBefore(ended)],
          expiry: [opened, full],
          expiryDelayMs: 1500,
          exhaustedEnd: ended,
        }),
      ).value,
    ).toBe('fixed-first-request');
    // Aligned: only what is left of a window that began half a window earlier.
    const half = obs({ ...bare, status: 429, retryAfter: 2, sentAt: 10_050 });
    expect(
      algorithmOf(
        record({
          exhaustion: [rejectedBefore(ended)],
          expiry: [opened, half],
          expiryDelayMs: 1500,
          exhaustedEnd: ended,
        }),
      ).value,
    ).toBe('fixed-aligned');
    // Too coarse to tell (a 1 s window, whole seconds): open.
    expect(
      algorithmOf(
        record({
          windowMs: 1000,
          exhaustion: [rejected({ sentAt: 8_500, retryAfter: 1 })],
          expiry: [opened, obs({ ...bare, status: 429, retryAfter: 1, sentAt: 10_050 })],
          expiryDelayMs: 500,
          exhaustedEnd: { earliest: 9000, latest: 9500 },
        }),
      ).value,
    ).toBeNull();
  });

  it('with a Reset seen moving within a window: the window the expiry read opened ends where the Retry-After after it says, not its Reset', () => {
    // Remaining counted down while Reset moved on: it says nothing of where a window ends.
    const drifting = [
      read(3, { sentAt: 5_000, reset: T0 + 9 }),
      read(2, { sentAt: 5_600, reset: T0 + 11 }),
      read(0, { status: 429, retryAfter: 2, sentAt: 6_200, reset: T0 + 11 }),
    ];
    const opened = obs({ limit: 60, remaining: null, reset: T0 + 14, sentAt: 10_000 });
    const ended = { earliest: 7_500, latest: 8_500 };
    // Its Reset says more than a window from the 429, its Retry-After only what is left of an aligned one.
    const half = obs({ limit: 60, remaining: 0, status: 429, reset: T0 + 15, retryAfter: 2, sentAt: 10_050 });
    expect(
      algorithmOf(record({ exhaustion: drifting, expiry: [opened, half], expiryDelayMs: 1500, exhaustedEnd: ended }))
        .value,
    ).toBe('fixed-aligned');
  });

  it('stays open when the quota was never shown used up', () => {
    const learned = algorithmOf(record({ exhaustion: [read(5), read(4)] }));
    expect(learned.value).toBeNull();
    expect(learned.how).toContain('no 429 within 2 reads');
  });
});
