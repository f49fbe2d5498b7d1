import { describe, expect, it } from 'vitest';
import { resetEpochVerdict } from '../../src/verdicts/hdr-reset.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { reasonText } from '../../src/catalogue/reasons/index.ts';
import { T0, httpDate, obs, sequentialQuota } from '../helpers/observations.ts';

/**
 * `o` and a refusal one second later in the same window, with the same Reset: a single response
 * cannot show whether Reset moves with time, so a pass needs two seconds of one window.
 */
function withASecondLater(o: Observation): Observation[] {
  const dateS = Date.parse(o.date!) / 1000;
  return [
    o,
    obs({
      status: 429,
      date: httpDate(dateS + 1),
      reset: o.rateLimit.reset.value!,
      latencyMs: o.headersAt! - o.sentAt,
    }),
  ];
}

describe('HDR-RESET', () => {
  it('passes an epoch-seconds Reset within (Date, Date + 60]', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 60, gapMs: 20 });
    const f = resetEpochVerdict(seq, 60, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ windowSeconds: 60, placed: 61, resets: [1_764_000_060] });
    expect(f.evidence).toEqual([seq[0]!.id]);
  });

  it('fails a Reset in epoch milliseconds, saying so', () => {
    const { obs: seq } = sequentialQuota({ limit: 60, resetStyle: 'millis' });
    const f = resetEpochVerdict(seq, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'reset-in-milliseconds', request: 1, reset: 1764000060000 });
    expect(f.evidence).toContain(seq[0]!.id);
  });

  it('fails a Reset given as a delta (seconds until reset), saying so', () => {
    const { obs: seq } = sequentialQuota({ limit: 60, resetStyle: 'delta' });
    const f = resetEpochVerdict(seq, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({ code: 'reset-looks-like-delta', request: 1, reset: 60, date: T0 });
  });

  it('fails a delta too large to be mistaken for a small number', () => {
    const f = resetEpochVerdict([obs({ serverMs: (T0 + 10) * 1000, reset: 86_400 })], 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'reset-looks-like-delta', request: 1, reset: 86_400, date: T0 + 10 }]);
    expect(f.reasons?.map(reasonText)).toEqual([
      `request 1: Reset 86400 looks like seconds-until-reset, not an epoch (Date ${T0 + 10})`,
    ]);
  });

  it('passes a window rolling over: Reset advances by one window', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 60, gapMs: 20, serverStartMs: (T0 + 60) * 1000 - 150 });
    const f = resetEpochVerdict(seq, 60, window);
    expect(f.verdict).toBe('pass');
    expect(f.data).toMatchObject({ windowSeconds: 60, placed: 61, resets: [T0 + 60, T0 + 120] });
    expect(f.evidence).toHaveLength(2);
  });

  it('fails a sliding Reset (Date + 60 on every response)', () => {
    const seq = [0, 1, 2].map((s) => obs({ serverMs: (T0 + 10 + s) * 1000 + 5, reset: T0 + 70 + s }));
    const f = resetEpochVerdict(seq, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toContainEqual({
      code: 'reset-moved-early',
      request: 2,
      from: T0 + 70,
      to: T0 + 71,
      date: T0 + 11,
    });
    expect(f.evidence).toEqual([seq[0]!.id, seq[1]!.id]);
  });

  it('fails a Reset that changes while Remaining keeps counting down (no new window between)', () => {
    const a = obs({ serverMs: (T0 + 58) * 1000, reset: T0 + 60, remaining: 10 });
    const b = obs({ serverMs: (T0 + 59) * 1000, reset: T0 + 65, remaining: 9 });
    const f = resetEpochVerdict([a, b], 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'reset-moved-mid-window', request: 2, from: T0 + 60, to: T0 + 65 }]);
    expect(f.evidence).toEqual([a.id, b.id]);
  });

  it('fails when no response carried Reset (§8: on every response)', () => {
    const f = resetEpochVerdict([obs({ reset: null }), obs({ reset: null })], 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'header-absent-everywhere', header: 'X-RateLimit-Reset', responses: 2 }]);
  });

  it('fails a Reset that goes back to an earlier window (backends whose clocks disagree)', () => {
    const seq = [
      obs({ serverMs: (T0 + 59) * 1000 + 500, reset: T0 + 60 }),
      obs({ serverMs: (T0 + 60) * 1000 + 100, reset: T0 + 120 }),
      // Each is plausible against its own Date; together, two windows are in force at once.
      obs({ date: httpDate(T0 + 59), reset: T0 + 60 }),
    ];
    const f = resetEpochVerdict(seq, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'reset-went-back', request: 3, from: T0 + 120, to: T0 + 60, dateBefore: T0 + 60, dateAfter: T0 + 59 },
    ]);
    expect(f.evidence).toEqual([seq[1]!.id, seq[2]!.id]);
  });

  it('fails a Reset in the past or beyond one window after Date', () => {
    const past = resetEpochVerdict([obs({ serverMs: (T0 + 61) * 1000, reset: T0 + 60 })], 60);
    expect(past.verdict).toBe('fail');
    expect(past.reasons).toEqual([
      { code: 'reset-before-request', request: 1, reset: T0 + 60, date: T0 + 61, lagS: 0 },
    ]);
    const far = resetEpochVerdict([obs({ serverMs: (T0 + 1) * 1000, reset: T0 + 120 })], 60);
    expect(far.verdict).toBe('fail');
    expect(far.reasons).toEqual([
      { code: 'reset-beyond-window', request: 1, reset: T0 + 120, date: T0 + 1, window: 60 },
    ]);
  });

  it('takes a Reset equal to a Date stamped after the boundary as that window, but not one a second older', () => {
    // Admitted at T0 + 59.999 in the window ending at T0 + 60, its Date stamped at T0 + 60.002.
    const secondBefore = obs({ serverMs: (T0 + 59) * 1000 + 2, reset: T0 + 60, remaining: 1 });
    expect(
      resetEpochVerdict([secondBefore, obs({ serverMs: (T0 + 60) * 1000 + 2, reset: T0 + 60, remaining: 0 })], 60)
        .verdict,
    ).toBe('pass');
    expect(resetEpochVerdict([obs({ serverMs: (T0 + 61) * 1000 + 2, reset: T0 + 60 })], 60).verdict).toBe('fail');
  });

  it('allows a Reset before Date by as much as the answer took (an upload parsed for seconds)', () => {
    // Admitted at T0 + 59.5, parsed for 2.1 s, answered with Date T0 + 61: its window ended at T0 + 60.
    expect(
      resetEpochVerdict(
        withASecondLater(obs({ serverMs: (T0 + 61) * 1000 + 600, latencyMs: 2100, reset: T0 + 60 })),
        60,
      ).verdict,
    ).toBe('pass');
    expect(
      resetEpochVerdict([obs({ serverMs: (T0 + 63) * 1000 + 600, latencyMs: 2100, reset: T0 + 60 })], 60).verdict,
    ).toBe('fail');
  });

  it('tolerates a Date one second stale (cached), not two', () => {
    expect(resetEpochVerdict(withASecondLater(obs({ date: httpDate(T0), reset: T0 + 61 })), 60).verdict).toBe('pass');
    expect(resetEpochVerdict([obs({ date: httpDate(T0), reset: T0 + 62 })], 60).verdict).toBe('fail');
  });

  it('judges by the server Date when the client clock is 30 s off', () => {
    const { obs: ahead } = sequentialQuota({ limit: 60, gapMs: 20, clockOffsetMs: 30_000 });
    const { obs: behind } = sequentialQuota({ limit: 60, gapMs: 20, clockOffsetMs: -30_000 });
    expect(resetEpochVerdict(ahead, 60).verdict).toBe('pass');
    expect(resetEpochVerdict(behind, 60).verdict).toBe('pass');
    // A server whose Reset is computed on a clock 30 s behind its own Date: in the past, a fail.
    const skewedServer = sequentialQuota({
      limit: 5,
      tweak: (_n, init) => ({ ...init, serverMs: init.serverMs! + 75_000 }),
    });
    const f = resetEpochVerdict(skewedServer.obs, 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons?.[0]).toMatchObject({ code: 'reset-before-request', request: 1 });
  });

  it('fails a garbage Reset with the reason', () => {
    const [soon, fraction] = [obs({ reset: 'soon' }), obs({ reset: '1764000060.5' })];
    const f = resetEpochVerdict([soon, fraction], 60);
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'header-not-integer', header: 'Reset', raw: 'soon', request: soon.id },
      { code: 'header-not-integer', header: 'Reset', raw: '1764000060.5', request: fraction.id },
    ]);
    expect(f.reasons?.map(reasonText)).toEqual([
      `Reset 'soon' is not an integer (#${soon.id})`,
      `Reset '1764000060.5' has a fraction (#${fraction.id})`,
    ]);
  });

  it('is inconclusive without Date headers, or without responses', () => {
    const noDate = resetEpochVerdict([obs({ date: null }), obs({ date: 'not a date' })], 60);
    expect(noDate.verdict).toBe('inconclusive');
    expect(noDate.reasons).toEqual([{ code: 'reset-unplaceable', responses: 2 }]);
    const none = resetEpochVerdict([obs({ status: null })], 60);
    expect(none.verdict).toBe('inconclusive');
    expect(none.reasons).toEqual([{ code: 'no-answers-to-judge', sent: 1 }]);
  });

  it('leaves absent Resets to HDR-PRESENT, noting them', () => {
    const f = resetEpochVerdict(
      [...withASecondLater(obs({ serverMs: (T0 + 10) * 1000, reset: T0 + 60 })), obs({ reset: null, status: 401 })],
      60,
    );
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'header-absent-on-some', header: 'Reset', responses: 1 }]);
    expect(f.data).toMatchObject({ placed: 2, resets: [T0 + 60] });
  });
});

describe('HDR-RESET: evidence over time', () => {
  it('leaves a series within one second of the server clock open, to be measured again: a moving Reset could not show', () => {
    // Reset = now + 60 moves once a second: 61 responses within one second show one value.
    const { obs: seq, window } = sequentialQuota({ limit: 60 });
    const f = resetEpochVerdict(seq, 60, window);
    expect(f.verdict).toBe('inconclusive');
    expect(f.measureAgain).toBe('next-window');
    expect(f.reasons).toEqual([{ code: 'reset-within-one-second', reset: T0 + 60, responses: 61, date: T0 }]);
  });

  it('does not take seconds split by a new window as one window (Remaining back up between them)', () => {
    const a = obs({ serverMs: (T0 + 59) * 1000 + 900, reset: T0 + 60, remaining: 0 });
    const b = obs({ serverMs: (T0 + 60) * 1000 + 100, reset: T0 + 120, remaining: 59 });
    expect(resetEpochVerdict([a, b], 60).verdict).toBe('inconclusive');
    expect(
      resetEpochVerdict([a, b, obs({ serverMs: (T0 + 61) * 1000, reset: T0 + 120, remaining: 58 })], 60).verdict,
    ).toBe('pass');
  });

  it('asks for no second of evidence at one-second windows, where a window is within a second anyway', () => {
    expect(resetEpochVerdict([obs({ serverMs: (T0 + 10) * 1000 + 100, reset: T0 + 11 })], 1).verdict).toBe('pass');
  });
});

describe('HDR-RESET: rounding', () => {
  it('takes a Reset flipping by a second and back as one window rounded two ways, not a moving Reset', () => {
    const at = (s: number, reset: number, remaining: number) =>
      obs({ serverMs: (T0 + 10) * 1000 + s * 400, reset, remaining });
    const f = resetEpochVerdict([at(0, T0 + 60, 59), at(1, T0 + 61, 58), at(2, T0 + 60, 57), at(3, T0 + 61, 56)], 60);
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toEqual([{ code: 'reset-rounding-wobble', low: T0 + 60, high: T0 + 61 }]);
    // Once up and never back, while Remaining counts down: moved within a window.
    expect(resetEpochVerdict([at(0, T0 + 60, 59), at(1, T0 + 61, 58), at(2, T0 + 61, 57)], 60).verdict).toBe('fail');
  });
});
