/** How many requests a quota check sends, from the published figure and the Limit the server announces. */
import { describe, expect, it } from 'vitest';
import type { Figure } from '../../src/contract/types.ts';
import { limitFromAnnounced, sendPastLimit, uploadsFromAnnounced } from '../../src/suite/announced-limit.ts';
import type { SeriesShape } from '../../src/suite/series-shape.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { obs } from '../helpers/observations.ts';

const STARTER: Figure = { value: 10, atLeast: false };
const ENTERPRISE: Figure = { value: 500, atLeast: true };
const DECLARED: Figure = { value: 600, atLeast: false, declared: true };

describe('limitFromAnnounced (reads)', () => {
  it("tests the larger of the published and the announced figure; Enterprise's announced one, within bounds", () => {
    expect(limitFromAnnounced(STARTER, 60)).toBe(60);
    expect(limitFromAnnounced(STARTER, 5)).toBe(10);
    expect(limitFromAnnounced(ENTERPRISE, 800)).toBe(800);
    expect(limitFromAnnounced(ENTERPRISE, 400)).toBe(500);
    expect(limitFromAnnounced(ENTERPRISE, 10 ** 9)).toBe(500 * 20);
    expect(limitFromAnnounced(STARTER, null)).toBe(10);
  });
});

describe('uploadsFromAnnounced (ingest)', () => {
  it('uploads the published or declared figure whatever Limit is announced: one past it shows an over-admission', () => {
    // A server announcing its read Limit on ingest (one global counter) would otherwise get 60 slow uploads.
    expect(uploadsFromAnnounced(STARTER, 60)).toBe(10);
    expect(uploadsFromAnnounced(DECLARED, 5000)).toBe(600);
    expect(uploadsFromAnnounced(ENTERPRISE, 800)).toBe(800);
    expect(uploadsFromAnnounced(ENTERPRISE, null)).toBe(500);
  });
});

/**
 * A server that counts `limit` admissions per window, one at a time in the order requests reach it:
 * each send is answered after a tick, so requests sent together are all in flight at once. `lose`
 * says which requests (1-based) it never answers (and does not count); `cap` how many it takes at once.
 */
function countingServer(limit: number, options: { lose?: (n: number) => boolean; cap?: number } = {}) {
  let sent = 0;
  let used = 0;
  let inFlight = 0;
  let most = 0;
  const send = async (): Promise<Observation> => {
    const n = ++sent;
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    if (options.lose?.(n)) return obs({ status: null });
    if (options.cap !== undefined && inFlight + 1 > options.cap)
      return obs({ status: 429, limit, remaining: limit - used });
    if (used >= limit) return obs({ status: 429, limit, remaining: 0 });
    used += 1;
    return obs({ status: 200, limit, remaining: limit - used });
  };
  return { send, inFlightAtMost: () => most };
}

const shaped = (bulk: number, concurrency: number): SeriesShape => ({
  bulk,
  concurrency,
  tailBefore: 0,
  rounds: 0,
  roundTripMs: 0,
});

describe('sendPastLimit', () => {
  const figure: Figure = { value: 60, atLeast: false };
  const signal = new AbortController().signal;

  it('releases the bulk together, then goes one at a time to the first 429, Limit + 1 in all', async () => {
    const server = countingServer(60);
    const first = await server.send();
    const { sent, together } = await sendPastLimit(figure, first, server.send, signal, {
      spent: 0,
      shapeFor: (left) => shaped(left - 2, 4),
    });
    expect(together).toEqual([{ from: 1, to: 58 }]);
    expect(sent).toHaveLength(61);
    expect(sent.at(-1)!.status).toBe(429);
    expect(server.inFlightAtMost()).toBe(4);
  });

  it('goes one further for each answer lost among the bulk, to the 429', async () => {
    const server = countingServer(60, { lose: (n) => n % 10 === 0 && n <= 50 });
    const first = await server.send();
    const { sent, together } = await sendPastLimit(figure, first, server.send, signal, {
      spent: 0,
      shapeFor: (left) => shaped(left - 2, 4),
    });
    // One at a time all the way: no reading on together past the Limit.
    expect(together).toEqual([{ from: 1, to: 58 }]);
    expect(sent.filter((o) => o.status === 200)).toHaveLength(60);
    expect(sent.at(-1)!.status).toBe(429);
  });
});
