import { TOO_MANY_REQUESTS, type Figure } from '../contract/types.ts';
import { MAX_LIMIT_FACTOR } from '../contract/org-limits.ts';
import type { Observation } from '../measure/observation.ts';
import { inBatches } from './batches.ts';
import { isQuotaRefusal, uncountedTogether, type ReleasedTogether } from '../verdicts/support/released-together.ts';
import { EXTRA_AFTER_LIMIT, type SeriesShape } from './series-shape.ts';

/**
 * How many requests a quota check must send: the Limit the server announces (Enterprise figures are
 * minimums, so the announced one is what is tested), else the published figure.
 */
export function limitToTest(figure: Figure, announcedBy: Observation | undefined): number {
  return limitFromAnnounced(figure, announcedBy?.rateLimit.limit.value ?? null);
}

/** As limitToTest, from a Limit the server announced earlier (the limiter profile's), or null. */
export function limitFromAnnounced(figure: Figure, raw: number | null): number {
  // The server's figure sets how many requests go out: never trust it beyond a bound, so a bogus
  // Limit cannot turn a check into a flood (HDR-LIMIT judges the figure itself).
  const announced = raw === null ? null : Math.min(raw, figure.value * MAX_LIMIT_FACTOR);
  if (announced !== null && announced > 0 && (figure.atLeast ? announced >= figure.value : true)) {
    // A non-Enterprise server announcing another figure is judged against the published one, but
    // sending enough to see its own boundary gives better evidence: test the larger of the two.
    return figure.atLeast ? announced : Math.max(announced, figure.value);
  }
  return figure.value;
}

/**
 * How many resumes an ingest check uploads: as limitFromAnnounced where the figure is a minimum
 * (Enterprise), else the published or declared figure whatever the server announces. Each upload
 * costs the deployment a parse and the check an upload time, and the one past the figure shows an
 * over-admission by itself (a Limit announced above it fails HDR-LIMIT).
 */
export function uploadsFromAnnounced(figure: Figure, raw: number | null): number {
  return figure.atLeast ? limitFromAnnounced(figure, raw) : figure.value;
}

/** As uploadsFromAnnounced, from the Limit a response announces. */
export function uploadsToTest(figure: Figure, announcedBy: Observation | undefined): number {
  return uploadsFromAnnounced(figure, announcedBy?.rateLimit.limit.value ?? null);
}

/** A server still admitting past the Limit is read on until its first 429, up to this many times the Limit. */
export const OVER_ADMISSION_FACTOR = 2;

/** A series sent up to the quota and past it. */
export interface SentSeries {
  readonly sent: Observation[];
  /** The Limit aimed at. */
  readonly limit: number;
  /** The parts of `sent` released together (the bulk; reads on past an over-admission); the rest went one at a time. */
  readonly together: readonly ReleasedTogether[];
  readonly shape: SeriesShape;
}

/**
 * Requests up to the quota and past it: Limit + 1 in all (less what the harness already spent in this
 * window), and up to EXTRA_AFTER_LIMIT more until a 429 comes. The first response (`first`, sent
 * already) announces the Limit to aim at; `shapeFor` says, for the admissions left after it, how many
 * go together first (the bulk, in batches) before the tail goes one at a time (suite/series-shape.ts).
 * A refusal with quota left in the bulk counted nothing: the tail goes one further for each.
 */
export async function sendPastLimit(
  figure: Figure,
  first: Observation,
  send: () => Promise<Observation>,
  signal: AbortSignal,
  series: {
    readonly spent: number;
    readonly shapeFor: (left: number) => SeriesShape;
    /** Opens connections for that many requests at once, right before the bulk. */
    readonly warm?: (together: number) => Promise<void>;
  },
): Promise<SentSeries> {
  const sent: Observation[] = [first];
  const limit = limitToTest(figure, first);
  // The request that should meet the first 429, counted from the first.
  const target = limit - series.spent + 1;
  const shape = series.shapeFor(target - 2);
  const together: ReleasedTogether[] = [];
  const release = async (count: number, size: number) => {
    const from = sent.length;
    sent.push(...(await inBatches(count, size, send, signal)));
    if (sent.length > from) together.push({ from, to: sent.length });
  };
  if (shape.bulk > 0) {
    await series.warm?.(shape.concurrency);
    await release(shape.bulk, shape.concurrency);
  }
  const uncounted = sent.filter((o, i) => uncountedTogether(together, o, i)).length;
  const position = () => sent.length - uncounted;
  const enough = () =>
    position() >= target + EXTRA_AFTER_LIMIT || (position() >= target && sent.at(-1)!.status === TOO_MANY_REQUESTS);
  while (!enough() && !signal.aborted) sent.push(await send());
  // Past the Limit with no 429 yet: read on to the first one (it shows where the server stops, and
  // the 429 the other checks need), within a bound; together where the bulk went together.
  const bound = OVER_ADMISSION_FACTOR * limit + EXTRA_AFTER_LIMIT;
  const refused = isQuotaRefusal(together);
  while (!sent.some(refused) && position() < bound && !signal.aborted) {
    const size = Math.min(shape.concurrency, bound - position());
    if (size > 1) await release(size, size);
    else sent.push(await send());
    // A server that stopped answering shows nothing more.
    if (sent.slice(-Math.max(size, SILENT_AFTER)).every((o) => o.status === null)) break;
  }
  return { sent, limit, together, shape };
}

/** Requests in a row without an answer after which reading on past the Limit stops. */
const SILENT_AFTER = 3;
