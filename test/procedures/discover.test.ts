/**
 * Where the discovery sends its expiry read: after the used-up window surely ended, and clear of any
 * clock-aligned boundary that reads spread over the next window could not tell from one the read opened.
 */
import { describe, expect, it } from 'vitest';
import { expiryReadAt } from '../../src/procedures/discover.ts';

const W = 2000;

describe('expiryReadAt', () => {
  it('an end known exactly: about half a window after it', () => {
    expect(expiryReadAt({ earliest: 10_000, latest: 10_000 }, W, 100)).toBe(11_150);
  });

  it('an end known to a second: the middle of what is clear of every aligned boundary, after its latest', () => {
    // Aligned boundaries lie in [12,000, 13,000] (one window on). The read goes past the latest end, its
    // rounding allowance (200 ms at 2 s windows) and the clearance: in [11,300, 12,000).
    expect(expiryReadAt({ earliest: 10_000, latest: 11_000 }, W, 100)).toBe(11_650);
  });

  it('an end too coarse for any clear stretch: half a window after its latest', () => {
    expect(expiryReadAt({ earliest: 9_000, latest: 11_000 }, W, 100)).toBe(12_000);
  });
});
