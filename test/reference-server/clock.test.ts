/**
 * The target's clocks: the real one it runs on by default, and the ManualClock the other tests run
 * it on, which must wait and abort as the real one does, only on the test's command.
 */
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/reference-server/clock.ts';
import { CLOCK_START, ManualClock } from '../helpers/manual-clock.ts';

const settled = async (promise: Promise<unknown>): Promise<string> => {
  let state = 'pending';
  promise.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  // Let the promise's reactions run.
  await new Promise((resolve) => setImmediate(resolve));
  return state;
};

describe('realClock', () => {
  it('reads the wall clock and waits on a real timer that its signal aborts', async () => {
    const before = Date.now();
    const now = realClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    await expect(realClock.delay(1, new AbortController().signal)).resolves.toBeUndefined();
    const controller = new AbortController();
    const long = realClock.delay(60_000, controller.signal);
    controller.abort();
    await expect(long).rejects.toThrow(/abort/i);
  });
});

describe('ManualClock', () => {
  it('stands still until moved; a delay ends once the clock passes its end, earliest first', async () => {
    const clock = new ManualClock();
    expect(clock.now()).toBe(CLOCK_START);
    const signal = new AbortController().signal;
    const order: number[] = [];
    const late = clock.delay(200, signal).then(() => order.push(200));
    const early = clock.delay(100, signal).then(() => order.push(100));
    expect(clock.pending).toBe(2);
    expect(clock.advance(99)).toBe(CLOCK_START + 99);
    expect(await settled(early)).toBe('pending');
    clock.advance(1);
    expect(await settled(early)).toBe('resolved');
    expect(clock.pending).toBe(1);
    clock.set(CLOCK_START + 1000);
    await late;
    expect(order).toEqual([100, 200]);
    expect(clock.now()).toBe(CLOCK_START + 1000);
  });

  it('rejects a delay when its signal aborts, and forgets it', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const waiting = clock.delay(500, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
    expect(clock.pending).toBe(0);
    await expect(clock.delay(500, controller.signal)).rejects.toThrow(/abort/i);
  });

  it('moves only forward, to the next aligned window on request', () => {
    const clock = new ManualClock();
    expect(() => clock.set(CLOCK_START - 1)).toThrow(/only moves forward/);
    expect([clock.toNextWindow(2000, 300), clock.now()]).toEqual([CLOCK_START + 2000, CLOCK_START + 2300]);
    expect([clock.toNextWindow(2000), clock.now()]).toEqual([CLOCK_START + 4000, CLOCK_START + 4000]);
    expect([clock.toNextWindow(3000, 1), clock.now()]).toEqual([CLOCK_START + 6000, CLOCK_START + 6001]);
  });

  it('tells when the target has reached its waits', async () => {
    const clock = new ManualClock();
    const two = clock.untilPending(2);
    const signal = new AbortController().signal;
    void clock.delay(10, signal);
    expect(await settled(two)).toBe('pending');
    void clock.delay(10, signal);
    expect(await settled(two)).toBe('resolved');
    clock.advance(10);
  });
});
