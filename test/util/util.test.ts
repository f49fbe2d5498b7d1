import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../src/util/duration.ts';
import { isLoopbackHost, isLoopbackUrl } from '../../src/util/loopback.ts';
import { keyFormatOf, redactKey } from '../../src/contract/keys.ts';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { headerValue } from '../../src/measure/observation.ts';

describe('parseDurationMs', () => {
  it.each([
    ['300ms', 300],
    ['3s', 3000],
    ['1.5s', 1500],
    ['2m', 120_000],
    [' 250 ', 250],
    ['0', 0],
    [42, 42],
  ] as const)('%j is %i ms', (input, ms) => expect(parseDurationMs(input)).toBe(ms));

  it.each(['', 'fast', '-1s', '1h', '3 seconds', '1e3', '.5s', Number.NaN, -5, Number.POSITIVE_INFINITY])('refuses %j', (input) => {
    expect(parseDurationMs(input)).toBeNull();
  });

  it('formats back readably', () => {
    expect(formatDurationMs(120_000)).toBe('2m');
    expect(formatDurationMs(1500)).toBe('1.5s');
    expect(formatDurationMs(250)).toBe('250ms');
  });
});

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '[::ffff:7f00:1]'])(
    'accepts %s',
    (host) => expect(isLoopbackHost(host)).toBe(true),
  );
  it.each(['example.com', 'edge.localhost', 'localhost.example.com', '127.0.0.1.nip.io', '128.0.0.1', '0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', '[::ffff:a00:1]', 'fe80::1%eth0', ''])(
    'refuses %s',
    (host) => expect(isLoopbackHost(host)).toBe(false),
  );
  it('judges URLs by their host, and refuses what does not parse', () => {
    expect(isLoopbackUrl('http://127.0.0.1:8080/x')).toBe(true);
    expect(isLoopbackUrl('http://[::ffff:127.0.0.1]:8080/')).toBe(true);
    expect(isLoopbackUrl('https://api.example.com')).toBe(false);
    expect(isLoopbackUrl('http://localhost@evil.example/')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});

describe('redactKey / keyFormatOf', () => {
  const live = `xh_live_${'Ab3dEf6h'.repeat(4)}`;
  it('shows the prefix and the last four, never the key', () => {
    expect(redactKey(live)).toBe('xh_live_…Ef6h');
    expect(redactKey('xh_test_short')).toBe('xh_test_…(5 chars)');
  });
  it.each(['xh_live_', 'abcdefghijk_', 'secret', 'a_b', 'xh_live_AB_CDEFGHIJKLMNOPQRSTU', 'Bearer bbbbbbbbbbbbbbbbbbbbbbbb', ''])('never contains the whole of %j', (key) => {
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

describe('headerValue', () => {
  it('parses non-negative integers strictly, keeping the raw text', () => {
    expect(headerValue('60')).toEqual({ raw: '60', value: 60 });
    expect(headerValue(' 60 ')).toEqual({ raw: ' 60 ', value: 60 });
    expect(headerValue(['60', '61'])).toEqual({ raw: '60, 61', value: null });
    expect(headerValue('-1').value).toBeNull();
    expect(headerValue('1e3').value).toBeNull();
    expect(headerValue('0x10').value).toBeNull();
    expect(headerValue(undefined)).toEqual({ raw: null, value: null });
  });
});
