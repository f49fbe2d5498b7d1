import { describe, expect, it } from 'vitest';
import { keyFormatOf, redactKey } from '../../src/contract/keys.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';

describe('redactKey / keyFormatOf', () => {
  const live = `xh_live_${'Ab3dEf6h'.repeat(4)}`;
  it('shows the prefix and the last four, never the key', () => {
    expect(redactKey(live)).toBe('xh_live_…Ef6h');
    expect(redactKey('xh_test_short')).toBe('xh_test_…(5 chars)');
  });
  it.each([
    'xh_live_',
    'abcdefghijk_',
    'secret',
    'a_b',
    'xh_live_AB_CDEFGHIJKLMNOPQRSTU',
    'Bearer bbbbbbbbbbbbbbbbbbbbbbbb',
    '',
  ])('never contains the whole of %j', (key) => {
    const shown = redactKey(key);
    if (key !== '') expect(shown).not.toContain(key);
    expect(shown).toContain('…');
  });
  it('never shows more than the prefix and four characters of the rest', () => {
    expect(redactKey('xh_live_AB_CDEFGHIJKLMNOPQRSTU')).toBe('xh_live_…RSTU');
  });
  it('recognises the two §5.3 formats only', () => {
    expect(keyFormatOf(recruitingApi, live)?.env).toBe('live');
    expect(keyFormatOf(recruitingApi, `xh_test_${'0'.repeat(32)}`)?.env).toBe('test');
    expect(keyFormatOf(recruitingApi, `xh_live_${'0'.repeat(31)}`)).toBeNull();
    expect(keyFormatOf(recruitingApi, `xh_live_${'0'.repeat(31)}-`)).toBeNull();
    expect(keyFormatOf(recruitingApi, `xh_prod_${'0'.repeat(32)}`)).toBeNull();
  });
});
