import { describe, expect, it } from 'vitest';
import {
  readReset,
  sameFixedWindowByDate,
  serverDateSeconds,
  windowEndOf,
  withinOneWindow,
} from '../../src/verdicts/support/window-integrity.ts';
import { CLIENT_WALL_AT_ZERO, T0, httpDate, obs, sequentialQuota, windowFrom } from '../helpers/observations.ts';

describe('serverDateSeconds / readReset', () => {
  it('reads Date to the second, and null for garbage', () => {
    expect(serverDateSeconds(obs({ date: httpDate(T0 + 7) }))).toBe(T0 + 7);
    expect(serverDateSeconds(obs({ date: 'yesterday-ish' }))).toBeNull();
    expect(serverDateSeconds(obs({ date: null }))).toBeNull();
  });

  it('accepts an epoch Reset in [Date, Date + window + 1] and refuses deltas and milliseconds', () => {
    const at = (reset: number | string) => readReset(obs({ date: httpDate(T0 + 10), reset }), 60);
    expect(at(T0 + 60)).toMatchObject({ reset: T0 + 60, basis: 'date' });
    expect(at(T0 + 71)).toMatchObject({ reset: T0 + 71, basis: 'date' });
    expect(at(T0 + 72)).toMatchObject({ reset: null, basis: 'date' });
    expect(at(50)).toMatchObject({ reset: null, basis: 'date' });
    expect(at((T0 + 60) * 1000)).toMatchObject({ reset: null });
    expect(at('soon')).toEqual({ reset: null, basis: null, note: "Reset 'soon' is not an integer" });
  });

  it('without Date, judges against the client clock within a day of skew', () => {
    const skewed = obs({ date: null, reset: T0 + 60, sentWall: CLIENT_WALL_AT_ZERO - 30_000 });
    expect(readReset(skewed, 60)).toMatchObject({ reset: T0 + 60, basis: 'client-clock' });
    expect(readReset(obs({ date: null, reset: 59 }), 60).reset).toBeNull();
  });
});

describe('withinOneWindow', () => {
  it('is ok when every response shares one epoch Reset', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 10 });
    expect(withinOneWindow(seq, window)).toEqual({ ok: true, note: `all 11 responses share Reset ${T0 + 60}` });
  });

  it('is not ok when Reset changes: the window rolled over', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 60, serverStartMs: (T0 + 60) * 1000 - 60 });
    const w = withinOneWindow(seq, window);
    const atRequest = seq.findIndex((o) => o.rateLimit.reset.value === T0 + 120) + 1;
    expect(w).toMatchObject({
      ok: false,
      reason: { code: 'window-rolled-over', from: T0 + 60, to: T0 + 120, atRequest },
    });
  });

  it('falls back to timing when Reset is unusable, and refuses requests outside the learned window', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 10, resetStyle: 'delta' });
    expect(withinOneWindow(seq, window).ok).toBe(true);
    const early = withinOneWindow(seq, { ...window, openedAt: seq[3]!.sentAt + 1 });
    expect(early).toMatchObject({
      ok: false,
      reason: { code: 'sent-before-window', placedBy: 'reset', lackingReset: 11, responses: 11, atRequest: 1 },
    });
    const late = withinOneWindow(seq, { ...window, lengthMs: 30 });
    expect(late).toMatchObject({ ok: false, reason: { code: 'finished-after-safe-end', windowMs: 30 } });
  });

  it('times transport failures too when it falls back', () => {
    const first = obs({ reset: null, date: null, sentAt: 100 });
    const lost = obs({ status: null, sentAt: 100_000 });
    expect(withinOneWindow([first, lost], windowFrom(100)).ok).toBe(false);
    expect(withinOneWindow([], windowFrom(100))).toEqual({
      ok: false,
      reason: { code: 'nothing-to-place' },
      note: 'no observations to place in a window',
    });
  });

  it('mentions a learned window the server does not confirm', () => {
    const { obs: seq, window } = sequentialQuota({ limit: 5 });
    expect(withinOneWindow(seq, { ...window, resetEpochS: T0 }).note).toContain(
      `the window the harness learned ends at ${T0}`,
    );
  });
});

describe('sameFixedWindowByDate', () => {
  const at = (s: number) => obs({ date: httpDate(s) });
  it('proves one window only when no boundary can fall between, a stale second included', () => {
    expect(sameFixedWindowByDate(at(T0 + 10), at(T0 + 20), 60)).toBe(true);
    expect(sameFixedWindowByDate(at(T0 + 20), at(T0 + 10), 60)).toBe(true);
    expect(sameFixedWindowByDate(at(T0 + 58), at(T0 + 58), 60)).toBe(true);
    expect(sameFixedWindowByDate(at(T0 + 59), at(T0 + 59), 60)).toBe(false);
    expect(sameFixedWindowByDate(at(T0 + 30), at(T0 + 61), 60)).toBe(false);
  });
  it('proves nothing without Dates or with a fractional window', () => {
    expect(sameFixedWindowByDate(obs({ date: null }), at(T0), 60)).toBe(false);
    expect(sameFixedWindowByDate(at(T0 + 1), at(T0 + 1), 1.5)).toBe(false);
  });
});

describe('withinOneWindow on broken timing', () => {
  it('never places a request with NaN times inside the window', () => {
    const w = withinOneWindow([obs({ reset: 'x', sentAt: Number.NaN, doneAt: Number.NaN })], windowFrom(0));
    expect(w).toEqual({
      ok: false,
      reason: { code: 'request-time-unusable', placedBy: 'reset', lackingReset: 1, responses: 1, atRequest: 1 },
      note: '1 of 1 responses lack a plausible epoch Reset; by timing, request 1 has no usable send or finish time',
    });
    const unknown = withinOneWindow([obs({ reset: 'x', sentAt: 5 })], { ...windowFrom(0), openedAt: Number.NaN });
    expect(unknown).toMatchObject({
      ok: false,
      reason: { code: 'window-timing-unknown', placedBy: 'reset', lackingReset: 1, responses: 1 },
    });
  });
});

describe('windowEndOf', () => {
  it('reads Reset as epoch seconds, or as epoch milliseconds, against Date; nothing else', () => {
    const at = (reset: number | string, date: string | null = httpDate(T0 + 5)) =>
      windowEndOf(obs({ reset, date }), 60);
    expect(at(T0 + 60)).toBe(T0 + 60);
    expect(at((T0 + 60) * 1000)).toBe(T0 + 60);
    expect(at((T0 + 600) * 1000)).toBeNull();
    expect(at(55)).toBeNull();
    expect(at('soon')).toBeNull();
    expect(at((T0 + 60) * 1000, null)).toBeNull();
  });
});
