import { TOO_MANY_REQUESTS, type Figure } from '../contract/types.ts';
import type { Observation } from '../measure/observation.ts';

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

/** A Limit the server announces is believed up to this multiple of the published figure. */
export const MAX_LIMIT_FACTOR = 20;

/** Past Limit + 1, this many more requests show where the server really stops (bounded). */
export const EXTRA_AFTER_LIMIT = 2;
/** A server still admitting past the Limit is read on until its first 429, up to this many times the Limit. */
export const OVER_ADMISSION_FACTOR = 2;

/**
 * Sequential requests up to the quota and past it: Limit + 1 (less what the harness already spent in
 * this window), and up to EXTRA_AFTER_LIMIT more until a 429 comes. The first response (`first`, sent
 * already) announces the Limit to aim at.
 */
export async function sendPastLimit(
  figure: Figure,
  first: Observation,
  send: () => Promise<Observation>,
  signal: AbortSignal,
  spent = 0,
): Promise<{ readonly sent: Observation[]; readonly limit: number }> {
  const sent: Observation[] = [first];
  const limit = limitToTest(figure, first);
  const enough = (o: Observation) => {
    const n = sent.length;
    if (n >= limit - spent + 1 && o.status === TOO_MANY_REQUESTS) return true;
    // Past the Limit with no 429 yet: go on to the first one (it shows where the server stops, and
    // the 429 the other checks need), within a bound; with 429s already seen, a few more suffice.
    const seen429 = sent.some((s) => s.status === TOO_MANY_REQUESTS);
    return n >= (seen429 ? limit - spent + 1 + EXTRA_AFTER_LIMIT : OVER_ADMISSION_FACTOR * limit + EXTRA_AFTER_LIMIT);
  };
  while (!enough(sent.at(-1)!) && !signal.aborted) sent.push(await send());
  return { sent, limit };
}
