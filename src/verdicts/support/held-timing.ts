/**
 * Where a fast request fell among slow ones held before it, from the run's own timings alone
 * (CONCURRENCY-CAP). Times are the client's monotonic clock; the server's moments are bounded with
 * two figures measured in the same run:
 *
 * - r, the slowest round trip of a fast read: the network's share of any answer, either way, is at
 *   most r. So a request reached the server at most r after it was sent, and an answer left the
 *   server no later than it arrived, and at most r before.
 * - S = L − r, an upload's shortest time on the server, where L is the fastest upload latency seen.
 *
 * Held request i (sent s_i, answered h_i) and a request x (sent s_x, answered h_x):
 * - i was in service before x arrived when h_i − s_x < S: i left the server no later than h_i, after
 *   at least S on it, so it arrived no later than h_i − S < s_x, and x arrived after s_x;
 * - x reached the server before any held one was answered when s_x + 2r < min h_i;
 * - x was answered while every held one was still in service when h_x + r < min h_i.
 */
import type { Observation } from '../../measure/observation.ts';
import { isAdmitted } from '../../measure/observation.ts';

/** The figures the placement rests on. */
export interface ServiceFigures {
  /** r: the slowest round trip of a fast read, ms. */
  readonly roundTripMs: number;
  /** L: the fastest upload latency seen, ms. */
  readonly fastestUploadMs: number;
  /** S = L − r: an upload's shortest time on the server, ms. */
  readonly serviceMs: number;
}

/** Time to the response headers, ms; null without a response. */
export function latencyOf(o: Observation): number | null {
  return o.headersAt === null || !Number.isFinite(o.headersAt) || !Number.isFinite(o.sentAt)
    ? null
    : o.headersAt - o.sentAt;
}

/** r from the fast reads that were answered, L from the uploads admitted; null without either. */
export function serviceFigures(
  fastReads: readonly Observation[],
  uploads: readonly Observation[],
): ServiceFigures | null {
  const trips = fastReads.map(latencyOf).filter((ms): ms is number => ms !== null);
  const uploadTimes = uploads
    .filter(isAdmitted)
    .map(latencyOf)
    .filter((ms): ms is number => ms !== null);
  if (trips.length === 0 || uploadTimes.length === 0) return null;
  const roundTripMs = Math.max(...trips);
  const fastestUploadMs = Math.min(...uploadTimes);
  return { roundTripMs, fastestUploadMs, serviceMs: fastestUploadMs - roundTripMs };
}

/** How a request `x` fell against the requests held before it; each part with the figure that decides it. */
export interface Placement {
  /** Every held one in service before x arrived: max h_i − s_x (null: none held), against S. */
  readonly inService: {
    readonly ok: boolean;
    readonly latestAnswerAfterSendMs: number | null;
    readonly latest: Observation | null;
  };
  /** x on the server before any held one was answered: min h_i − s_x (null: none held), against 2r. */
  readonly arrived: {
    readonly ok: boolean;
    readonly sentBeforeFirstAnswerMs: number | null;
    readonly first: Observation | null;
  };
  /** x answered while every held one was in service: min h_i − h_x (null: none held or x unanswered), against r. */
  readonly answeredWhileHeld: { readonly ok: boolean; readonly answeredBeforeFirstMs: number | null };
}

/** Places `x` against `held` (every one answered), by the inequalities above. */
export function placeAgainst(x: Observation, held: readonly Observation[], figures: ServiceFigures): Placement {
  const answers = held.map((o) => ({ o, at: o.headersAt ?? Number.NaN }));
  const latest = answers.reduce<{ o: Observation; at: number } | null>(
    (best, a) => (best === null || a.at > best.at ? a : best),
    null,
  );
  const first = answers.reduce<{ o: Observation; at: number } | null>(
    (best, a) => (best === null || a.at < best.at ? a : best),
    null,
  );
  const afterSend = latest === null ? null : latest.at - x.sentAt;
  const beforeFirst = first === null ? null : first.at - x.sentAt;
  const answeredBefore = first === null || x.headersAt === null ? null : first.at - x.headersAt;
  const r = figures.roundTripMs;
  return {
    inService: {
      ok: afterSend === null || afterSend < figures.serviceMs,
      latestAnswerAfterSendMs: afterSend,
      latest: latest?.o ?? null,
    },
    arrived: {
      ok: beforeFirst === null || beforeFirst > 2 * r,
      sentBeforeFirstAnswerMs: beforeFirst,
      first: first?.o ?? null,
    },
    answeredWhileHeld: {
      ok: x.headersAt !== null && (answeredBefore === null || answeredBefore > r),
      answeredBeforeFirstMs: answeredBefore,
    },
  };
}

/**
 * How long after sending held uploads to send the request placed among them. The measurement sends
 * one fewer than the cap, the control a margin later, the last upload a round trip after the control's
 * answer, and the extra a margin after that (extraSendAt), all before the first upload is answered:
 * 2m + 4r < L.
 * And the margin must cover a round trip and the spread of upload times (m > r + spread), so the
 * middle of what is left: m = (L − 4r) / 3, never under two round trips. Before any upload was
 * seen (L unknown), many round trips: 10r, at least 20 ms (timers and the event loop's own jitter).
 */
export function holdMarginMs(roundTripMs: number, fastestUploadMs: number | null): number {
  if (fastestUploadMs === null) return Math.max(FIRST_MARGIN_ROUND_TRIPS * roundTripMs, FIRST_MARGIN_MIN_MS);
  return Math.max(MIN_MARGIN_ROUND_TRIPS * roundTripMs, spreadMarginMs(roundTripMs, fastestUploadMs));
}

/**
 * When to send the extra, on the prober's clock, reckoned from when the uploads really left: a margin
 * after the last upload, as planned, unless a timer that fired late before it (a loaded machine) left
 * less than a margin before two round trips ahead of the first held answer (the fastest upload after
 * the first ones left); then a margin before that, and never less than a third of the way from when
 * the last upload is surely in service (a round trip after it left), so the early side keeps room too.
 * L unknown: the first margin after the last upload.
 */
export function extraSendAt(
  sent: { readonly heldAt: number; readonly lastAt: number },
  roundTripMs: number,
  fastestUploadMs: number | null,
): number {
  const marginMs = holdMarginMs(roundTripMs, fastestUploadMs);
  if (fastestUploadMs === null) return sent.lastAt + marginMs;
  const inService = sent.lastAt + roundTripMs;
  const beforeAnswers = sent.heldAt + fastestUploadMs - 2 * roundTripMs;
  const third = inService + Math.max(0, beforeAnswers - inService) / 3;
  return Math.max(third, Math.min(sent.lastAt + marginMs, beforeAnswers - marginMs));
}

/** Uploads too fast to hold anything among: the margin would be under two round trips (L < 10r). */
export function tooFastToHold(roundTripMs: number, fastestUploadMs: number): boolean {
  return spreadMarginMs(roundTripMs, fastestUploadMs) < MIN_MARGIN_ROUND_TRIPS * roundTripMs;
}

/** The middle of what an upload leaves once four round trips are off: (L − 4r) / 3. */
function spreadMarginMs(roundTripMs: number, fastestUploadMs: number): number {
  return (fastestUploadMs - 4 * roundTripMs) / 3;
}

const MIN_MARGIN_ROUND_TRIPS = 2;

const FIRST_MARGIN_ROUND_TRIPS = 10;
const FIRST_MARGIN_MIN_MS = 20;

/** "12.3 ms": the figures of the inequalities, to a tenth of a millisecond. */
export function ms(value: number): string {
  return `${Math.round(value * 10) / 10} ms`;
}
