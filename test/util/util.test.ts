import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../src/util/duration.ts';
import { isLoopbackHost, isLoopbackUrl } from '../../src/util/loopback.ts';

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

  it.each(['', 'fast', '-1s', '1h', '3 seconds', '1e3', '.5s', Number.NaN, -5, Number.POSITIVE_INFINITY])(
    'refuses %j',
    (input) => {
      expect(parseDurationMs(input)).toBeNull();
    },
  );

  it('formats back readably', () => {
    expect(formatDurationMs(120_000)).toBe('2m');
    expect(formatDurationMs(1500)).toBe('1.5s');
    expect(formatDurationMs(250)).toBe('250ms');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.255.255.254',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
  ])('accepts %s', (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each([
    'example.com',
    'edge.localhost',
    'localhost.example.com',
    '127.0.0.1.nip.io',
    '128.0.0.1',
    '0.0.0.0',
    '::',
    '10.0.0.1',
    '::ffff:10.0.0.1',
    '[::ffff:a00:1]',
    'fe80::1%eth0',
    '',
  ])('refuses %s', (host) => expect(isLoopbackHost(host)).toBe(false));
  it('judges URLs by their host, and refuses what does not parse', () => {
    expect(isLoopbackUrl('http://127.0.0.1:8080/x')).toBe(true);
    expect(isLoopbackUrl('http://[::ffff:127.0.0.1]:8080/')).toBe(true);
    expect(isLoopbackUrl('https://api.example.com')).toBe(false);
    expect(isLoopbackUrl('http://localhost@evil.example/')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});
