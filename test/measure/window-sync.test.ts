import { describe, expect, it } from 'vitest';
import { boundaryBetween } from '../../src/measure/window-sync.ts';
import { plausibleReset } from '../../src/measure/plausible-reset.ts';
import { T0, httpDate, obs } from '../helpers/observations.ts';

const poll = (dateS: number, reset: number | string | null) => obs({ method: 'HEAD', date: httpDate(dateS), reset });

describe('boundaryBetween', () => {
  it('sees a boundary when an epoch Reset advances, and none while it holds', () => {
    expect(boundaryBetween(poll(T0 + 59, T0 + 60), poll(T0 + 60, T0 + 120), 60)).toBe(true);
    expect(boundaryBetween(poll(T0 + 10, T0 + 60), poll(T0 + 11, T0 + 60), 60)).toBe(false);
    expect(boundaryBetween(poll(T0 + 60, T0 + 120), poll(T0 + 59, T0 + 60), 60)).toBe(false);
  });

  it('reads a countdown Reset (seconds-until): a new window when it rises, never within one', () => {
    expect(boundaryBetween(poll(T0 + 59, 1), poll(T0 + 60, 60), 60)).toBe(true);
    expect(boundaryBetween(poll(T0 + 30, 30), poll(T0 + 31, 29), 60)).toBe(false);
    expect(boundaryBetween(poll(T0 + 30, 30), poll(T0 + 30, 30), 60)).toBe(false);
  });

  it('ignores a Reset the profile found moving within a window: Date decides', () => {
    // A drifting Reset (Date + 60 each second) advances without any boundary.
    expect(boundaryBetween(poll(T0 + 30, T0 + 90), poll(T0 + 31, T0 + 91), 60, 0, false)).toBe(false);
    expect(boundaryBetween(poll(T0 + 59, T0 + 119), poll(T0 + 60, T0 + 120), 60, 0, false)).toBe(true);
  });

  it('falls back to the Date crossing a multiple of the window when Reset is not an epoch', () => {
    for (const broken of [(T0 + 6000) * 1000, 'soon', null]) {
      expect(boundaryBetween(poll(T0 + 59, broken), poll(T0 + 60, broken), 60), String(broken)).toBe(true);
      expect(boundaryBetween(poll(T0 + 30, broken), poll(T0 + 31, broken), 60), String(broken)).toBe(false);
    }
    // One usable Reset is not enough to compare: Date decides.
    expect(boundaryBetween(poll(T0 + 59, T0 + 60), poll(T0 + 60, 'soon'), 60)).toBe(true);
  });

  it('with a server clock 30 s off ours, still judges by the server headers', () => {
    const a = obs({ method: 'HEAD', clockOffsetMs: 30_000, serverMs: (T0 + 59) * 1000 + 800, reset: T0 + 60 });
    const b = obs({ method: 'HEAD', clockOffsetMs: 30_000, serverMs: (T0 + 60) * 1000 + 10, reset: T0 + 120 });
    expect(boundaryBetween(a, b, 60)).toBe(true);
  });

  it('sees nothing without usable Dates', () => {
    const noDate = obs({ method: 'HEAD', date: null, reset: 'x' });
    expect(boundaryBetween(noDate, poll(T0 + 60, 'x'), 60)).toBe(false);
    expect(boundaryBetween(obs({ date: 'never', reset: 'x' }), obs({ date: 'never', reset: 'x' }), 60)).toBe(false);
  });
});

describe('plausibleReset', () => {
  it('is the Reset when it is an epoch within one window (and a second) of Date', () => {
    expect(plausibleReset(poll(T0 + 1, T0 + 60), 60)).toBe(T0 + 60);
    expect(plausibleReset(poll(T0, T0 + 61), 60)).toBe(T0 + 61);
    expect(plausibleReset(poll(T0, T0 + 62), 60)).toBeNull();
    expect(plausibleReset(poll(T0 + 61, T0 + 60), 60)).toBeNull();
    expect(plausibleReset(poll(T0, 59), 60)).toBeNull();
    expect(plausibleReset(poll(T0, (T0 + 60) * 1000), 60)).toBeNull();
    expect(plausibleReset(obs({ date: null, reset: T0 + 60 }), 60)).toBeNull();
  });
});
