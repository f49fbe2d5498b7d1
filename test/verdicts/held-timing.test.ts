/**
 * Where a fast request fell among slow ones held before it (verdicts/support/held-timing.ts): the
 * figures r and L from the run's own answers, the three inequalities, and the margin a measurement
 * plans from them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  extraSendAt,
  holdMarginMs,
  placeAgainst,
  serviceFigures,
  tooFastToHold,
} from '../../src/verdicts/support/held-timing.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

beforeEach(() => resetObservations());

const upload = (sentAt: number, latencyMs: number, status: number | null = 200) =>
  obs({ method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', sentAt, latencyMs, status });
const read = (sentAt: number, latencyMs: number, status = 200) => obs({ sentAt, latencyMs, status });

describe('serviceFigures', () => {
  it('r is the slowest answered fast read, L the fastest admitted upload, S = L − r', () => {
    const figures = serviceFigures(
      [read(0, 1), read(2, 3), read(6, 2), read(9, 50, 429), obs({ status: null })],
      [upload(10, 210), upload(10, 205), upload(10, 5, 429)],
    );
    // A refused read is a round trip too; a refused upload took no upload's time.
    expect(figures).toEqual({ roundTripMs: 50, fastestUploadMs: 205, serviceMs: 155 });
  });

  it('is null without an answered read or an admitted upload', () => {
    expect(serviceFigures([], [upload(0, 200)])).toBeNull();
    expect(serviceFigures([read(0, 1)], [upload(0, 5, 429)])).toBeNull();
  });
});

describe('placeAgainst', () => {
  const figures = { roundTripMs: 2, fastestUploadMs: 200, serviceMs: 198 };
  const held = () => [upload(0, 200), upload(0, 201), upload(20, 200)];

  it('every held one in service before x, x on the server before any answer, and answered while they were all in service', () => {
    const h = held();
    const placed = placeAgainst(read(40, 2), h, figures);
    expect(placed.inService).toEqual({ ok: true, latestAnswerAfterSendMs: 180, latest: h[2] });
    expect(placed.arrived).toEqual({ ok: true, sentBeforeFirstAnswerMs: 160, first: h[0] });
    expect(placed.answeredWhileHeld).toEqual({ ok: true, answeredBeforeFirstMs: 158 });
  });

  it('too early: a held one answered S or more after x was sent may not have been in service', () => {
    const placed = placeAgainst(read(21, 2), held(), figures);
    expect([placed.inService.ok, placed.inService.latestAnswerAfterSendMs]).toEqual([false, 199]);
  });

  it('too late: x sent no more than 2r before the first answer may have found a slot free', () => {
    const placed = placeAgainst(read(197, 2), held(), figures);
    expect([placed.arrived.ok, placed.arrived.sentBeforeFirstAnswerMs]).toEqual([false, 3]);
  });

  it('answered not more than r before the first held answer: not shown answered while they were all in service', () => {
    const placed = placeAgainst(read(40, 159), held(), figures);
    expect(placed.answeredWhileHeld).toEqual({ ok: false, answeredBeforeFirstMs: 1 });
  });

  it('nothing held: every part holds', () => {
    const placed = placeAgainst(read(0, 2), [], figures);
    expect([placed.inService.ok, placed.arrived.ok, placed.answeredWhileHeld.ok]).toEqual([true, true, true]);
  });
});

describe('the margin a measurement plans', () => {
  it('before any upload was seen: ten round trips, at least 20 ms', () => {
    expect(holdMarginMs(1, null)).toBe(20);
    expect(holdMarginMs(5, null)).toBe(50);
  });

  it('from the fastest upload: a third of what four round trips leave of it, never under two round trips', () => {
    expect(holdMarginMs(2, 200)).toBe(64);
    expect(holdMarginMs(10, 60)).toBe(20);
  });

  it('uploads too fast to hold anything among: L under 10r', () => {
    expect(tooFastToHold(10, 99)).toBe(true);
    expect(tooFastToHold(10, 100)).toBe(false);
  });

  describe('when the extra goes', () => {
    // r 5 ms, L 50 ms: the margin is 10 ms; the control leaves at 10, is answered by 15, the last upload leaves at 20.
    const figures = { roundTripMs: 5, fastestUploadMs: 50, serviceMs: 45 };
    const placed = (at: number, lastAt: number) =>
      placeAgainst(read(at, 5), [upload(0, 50), upload(lastAt, 50)], figures);
    it('on time: a margin after the last upload', () => {
      expect(extraSendAt({ heldAt: 0, lastAt: 20 }, 5, 50)).toBe(30);
      // r 2 ms, L 200 ms: a margin of 64 ms after the last upload (sent at 68), as planned.
      expect(extraSendAt({ heldAt: 0, lastAt: 68 }, 2, 200)).toBe(132);
    });
    it('after timers fired 12 ms late: placed from when the uploads really left, where the planned margin would not be', () => {
      const at = extraSendAt({ heldAt: 0, lastAt: 32 }, 5, 50);
      // A third of the way from in service (37) to 2r before the first answer (40).
      expect(at).toBe(38);
      expect([placed(at, 32).inService.ok, placed(at, 32).arrived.ok]).toEqual([true, true]);
      // A margin after the last upload would be 8 ms before the first held answer, not more than 2r.
      expect(placed(32 + 10, 32).arrived.ok).toBe(false);
    });
    it('late by less: a margin before two round trips ahead of the first answer', () => {
      // r 2 ms, L 200 ms, the last upload 30 ms late (at 98): at 132, not 162.
      expect(extraSendAt({ heldAt: 0, lastAt: 98 }, 2, 200)).toBe(132);
    });
    it('already past the place (the answers too near): as soon as the last upload is in service', () => {
      expect(extraSendAt({ heldAt: 0, lastAt: 40 }, 5, 50)).toBe(45);
    });
    it('before any upload was seen: the first margin after the last upload', () => {
      expect(extraSendAt({ heldAt: 0, lastAt: 20 }, 5, null)).toBe(70);
    });
  });
});
