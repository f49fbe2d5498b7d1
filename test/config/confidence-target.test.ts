/** The revocation confidence target's text form: "99%@95%", or "99%" at 95 %. */
import { describe, expect, it } from 'vitest';
import { parseConfidenceTarget, targetText } from '../../src/config/confidence-target.ts';

describe('parseConfidenceTarget', () => {
  it('reads a share and a level, the level 95 % when left out', () => {
    expect(parseConfidenceTarget('99%@95%')).toEqual({ ok: true, target: { share: 0.99, level: 0.95 } });
    expect(parseConfidenceTarget(' 99.9 % @ 99 % ')).toEqual({ ok: true, target: { share: 0.999, level: 0.99 } });
    expect(parseConfidenceTarget('95%')).toEqual({ ok: true, target: { share: 0.95, level: 0.95 } });
  });

  it('refuses what is not a target, saying how to write one', () => {
    for (const text of ['0.99', '99', '100%', '99%@100%', '99%@', 'high', '0%', '99%@0%']) {
      const parsed = parseConfidenceTarget(text);
      expect({ text, ok: parsed.ok }).toEqual({ text, ok: false });
      if (!parsed.ok) expect(parsed.problem).toContain(`"${text}"`);
    }
  });

  it('says the target in words', () => {
    expect(targetText({ share: 0.99, level: 0.95 }, '3 s')).toBe('99 % of revocations within 3 s, at 95 % confidence');
  });
});
