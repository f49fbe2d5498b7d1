import { describe, expect, it } from 'vitest';
import { headerValue } from '../../src/measure/observation.ts';

describe('headerValue', () => {
  it('parses non-negative integers strictly, keeping the raw text', () => {
    expect(headerValue('60')).toEqual({ raw: '60', value: 60 });
    expect(headerValue(' 60 ')).toEqual({ raw: ' 60 ', value: 60 });
    expect(headerValue(['60', '61'])).toEqual({ raw: '60, 61', value: null });
    expect(headerValue('-1').value).toBeNull();
    expect(headerValue('1e3').value).toBeNull();
    expect(headerValue('0x10').value).toBeNull();
    expect(headerValue(undefined)).toEqual({ raw: null, value: null });
    expect(headerValue('')).toEqual({ raw: '', value: null });
    expect(headerValue('\t7\r')).toEqual({ raw: '\t7\r', value: 7 });
    expect(headerValue('1234567890123456').value).toBe(1234567890123456);
    expect(headerValue('12345678901234567').value).toBeNull();
    expect(headerValue('6 0').value).toBeNull();
  });
});
