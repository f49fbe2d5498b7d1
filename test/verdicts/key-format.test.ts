import { describe, expect, it } from 'vitest';
import { keyFormatVerdict } from '../../src/verdicts/auth-key-format.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';

const LIVE = `xh_live_${'Ab3dEf6h'.repeat(4)}`;
const TEST = `xh_test_${'0011aAbB'.repeat(4)}`;
/** The contract's key formats, as the data records them. */
const FORMATS = [
  { prefix: 'xh_live_', pattern: '^[A-Za-z0-9]{32}$' },
  { prefix: 'xh_test_', pattern: '^[A-Za-z0-9]{32}$' },
];

describe('AUTH-KEY-FORMAT', () => {
  it('passes live and test keys of prefix + 32 alphanumerics', () => {
    const f = keyFormatVerdict(
      [
        { label: 'starter-a/primary', key: LIVE },
        { label: 'starter-a/secondary', key: TEST },
      ],
      recruitingApi,
    );
    expect(f.verdict).toBe('pass');
    expect(f.reasons).toBeUndefined();
    expect(f.data).toEqual({
      formats: FORMATS,
      keys: [
        { label: 'starter-a/primary', key: 'xh_live_…Ef6h', env: 'live' },
        { label: 'starter-a/secondary', key: 'xh_test_…aAbB', env: 'test' },
      ],
    });
  });

  it('fails a wrong prefix, a short body and odd characters, explaining without revealing the key', () => {
    const keys = [
      { label: 'prod', key: 'xh_prod_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4Z' },
      { label: 'short', key: 'xh_live_Ab3dEf6hIj9kLm2nOp5qRs8t' },
      { label: 'dashes', key: 'xh_live_Ab3d-f6hIj9kLm2nOp5qRs8tUv1wXy4Z' },
      { label: 'ok', key: LIVE },
    ];
    const f = keyFormatVerdict(keys, recruitingApi);
    expect(f.verdict).toBe('fail');
    const pattern = '^[A-Za-z0-9]{32}$';
    expect(f.reasons).toEqual([
      { code: 'key-prefix-unknown', label: 'prod', key: 'xh_prod_…Xy4Z', prefixes: ['xh_live_', 'xh_test_'] },
      {
        code: 'key-body-mismatch',
        label: 'short',
        key: 'xh_live_…Rs8t',
        prefix: 'xh_live_',
        length: 24,
        pattern,
        nonAlphanumeric: false,
      },
      {
        code: 'key-body-mismatch',
        label: 'dashes',
        key: 'xh_live_…Xy4Z',
        prefix: 'xh_live_',
        length: 32,
        pattern,
        nonAlphanumeric: true,
      },
    ]);
    const shown = JSON.stringify(f);
    for (const { key } of keys) {
      expect(shown).not.toContain(key);
      expect(shown).not.toContain(key.slice(8, 20));
    }
  });

  it('never shows a key that is all prefix or too short to redact', () => {
    const keys = ['abcdefghijk_', 'a_b', 'sk_AB_CDEFGHIJKLMNOPQRSTUVWXYZ0123'];
    const f = keyFormatVerdict(
      keys.map((key, i) => ({ label: `k${i}`, key })),
      recruitingApi,
    );
    expect(f.verdict).toBe('fail');
    const shown = JSON.stringify(f);
    for (const key of keys) expect(shown).not.toContain(key);
    expect(shown).not.toContain('AB_CDEF');
    expect(f.data).toEqual({
      formats: FORMATS,
      keys: [
        { label: 'k0', key: '…ijk_', env: null },
        { label: 'k1', key: 'a_…(1 chars)', env: null },
        { label: 'k2', key: 'sk_…0123', env: null },
      ],
    });
  });

  it('is inconclusive with no keys', () => {
    const f = keyFormatVerdict([], recruitingApi);
    expect(f.verdict).toBe('inconclusive');
    expect(f.reasons).toEqual([{ code: 'no-keys-configured' }]);
    expect(f.data).toEqual({ formats: FORMATS, keys: [] });
  });
});
