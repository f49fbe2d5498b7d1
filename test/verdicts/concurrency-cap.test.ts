import { describe, expect, it } from 'vitest';
import { concurrencyCapVerdict } from '../../src/verdicts/concurrency-cap.ts';
import type { Figure } from '../../src/contract/types.ts';
import { obs, heldAndExtra } from '../helpers/observations.ts';

const STARTER: Figure = { value: 5, atLeast: false };
const ENTERPRISE: Figure = { value: 100, atLeast: true };

describe('CONCURRENCY-CAP', () => {
  it('passes: the cap held admitted, the extra answered 429 while they were held', () => {
    const { held, extra } = heldAndExtra({ cap: 5 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('pass');
    expect(f.expected).toBe('all 5 held requests admitted and the one sent while they were held rejected with 429');
    expect(f.actual).toMatch(/^all 5 held admitted; the extra got 429 \d+ ms before the first held one finished$/);
    expect(f.evidence).toEqual([extra.id, held[0]!.id]);
  });

  it('fails an extra admitted while the cap was held, once the server showed every held request counted', () => {
    const { held, extra } = heldAndExtra({ cap: 5, extraStatus: 200 });
    const witness = obs({ status: 400, method: 'POST', path: '/recruiter/jobs/vendor/resume-analysis/bulk', limit: 10, remaining: 5 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER, heldCounted: witness });
    expect(f.verdict).toBe('fail');
    expect(f.actual).toMatch(/^admitted all 6: the extra got 200 after the server counted all 5 held \(400 POST .*, Remaining 5\), \d+ ms before the first held one finished$/);
    expect(f.evidence).toEqual([extra.id, witness.id, held[0]!.id]);
  });

  it('is inconclusive on an admitted extra when the server never showed the held requests counted', () => {
    const { held, extra } = heldAndExtra({ cap: 5, extraStatus: 200 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER, heldCounted: null });
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toMatch(/no evidence that all 5 had arrived/);
  });

  it('is inconclusive when held requests finished before the extra was answered, 429 or 200', () => {
    // A slow extra answered last may have waited (in the client pool or at the server) for a free slot.
    for (const extraStatus of [429, 200]) {
      const { held, extra } = heldAndExtra({ cap: 5, extraStatus, extraFirst: false });
      const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
      expect(f.verdict).toBe('inconclusive');
      expect(f.actual).toMatch(new RegExp(`extra got ${extraStatus}, answered \\d+ ms after the first held request finished$`));
      expect(f.notes).toContain('held requests finished before the extra was answered; cannot tell');
      expect(f.evidence).toEqual([extra.id, held[0]!.id]);
    }
  });

  it('does not fail an admitted extra when a held request got no response (it may never have been admitted)', () => {
    const { held, extra } = heldAndExtra({ cap: 5, extraStatus: 200, heldStatus: (i) => (i === 4 ? null : 200) });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('inconclusive');
    expect(f.evidence).toEqual([held[3]!.id, extra.id]);
  });

  it('fails a held request refused below the cap', () => {
    const { held, extra } = heldAndExtra({ cap: 5, heldStatus: (i) => (i === 3 ? 429 : 200) });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain('cap admitted only 4 of 5');
    expect(f.evidence).toEqual([held[2]!.id, extra.id]);
  });

  it('is inconclusive when exactly one held was refused and the extra admitted (the server saw it first)', () => {
    const { held, extra } = heldAndExtra({ cap: 5, heldStatus: (i) => (i === 5 ? 429 : 200), extraStatus: 200 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('inconclusive');
    expect(f.evidence).toEqual([held[4]!.id, extra.id]);
  });

  it('fails an extra rejected with another status than assumed', () => {
    const { held, extra } = heldAndExtra({ cap: 5, extraStatus: 503 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('fail');
    expect(f.actual).toBe('5 of 5 held admitted; extra got 503 instead of 429');
    expect(concurrencyCapVerdict({ held, extra, figure: STARTER, rejectedStatus: 503 }).verdict).toBe('pass');
  });

  it('is inconclusive when the extra or a held request got no response', () => {
    const lostExtra = heldAndExtra({ cap: 5, extraStatus: null });
    const f = concurrencyCapVerdict({ ...lostExtra, figure: STARTER });
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toBe('5 of 5 held admitted; extra got no response (ECONNRESET)');
    const lostHeld = heldAndExtra({ cap: 5, heldStatus: (i) => (i === 2 ? null : 200) });
    const g = concurrencyCapVerdict({ ...lostHeld, figure: STARTER });
    expect(g.verdict).toBe('inconclusive');
    expect(g.evidence).toEqual([lostHeld.held[1]!.id, lostHeld.extra.id]);
  });

  it('is inconclusive when the number held is not the cap', () => {
    const { held, extra } = heldAndExtra({ cap: 4 });
    const f = concurrencyCapVerdict({ held, extra, figure: STARTER });
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toBe('4 requests were held, the cap is 5');
  });

  it('Enterprise: judges the cap tested when it is at least the minimum', () => {
    const { held, extra } = heldAndExtra({ cap: 120 });
    const f = concurrencyCapVerdict({ held, extra, figure: ENTERPRISE, capAnnounced: 120 });
    expect(f.verdict).toBe('pass');
    const open = heldAndExtra({ cap: 100, extraStatus: 200 });
    const witness = obs({ status: 400, limit: 500, remaining: 400 });
    expect(concurrencyCapVerdict({ ...open, figure: ENTERPRISE, heldCounted: witness }).verdict).toBe('fail');
  });

  it('Enterprise: fails a rejection with fewer in flight than the published minimum', () => {
    const { held, extra } = heldAndExtra({ cap: 80 });
    const f = concurrencyCapVerdict({ held, extra, figure: ENTERPRISE, capAnnounced: 80 });
    expect(f.verdict).toBe('fail');
    expect(f.actual).toContain('rejected with only 81 in flight (the published minimum is 100)');
    expect(f.evidence).toEqual([extra.id]);
    const admitted = heldAndExtra({ cap: 80, extraStatus: 200 });
    const g = concurrencyCapVerdict({ ...admitted, figure: ENTERPRISE, capAnnounced: 80 });
    expect(g.verdict).toBe('inconclusive');
    expect(g.actual).toContain('the cap was not reached with 81 in flight');
  });
});

describe('CONCURRENCY-CAP with missing times', () => {
  it('is inconclusive, saying the order of answers is unknown', () => {
    const { held, extra } = heldAndExtra({ cap: 5 });
    const f = concurrencyCapVerdict({ held, extra: { ...extra, headersAt: Number.NaN }, figure: STARTER });
    expect(f.verdict).toBe('inconclusive');
    expect(f.actual).toBe('5 of 5 held admitted; extra got 429, but the order of the answers is unknown (times missing)');
  });
});
