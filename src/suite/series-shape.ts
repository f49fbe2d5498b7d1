/**
 * How a read series up to the quota and past it is sent (README "At a distance"). Where the series
 * fits a quarter of a window one request at a time (half its budget of half a window), it goes so:
 * every Remaining is then a step. Where it does not (Enterprise's 2,500 reads at 90 ms are 225 s),
 * only the requests whose order decides the verdict go one at a time: its bulk is released together
 * in batches under the concurrency cap (judged like a burst: every one admitted, each Remaining value
 * given once), then a tail from at least two requests before the Limit goes one at a time past it,
 * where the first 429 must fall exactly. The bulk's concurrency is the least that fits its share, and
 * the tail as long as its share allows, both from the round trip measured on this run and the window.
 */
import type { BulkPolicy } from '../scenario/define.ts';

/** Past Limit + 1, this many more requests show where the server really stops (bounded). */
export const EXTRA_AFTER_LIMIT = 2;

/** The share of a window a series may take: the rest is the watch after its 429 (a third at least) and margins. */
const SERIES_SHARE = 0.5;
/**
 * Shares of that budget it is planned to take, leaving the rest for round trips slower than planned
 * (a loaded machine's, a moment's congestion): one at a time, half; with a bulk, a quarter for its
 * batches and a tenth for the tail.
 */
const ONE_BY_ONE_SHARE = 0.5;
const BULK_SHARE = 0.25;
const TAIL_SHARE = 0.1;
/** The tail holds at least this many admissions before the Limit, so a 429 one or two early is seen one at a time. */
export const TAIL_BEFORE_LIMIT = 2;
/** Requests of the tail after the Limit's last admission: the 429 at Limit + 1 and a few more. */
const TAIL_AFTER_LIMIT = 1 + EXTRA_AFTER_LIMIT;

export interface SeriesShape {
  /** Requests after the first released together, in batches of `concurrency`. */
  readonly bulk: number;
  readonly concurrency: number;
  /** Admissions before the Limit that go one at a time after the bulk (the tail then goes on past the Limit). */
  readonly tailBefore: number;
  /** Round trips one after another after the first: the bulk's batches, then the tail. */
  readonly rounds: number;
  /** The round trip it was planned by, ms (whether it fits a window is suite/read-fit.ts's to say). */
  readonly roundTripMs: number;
}

export interface SeriesInput {
  /** Admissions the quota has left after the series' first request (Limit less the ledger and the first). */
  readonly left: number;
  /** The most requests that may be in flight at once under the cap. */
  readonly batch: number;
  /** The round trip the series is planned by (the network's median to its edge), ms. */
  readonly roundTripMs: number;
  readonly windowMs: number;
  readonly bulk: BulkPolicy;
}

/** The shape of a series: one at a time where it fits its share, else bulk and tail (see the module's comment). */
export function seriesShape(input: SeriesInput): SeriesShape {
  const { left, batch, windowMs } = input;
  const roundTripMs = Math.max(input.roundTripMs, Number.MIN_VALUE);
  const budgetMs = SERIES_SHARE * windowMs;
  const oneByOne = Math.max(0, left) + TAIL_AFTER_LIMIT;
  const canBulk = left > TAIL_BEFORE_LIMIT && batch > 1;
  if (!canBulk || (input.bulk === 'auto' && oneByOne * roundTripMs <= ONE_BY_ONE_SHARE * budgetMs))
    return shaped({ bulk: 0, concurrency: 1, tailBefore: Math.max(0, left) }, input);
  // Always: the bulk at the cap, the shortest tail (a bulk path exercised whatever the distance).
  if (input.bulk === 'always')
    return shaped({ bulk: left - TAIL_BEFORE_LIMIT, concurrency: batch, tailBefore: TAIL_BEFORE_LIMIT }, input);
  const tailFits = Math.floor((TAIL_SHARE * budgetMs) / roundTripMs) - TAIL_AFTER_LIMIT;
  const tailBefore = Math.min(left - 1, Math.max(TAIL_BEFORE_LIMIT, tailFits));
  const bulk = left - tailBefore;
  const bulkRounds = Math.max(1, Math.floor((BULK_SHARE * budgetMs) / roundTripMs));
  const concurrency = Math.max(2, Math.min(batch, Math.ceil(bulk / bulkRounds)));
  return shaped({ bulk, concurrency, tailBefore }, input);
}

function shaped(
  parts: { readonly bulk: number; readonly concurrency: number; readonly tailBefore: number },
  input: SeriesInput,
): SeriesShape {
  const rounds = Math.ceil(parts.bulk / parts.concurrency) + parts.tailBefore + TAIL_AFTER_LIMIT;
  return { ...parts, rounds, roundTripMs: input.roundTripMs };
}

/** "a bulk of 2419 at 10 at once, then 80 one at a time past the Limit (322 round trips of 90 ms)" (the dry run and the plan). */
export function seriesShapeText(shape: SeriesShape): string {
  const tail = `${shape.tailBefore + TAIL_AFTER_LIMIT} one at a time past the Limit`;
  const rounds = `${shape.rounds} round trips of ${Math.round(shape.roundTripMs)} ms`;
  return shape.bulk === 0
    ? `${tail} (${rounds})`
    : `a bulk of ${shape.bulk} at ${shape.concurrency} at once, then ${tail} (${rounds})`;
}
