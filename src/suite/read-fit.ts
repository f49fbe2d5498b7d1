/**
 * Whether a read task's round trips one after another fit one quota window at a round trip (its
 * batches count once each; a series' shape depends on the round trip: suite/series-shape.ts). A task
 * that cannot fit is not sent: the plan names it once the run has measured its round trips, with
 * these figures, and its checks are reported inconclusive with them.
 */
import { formatDurationMs } from '../util/duration.ts';
import { because, reasonText, type ReasonFigures } from '../catalogue/reasons/index.ts';

/** A task whose round trips one after another would take more than this share of a window is not sent. */
const FIT_SHARE = 0.8;

/** The task's round trips after its first, at a round trip of `roundTripMs`. */
export type RoundsAt = (roundTripMs: number) => number;

export interface ReadFit {
  readonly fits: boolean;
  readonly rounds: number;
  readonly roundTripMs: number;
  readonly needMs: number;
}

export function readFit(rounds: RoundsAt, roundTripMs: number, windowMs: number): ReadFit {
  const n = rounds(roundTripMs);
  const needMs = n * roundTripMs;
  return { fits: needMs <= FIT_SHARE * windowMs, rounds: n, roundTripMs, needMs };
}

/** The longest round trip at which the task still fits (bisection over 0.1 ms to a window), ms. */
export function longestRoundTripMs(rounds: RoundsAt, windowMs: number): number {
  let [fits, fails] = [0.1, windowMs];
  if (!readFit(rounds, fits, windowMs).fits) return 0;
  if (readFit(rounds, fails, windowMs).fits) return fails;
  while (fails - fits > 0.05 * fits) {
    const middle = (fits + fails) / 2;
    if (readFit(rounds, middle, windowMs).fits) fits = middle;
    else fails = middle;
  }
  return fits;
}

/** Why a read task that does not fit was not sent: its figures, for reason `reads-do-not-fit-window`. */
export function readsUnfitFigures(fit: ReadFit, windowMs: number): ReasonFigures<'reads-do-not-fit-window'> {
  const { rounds: roundTrips, roundTripMs, needMs } = fit;
  return { roundTrips, roundTripMs, needMs, windowMs, usablePercent: Math.round(FIT_SHARE * 100) };
}

/** "62 round trips one after another at 90ms = 5.58s, within the 60s window" (one line). */
export function readFitText(fit: ReadFit, windowMs: number): string {
  if (!fit.fits) return reasonText(because('reads-do-not-fit-window', readsUnfitFigures(fit, windowMs)));
  return `${fit.rounds} round trips one after another at ${formatDurationMs(fit.roundTripMs)} = ${formatDurationMs(fit.needMs)}, within the ${formatDurationMs(windowMs)} window`;
}
