/** The dense loop's stop rule and the probing-load notes: pure. */
import { describe, expect, test } from 'vitest';
import { stopReason, type LoopView } from '../../src/procedures/revocation-probe.ts';
import { probingLoadNotes } from '../../src/procedures/revocation-trials.ts';
import { revocationTiming } from '../../src/procedures/revocation.ts';

const timing = { settleMs: 500, maxMs: 8500 };
const view = (over: Partial<LoopView>): LoopView => ({
  now: 1000,
  revokeStartedAt: 100,
  revoke: 'returned',
  firstRejections: [400, 410, 420],
  aborted: false,
  ...over,
});

describe('stopReason', () => {
  test('keeps probing until every edge rejected and the settle period passed after the last', () => {
    expect(stopReason(view({ now: 919 }), timing)).toBeNull();
    expect(stopReason(view({ now: 920 }), timing)).toBe('settled');
    expect(stopReason(view({ now: 5000, firstRejections: [400, null, 420] }), timing)).toBeNull();
  });
  test('waits for the revoke call to return before settling', () => {
    expect(stopReason(view({ revoke: 'pending' }), timing)).toBeNull();
    expect(stopReason(view({ revoke: 'not-called', revokeStartedAt: null }), timing)).toBeNull();
  });
  test('stops at the time bound, on a failed hook, and when aborted', () => {
    expect(stopReason(view({ now: 8600, firstRejections: [null, null, null] }), timing)).toBe('max-time');
    expect(stopReason(view({ revoke: 'failed' }), timing)).toBe('revoke-failed');
    expect(stopReason(view({ aborted: true }), timing)).toBe('aborted');
  });
});

test('probing load: says what a trial sends and whether the tier could carry it were HEAD counted', () => {
  const t = revocationTiming({ trials: 20, intervalMs: 10, settleMs: 2000 }, 3000);
  expect(t).toMatchObject({ maxMs: 10_000, leadMs: 30, confirmMs: 2000 });
  const starter = probingLoadNotes({ edges: 3, timing: t, windowMs: 60_000, readQuota: 60, concurrencyCap: 5, tier: 'starter' });
  expect(starter[0]).toContain('about 300 per second');
  expect(starter[0]).toContain('609 to 3009 per trial');
  expect(starter[1]).toContain('could not carry even the shortest trial');
  const enterprise = probingLoadNotes({ edges: 3, timing: t, windowMs: 60_000, readQuota: 2500, concurrencyCap: 2, tier: 'enterprise' });
  expect(enterprise).toHaveLength(2);
  expect(enterprise[1]).toContain('exceed the enterprise concurrency cap of 2');
});
