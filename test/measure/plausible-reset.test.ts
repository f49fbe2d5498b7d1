import { describe, expect, it } from 'vitest';
import { plausibleReset } from '../../src/measure/plausible-reset.ts';
import { T0, httpDate, obs } from '../helpers/observations.ts';

const poll = (dateS: number, reset: number | string | null) => obs({ method: 'HEAD', date: httpDate(dateS), reset });

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
