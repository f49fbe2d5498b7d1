/** What a revocation vantage point probes at each slot (src/k6/revocation-watch.ts): pure. */
import { describe, expect, test } from 'vitest';
import { ambiguousKeys, KeyWatch, probeTags, readVantageEnv } from '../../src/k6/revocation-watch.ts';

/** A test key of the §5.3 shape ending in `tail`, made here (no key is written down in the repository). */
const testKey = (fill: string, tail: string) => `xh_test_${fill.repeat(32 - tail.length)}${tail}`;
const KEYS = [testKey('a', '1'), testKey('a', '2'), testKey('a', '3')];
const watch = (n = 2) => new KeyWatch({ keys: KEYS, watch: n, settleProbes: 2, rejectStatus: 401 });

describe('KeyWatch', () => {
  test('probes the first `watch` keys not yet settled, and moves on as each is rejected twice in a row', () => {
    const w = watch();
    expect(w.open()).toEqual([0, 1]);
    w.record(0, 401);
    expect(w.open()).toEqual([0, 1]);
    w.record(0, 401);
    expect(w.open()).toEqual([1, 2]);
    w.record(1, 401);
    w.record(1, 200); // admitted again: the run of rejections starts over
    w.record(1, 401);
    expect(w.open()).toEqual([1, 2]);
    w.record(1, 401);
    w.record(2, 401);
    w.record(2, null); // no answer, and a 429 (the concurrency cap), say nothing of the key: the count stands
    w.record(2, 429);
    expect(w.open()).toEqual([2]);
    w.record(2, 401);
    expect(w.open()).toEqual([]);
    expect(w.done).toBe(true);
  });

  test('refuses keys it could not tell apart in its records', () => {
    const alike = [testKey('b', '1234'), testKey('c', '1234')];
    expect(ambiguousKeys(alike)).toEqual(['xh_test_…1234']);
    expect(() => new KeyWatch({ keys: alike, watch: 2, settleProbes: 1, rejectStatus: 401 })).toThrow(
      /cannot be told apart/,
    );
  });

  test('tags a probe with the key shown by its prefix and last four only', () => {
    expect(probeTags('eu', 'edge-1', KEYS[0]!, 401, 'Fri, 27 Nov 2026 10:00:00 GMT', null)).toEqual({
      vantage: 'eu',
      edge: 'edge-1',
      key: 'xh_test_…aaa1',
      status: '401',
      date: 'Fri, 27 Nov 2026 10:00:00 GMT',
      edge_node: 'none',
    });
  });
});

describe('readVantageEnv', () => {
  const base = {
    EDGES: 'edge-0=http://127.0.0.1:1/,edge-1=https://api.example',
    TIERGATE_REVOCATION_KEYS: `${KEYS[0]},${KEYS[1]}`,
  };

  test('defaults: 50 ms slots, 14 keys at once, settled after a second of rejections, 600 s at most', () => {
    expect(readVantageEnv(base, 401)).toEqual({
      vantage: null,
      edges: [
        { label: 'edge-0', url: 'http://127.0.0.1:1' },
        { label: 'edge-1', url: 'https://api.example' },
      ],
      intervalMs: 50,
      durationS: 600,
      watch: { keys: [KEYS[0], KEYS[1]], watch: 14, settleProbes: 20, rejectStatus: 401 },
    });
    expect(
      readVantageEnv({ ...base, VANTAGE: 'eu', INTERVAL_MS: '25', SETTLE_MS: '300', WATCH: '2' }, 401),
    ).toMatchObject({ vantage: 'eu', intervalMs: 25, watch: { watch: 2, settleProbes: 12 } });
  });

  test.each([
    [{ EDGES: '' }, /EDGES is empty/],
    [{ EDGES: 'edge-0' }, /EDGES: "edge-0" is not label=http\(s\)-base-url/],
    [{ TIERGATE_REVOCATION_KEYS: ' , ' }, /TIERGATE_REVOCATION_KEYS is empty/],
    [{ INTERVAL_MS: '0' }, /INTERVAL_MS=0: expected a whole number of at least 1/],
  ])('a mistake names the variable (%j)', (change, message) => {
    expect(() => readVantageEnv({ ...base, ...change }, 401)).toThrow(message);
  });
});
