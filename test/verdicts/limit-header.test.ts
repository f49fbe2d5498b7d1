import { describe, expect, it } from 'vitest';
import { announcedLimit, limitHeaderVerdict } from '../../src/verdicts/hdr-limit.ts';
import type { Figure } from '../../src/contract/types.ts';
import { reasonText } from '../../src/catalogue/reasons/index.ts';
import { obs, sequentialQuota } from '../helpers/observations.ts';

const STARTER: Figure = { value: 60, atLeast: false };
const ENTERPRISE: Figure = { value: 2500, atLeast: true };

describe('HDR-LIMIT', () => {
  it('passes the published figure on every response, 429s included', () => {
    const { obs: seq } = sequentialQuota({ limit: 60 });
    const f = limitHeaderVerdict(seq, STARTER, 'read');
    expect(f.verdict).toBe('pass');
    expect(f.data).toEqual({ quotaClass: 'read', figure: STARTER, values: { '60': 61 } });
    expect(f.reasons).toBeUndefined();
    expect(f.evidence).toEqual([seq[0]!.id]);
  });

  it('fails a Limit other than the published one', () => {
    const { obs: seq } = sequentialQuota({ limit: 61, admitted: 60 });
    const f = limitHeaderVerdict(seq, STARTER, 'read');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'limit-off-figure', announced: 61, responses: 61, figure: 60, basis: 'published' },
    ]);
  });

  it('fails a Limit that varies, citing the first of each', () => {
    const a = obs({ limit: 60 });
    const b = obs({ limit: 60 });
    const c = obs({ limit: 300 });
    const f = limitHeaderVerdict([a, b, c], STARTER, 'read');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([
      { code: 'limit-varied', values: [60, 300], counts: [2, 1] },
      { code: 'limit-off-figure', announced: 300, responses: 1, figure: 60, basis: 'published' },
    ]);
    expect(f.evidence).toEqual([a.id, c.id]);
  });

  it('fails a garbage Limit with the reason', () => {
    const g = obs({ limit: '60, 60' });
    const f = limitHeaderVerdict([obs(), g], STARTER, 'read');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'header-not-integer', header: 'Limit', raw: '60, 60', request: g.id }]);
    expect(f.reasons?.map(reasonText)).toEqual([`Limit '60, 60' is repeated or a list (#${g.id})`]);
    expect(f.evidence).toEqual([g.id]);
    const many = [1, 2, 3, 4, 5].map((n) => obs({ limit: `${n}.5` }));
    expect(limitHeaderVerdict(many, STARTER, 'read').reasons).toEqual([
      ...many
        .slice(0, 3)
        .map((o, i) => ({ code: 'header-not-integer', header: 'Limit', raw: `${i + 1}.5`, request: o.id })),
      { code: 'headers-not-integer-more', header: 'Limit', more: 2 },
    ]);
  });

  it('Enterprise: fails an announced Limit below the minimum, passes one above', () => {
    const below = limitHeaderVerdict([obs({ limit: 2400 }), obs({ limit: 2400 })], ENTERPRISE, 'read');
    expect(below.verdict).toBe('fail');
    expect(below.data).toEqual({ quotaClass: 'read', figure: ENTERPRISE, values: { '2400': 2 } });
    expect(below.reasons).toEqual([
      { code: 'limit-off-figure', announced: 2400, responses: 2, figure: 2500, basis: 'minimum' },
    ]);
    const above = limitHeaderVerdict([obs({ limit: 4000 }), obs({ limit: 4000 })], ENTERPRISE, 'read');
    expect(above.verdict).toBe('pass');
    expect(above.data).toEqual({ quotaClass: 'read', figure: ENTERPRISE, values: { '4000': 2 } });
  });

  it("declared in the config: the organization's figure is the contract, exactly, even on Enterprise", () => {
    const declared: Figure = { value: 10_000, atLeast: false, declared: true };
    const same = limitHeaderVerdict([obs({ limit: 10_000 }), obs({ limit: 10_000 })], declared, 'read');
    expect(same.verdict).toBe('pass');
    expect(same.reasons).toEqual([{ code: 'limit-declared-in-config', limit: 10_000, announced: 10_000 }]);
    expect(same.data).toEqual({ quotaClass: 'read', figure: declared, values: { '10000': 2 } });
    const a = obs({ limit: 2500 });
    const other = limitHeaderVerdict([a, obs({ limit: 2500 })], declared, 'read');
    expect(other.verdict).toBe('fail');
    expect(other.reasons).toEqual([
      { code: 'limit-off-figure', announced: 2500, responses: 2, figure: 10_000, basis: 'declared' },
    ]);
    expect(other.evidence).toEqual([a.id]);
    // Above the declared figure is no better: the announced Limit differs from the contract.
    expect(limitHeaderVerdict([obs({ limit: 12_000 })], declared, 'ingest').reasons).toEqual([
      { code: 'limit-off-figure', announced: 12_000, responses: 1, figure: 10_000, basis: 'declared' },
    ]);
    // The published minimum alone would have passed both.
    expect(limitHeaderVerdict([obs({ limit: 2500 })], ENTERPRISE, 'read').verdict).toBe('pass');
  });

  it('fails when no response carried a Limit (§8: on every response), leaving some absent to HDR-PRESENT', () => {
    const f = limitHeaderVerdict([obs({ limit: null }), obs({ status: null })], STARTER, 'read');
    expect(f.verdict).toBe('fail');
    expect(f.reasons).toEqual([{ code: 'header-absent-everywhere', header: 'X-RateLimit-Limit', responses: 1 }]);
    const some = limitHeaderVerdict([obs({ limit: null }), obs({ limit: 60 }), obs({ status: null })], STARTER, 'read');
    expect(some.verdict).toBe('pass');
    expect(some.reasons).toEqual([{ code: 'header-absent-on-some', header: 'Limit', responses: 1 }]);
    expect(some.data?.values).toEqual({ '60': 1 });
    const wrong = limitHeaderVerdict([obs({ limit: null }), obs({ limit: 61 })], STARTER, 'ingest');
    expect(wrong.reasons).toEqual([
      { code: 'limit-off-figure', announced: 61, responses: 1, figure: 60, basis: 'published' },
      { code: 'header-absent-on-some', header: 'Limit', responses: 1 },
    ]);
    expect(limitHeaderVerdict([], STARTER, 'ingest').reasons).toEqual([{ code: 'no-answers-to-judge', sent: 0 }]);
    const unanswered = limitHeaderVerdict([obs({ status: null })], STARTER, 'ingest');
    expect(unanswered.verdict).toBe('inconclusive');
    expect(unanswered.reasons).toEqual([{ code: 'no-answers-to-judge', sent: 1 }]);
  });

  it('announcedLimit: one agreed integer, or null with the reason', () => {
    expect(announcedLimit([obs({ limit: 60 }), obs({ limit: 60 }), obs({ status: null })])).toEqual({
      value: 60,
      note: null,
      values: [60],
    });
    expect(announcedLimit([obs({ limit: 60 }), obs({ limit: 61 })])).toEqual({
      value: null,
      note: 'X-RateLimit-Limit varied: 60, 61',
      values: [60, 61],
    });
    expect(announcedLimit([obs({ limit: 'x' })]).value).toBeNull();
  });
});
