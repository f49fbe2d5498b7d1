/**
 * Limiter-profile inference on recorded discoveries: what counts, whether Reset holds still, where
 * boundaries fall, told from the server's answers alone, and left open (with the reason) where they
 * cannot tell. How windows start: window-algorithm.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CountingPair } from '../../src/profile/record.ts';
import { inferProfile } from '../../src/profile/infer.ts';
import { T0, obs, resetObservations, type ObsInit } from '../helpers/observations.ts';
import { W, pair, read, record, rejected } from '../helpers/discovery-records.ts';

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
    // A second apart may be rounding (an end just before a whole second, announced as either
    // second) or a Reset that moves each second: left open, never taken as a move.
    const rounded = inferProfile(record({ exhaustion: [spaced(3, 0), spaced(2, 1, { reset: T0 + 6 }), spaced(1, 2)] }));
    expect(rounded.read.resetSteady.value).toBeNull();
    expect(rounded.read.resetSteady.how).toContain('cannot tell apart');
    const drifting = inferProfile(record({ exhaustion: [spaced(3, 0), spaced(2, 1, { reset: T0 + 6 }), spaced(1, 2, { reset: T0 + 7 })] }));
    expect(drifting.read.resetSteady.value).toBe(false);
    expect(drifting.read.resetSteady.how).toContain('it moves within a window');
    // Refusals of one window: the quota stayed used up, yet Reset moved.
    const refusals = inferProfile(record({ exhaustion: [spaced(1, 0), spaced(0, 1, { status: 429 })], refill: [{ probe: read(0, { status: 429, phase: 'refill', sentAt: 2_500, reset: T0 + 7 }), followUps: [] }] }));
    expect(refusals.read.resetSteady.how).toContain('while the quota stayed used up');
    // A 429 (one early, in a batch), the window turning, and the exhaustion reading the next window to
    // its own 429: the two refusals lie in two windows, not one whose Reset moved.
    const twoWindows = inferProfile(record({
      exhaustion: [spaced(1, 0), spaced(0, 1, { status: 429 }), spaced(59, 2, { reset: T0 + 8 }), spaced(58, 3, { reset: T0 + 8 }), spaced(0, 4, { status: 429, reset: T0 + 8 })],
      refill: [{ probe: read(0, { status: 429, phase: 'refill', sentAt: 4_000, reset: T0 + 8 }), followUps: [] }],
    }));
    expect(twoWindows.read.resetSteady.value).not.toBe(false);
    // A Reset that changes once the end it announced may have come is a boundary, not a move (a
    // window that had counted one request shows no Remaining back up).
    const boundary = inferProfile(record({ exhaustion: [spaced(3, 0, { reset: T0 + 3 }), spaced(2, 1, { reset: T0 + 6 }), spaced(1, 2, { reset: T0 + 6 }), spaced(0, 3, { reset: T0 + 6 })] }));
    expect(boundary.read.resetSteady.value).not.toBe(false);
    // Two reads sent together across a boundary, the one handled after it answered first: the order
    // between them is unknown, so each is compared with what was answered before it was sent.
    const together = (remaining: number, reset: number, latencyMs: number) => read(remaining, { phase: 'exhaust', sentAt: 3_990, latencyMs, reset });
    const straddling = inferProfile(record({ exhaustion: [spaced(3, 0), spaced(2, 1), spaced(1, 2), together(59, T0 + 8, 8), together(0, T0 + 5, 15)] }));
    expect(straddling.read.resetSteady.value).toBe(true);
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
