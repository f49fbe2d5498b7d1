/**
 * Where a fast request fell among slow ones held before it (verdicts/support/held-timing.ts): the
 * figures from the run's own answers, the three inequalities (and that they hold for any split of a
 * round trip into its two ways), and the plan a measurement places its requests by.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  extraSendAt,
  figuresText,
  heldInService,
  holdFigures,
  holdSpanMs,
  inequalityText,
  placeAgainst,
  planHold,
  tooFastToHold,
} from '../../src/verdicts/support/held-timing.ts';
import { heldUploadFigures } from '../../src/measure/network.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

beforeEach(() => resetObservations());

const upload = (sentAt: number, latencyMs: number, status: number | null = 200) =>
  obs({ method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis', sentAt, latencyMs, status });
const read = (sentAt: number, latencyMs: number, status = 200) => obs({ sentAt, latencyMs, status });

describe('holdFigures', () => {
  it('m and M from the answered fast reads, σ their spread, λ the timed sends, L the fastest admitted upload', () => {
    const uploads = [upload(10, 210), upload(10, 205), upload(10, 5, 429)];
    // The timers of the timed sends fired 0.5 and 2 ms late; a send without one counts nothing.
    const timed = [obs({ sentAt: 20, intendedAt: 19.5 }), obs({ sentAt: 30, intendedAt: 28 }), obs({ sentAt: 40 })];
    const figures = holdFigures(
      [read(0, 1), read(2, 3), read(6, 2), read(9, 50, 429), obs({ status: null })],
      uploads,
      timed,
    );
    // A refused read is a round trip too; a refused upload took no upload's time.
    expect(figures).toMatchObject({
      reads: 4,
      fastestTripMs: 1,
      slowestTripMs: 50,
      strayMs: 49,
      readLateMs: 2,
      fastestUploadMs: 205,
      arrivedAfterMs: 49,
      arrivedBeforeAnswerMs: 1 + 2 * 49 + 2,
      answeredBeforeMs: 49 + 2,
    });
  });

  it('is null without an answered read or an admitted upload', () => {
    expect(holdFigures([], [upload(0, 200)], [])).toBeNull();
    expect(holdFigures([read(0, 1)], [upload(0, 5, 429)], [])).toBeNull();
  });
});

describe('the proof in words', () => {
  it('states the figures, then each inequality with its gap and bound, from the same figures', () => {
    const figures = { ...heldUploadFigures([1, 1, 1, 1], 0)!, fastestUploadMs: 200 };
    expect(figuresText(figures)).toBe(
      'figures: m = 1 ms and M = 1 ms, the fastest and slowest round trip of 4 fast reads; σ = 1 ms, their spread M − m (at least 1 ms), the most either way of a request strays; λ = 0 ms, how late an answer may be read; L = 200 ms, the fastest upload. Every inequality holds for any split of a round trip into its two ways',
    );
    expect(inequalityText('extra', { name: 'held-arrived-first', ok: true, gapMs: 40, boundMs: 1 })).toBe(
      '(A) every held upload reached the server before the extra: sent(extra) − sent(last held) = 40 ms > σ = 1 ms',
    );
    expect(inequalityText('control', { name: 'arrived-before-answers', ok: false, gapMs: 2, boundMs: 3 })).toBe(
      '(B) the control reached the server before any held answer left it: answered(first held) − sent(control) = 2 ms, not more than m + 2σ + λ = 3 ms',
    );
  });
});

describe('placeAgainst', () => {
  // m 1 ms, M 2 ms: σ 1 ms; λ 0. (A) more than 1 ms, (B) more than 3 ms, (C) more than 1 ms.
  const figures = heldUploadFigures([1, 2], 0)!;
  const held = () => [upload(0, 200), upload(0, 201), upload(20, 200)];

  it('every held one reached the server first, x reached it before any answer left, and its answer left first', () => {
    const h = held();
    const placed = placeAgainst(read(40, 2), h, figures);
    expect(placed.heldArrivedFirst).toEqual({
      name: 'held-arrived-first',
      ok: true,
      gapMs: 20,
      boundMs: 1,
      last: h[2],
    });
    expect(placed.arrivedBeforeAnswers).toEqual({
      name: 'arrived-before-answers',
      ok: true,
      gapMs: 160,
      boundMs: 3,
      first: h[0],
    });
    expect(placed.answeredWhileHeld).toEqual({ name: 'answered-while-held', ok: true, gapMs: 158, boundMs: 1 });
  });

  it('too early: x sent no more than σ after the last held upload may have reached the server first', () => {
    const placed = placeAgainst(read(20.5, 2), held(), figures);
    expect([placed.heldArrivedFirst.ok, placed.heldArrivedFirst.gapMs]).toEqual([false, 0.5]);
  });

  it('too late: x sent no more than m + 2σ + λ before the first answer may have found a slot free', () => {
    const placed = placeAgainst(read(197.5, 2), held(), figures);
    expect([placed.arrivedBeforeAnswers.ok, placed.arrivedBeforeAnswers.gapMs]).toEqual([false, 2.5]);
  });

  it('answered not more than σ + λ before the first held answer: not shown answered while they were all in service', () => {
    const placed = placeAgainst(read(40, 159.5), held(), figures);
    expect(placed.answeredWhileHeld).toMatchObject({ ok: false, gapMs: 0.5 });
  });

  it('nothing held: every part holds', () => {
    const placed = placeAgainst(read(0, 2), [], figures);
    expect([placed.heldArrivedFirst.ok, placed.arrivedBeforeAnswers.ok, placed.answeredWhileHeld.ok]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('each inequality holds for any split of a round trip into its two ways, whatever each way strays up to σ', () => {
    // The path: 60 ms both ways together, a read 2 ms on the server, each way straying up to 10 ms;
    // the timed reads show it (62 and 72 ms: m 62, σ 10). One held upload, 300 ms on the server.
    const [path, serverMs, J, parseMs] = [60, 2, 10, 300];
    const f = heldUploadFigures([path + serverMs, path + serverMs + J], 0)!;
    const shown: Record<string, number> = {
      'held-arrived-first': 0,
      'arrived-before-answers': 0,
      'answered-while-held': 0,
    };
    const wrong: string[] = [];
    for (let u = 0; u <= path; u += 7.5) {
      const d = path - u;
      for (const [iUp, iDown, xUp, xDown] of strayCombinations(J)) {
        const iArrives = 0 + u + iUp;
        const iLeaves = iArrives + parseMs;
        const i = upload(0, iLeaves + d + iDown);
        for (let sentAt = -40; sentAt <= parseMs + 100; sentAt += 2.5) {
          const xArrives = sentAt + u + xUp;
          const xLeaves = xArrives + serverMs;
          const placed = placeAgainst(read(sentAt, xLeaves + d + xDown - sentAt), [i], f);
          const claims = [
            [placed.heldArrivedFirst, iArrives < xArrives],
            [placed.arrivedBeforeAnswers, xArrives < iLeaves],
            [placed.answeredWhileHeld, xLeaves < iLeaves],
          ] as const;
          for (const [inequality, truly] of claims) {
            if (!inequality.ok) continue;
            shown[inequality.name] = (shown[inequality.name] ?? 0) + 1;
            if (!truly) wrong.push(`${inequality.name} at u ${u}, x sent at ${sentAt}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // Each was shown, at every split, for most placements between the bounds.
    for (const count of Object.values(shown)) expect(count).toBeGreaterThan(1000);
  });
});

/** Every combination of no stray and the full stray `J` on a held request's ways and x's. */
function strayCombinations(J: number): [number, number, number, number][] {
  const stray = (bits: number, b: number) => ((bits >> b) & 1) * J;
  return Array.from({ length: 16 }, (_, bits) => [stray(bits, 0), stray(bits, 1), stray(bits, 2), stray(bits, 3)]);
}

describe('the plan a measurement places its requests by', () => {
  // m 5 ms, M 10 ms: σ 5 ms; (A) 5 ms, (B) 15 ms. The span: 5 + 10 + 15 + 15 = 45 ms.
  const figures = heldUploadFigures([5, 10], 0)!;

  it('the span: the control after the held ones, its round trip, the extra after the last (A′), and before the answers (B)', () => {
    expect(holdSpanMs(figures)).toBe(45);
  });

  it('gives a quarter of what an upload leaves beyond the span and the slot wait to the control', () => {
    // L 97 ms, 30 ms for the control's slot: 22 ms left, 5.5 ms the control's margin past σ.
    expect(planHold(figures, 97, 30)).toMatchObject({ marginMs: 5.5, controlAfterMs: 10.5, slotWaitMs: 30 });
  });

  it('before any upload was seen: ten of the slowest round trips, at least 20 ms', () => {
    expect(planHold(figures, null, 30).marginMs).toBe(100);
    expect(planHold(heldUploadFigures([1], 0)!, null, 30).marginMs).toBe(20);
  });

  it('uploads too fast to hold anything among: no longer than the span and the slot wait', () => {
    expect(tooFastToHold(figures, 75, 30)).toBe(true);
    expect(tooFastToHold(figures, 76, 30)).toBe(false);
    expect(tooFastToHold(figures, 46)).toBe(false);
  });

  describe('when the extra goes', () => {
    const plan = planHold(figures, 97, 30);
    const placed = (at: number, lastAt: number) =>
      placeAgainst(read(at, 10), [upload(0, 97), upload(lastAt, 97)], figures);
    it('on time: halfway from the last upload surely on the server by its answer (A′) to the last moment (B)', () => {
      // The last upload leaves at 53: (A′) from 53 + 15 = 68, (B) until 97 − 15 = 82.
      expect(extraSendAt(plan, figures, { heldAt: 0, lastAt: 53 })).toBe(75);
    });
    it('after timers fired 9 ms late: placed from when the uploads really left, where the planned place would not be', () => {
      const at = extraSendAt(plan, figures, { heldAt: 0, lastAt: 62 });
      // Halfway from 77 to 82.
      expect(at).toBe(79.5);
      const held = [upload(0, 97), upload(62, 97)];
      expect([placed(at, 62).heldArrivedFirst.ok, placed(at, 62).arrivedBeforeAnswers.ok]).toEqual([true, true]);
      expect(heldInService(read(at, 10), held, figures).ok).toBe(true);
      // Where it would have gone on time, the last upload cannot be shown on the server by its answer.
      expect(heldInService(read(75, 10), held, figures).ok).toBe(false);
    });
    it('by the figures as they stand when it goes: late timers (λ), a slow control (σ)', () => {
      // Timers 6 ms late: (A′) from 53 + 21, (B) until 97 − 21: halfway from 74 to 76.
      expect(extraSendAt(plan, heldUploadFigures([5, 10], 6)!, { heldAt: 0, lastAt: 53 })).toBe(75);
      // A control that took 16 ms (σ 11 ms): (A′) from 53 + 27 = 80, past (B) at 97 − 27 = 70.
      expect(extraSendAt(plan, heldUploadFigures([5, 10, 16], 0)!, { heldAt: 0, lastAt: 53 })).toBe(80);
    });
    it('already past the place (the answers too near): as soon as (A′) can hold', () => {
      expect(extraSendAt(plan, figures, { heldAt: 0, lastAt: 80 })).toBe(95);
    });
    it('before any upload was seen: the first margin after the last upload is surely on the server', () => {
      expect(extraSendAt(planHold(figures, null, 30), figures, { heldAt: 0, lastAt: 20 })).toBe(125);
    });
  });
});
