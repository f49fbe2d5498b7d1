import { describe, expect, it } from 'vitest';
import { RawHeaderPicker } from '../../src/measure/raw-headers.ts';

const raw = (...pairs: string[]) => pairs.map((p) => Buffer.from(p, 'latin1'));

describe('RawHeaderPicker', () => {
  const picker = new RawHeaderPicker(['x-ratelimit-limit', 'retry-after', 'date']);

  it('picks the wanted headers by name, in any case, into their slots', () => {
    expect(picker.pick(raw('Date', 'Mon, 23 Nov 2026 10:00:00 GMT', 'X-RateLimit-Limit', '60', 'content-type', 'text/plain'))).toEqual(['60', null, 'Mon, 23 Nov 2026 10:00:00 GMT']);
  });

  it('joins a header received more than once with ", ", keeping each value as sent', () => {
    expect(picker.pick(raw('retry-after', '5', 'x-ratelimit-limit', ' 60', 'RETRY-AFTER', '7'))).toEqual([' 60', '5, 7', null]);
  });

  it('matches whole names only: same length or same prefix is not the header', () => {
    // 'x-ratelimit-limiT' matches (case); 'x-ratelimit-limits' and 'retry-aftex' do not.
    expect(picker.pick(raw('x-ratelimit-limits', '1', 'retry-aftex', '2', 'x-ratelimit-limiT', '3'))).toEqual(['3', null, null]);
    expect(picker.pick([])).toEqual([null, null, null]);
  });

  it('decodes values as latin1, as undici does', () => {
    expect(picker.pick([Buffer.from('date'), Buffer.from([0x61, 0xe9])])).toEqual([null, null, 'aé']);
  });
});
