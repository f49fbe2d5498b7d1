import type { Figure } from '../../contract/types.ts';
import { TOO_MANY_REQUESTS } from '../../checks/finding.ts';
import type { Observation } from '../../observe/observation.ts';

/**
 * How many requests a quota check must send: the Limit the server announces (Enterprise figures are
 * minimums, so the announced one is what is tested), else the published figure.
 */
export function limitToTest(figure: Figure, announcedBy: Observation | undefined): number {
  // The server's figure sets how many requests go out: never trust it beyond a bound, so a bogus
  // Limit cannot turn a check into a flood (HDR-LIMIT judges the figure itself).
  const raw = announcedBy?.rateLimit.limit.value ?? null;
  const announced = raw === null ? null : Math.min(raw, figure.value * MAX_LIMIT_FACTOR);
  if (announced !== null && announced > 0 && (figure.atLeast ? announced >= figure.value : true)) {
    // A non-Enterprise server announcing another figure is judged against the published one, but
    // sending enough to see its own boundary gives better evidence: test the larger of the two.
    return figure.atLeast ? announced : Math.max(announced, figure.value);
  }
  return figure.value;
}

/** A Limit the server announces is believed up to this multiple of the published figure. */
export const MAX_LIMIT_FACTOR = 20;

/** Past Limit + 1, this many more requests show where the server really stops (bounded). */
export const EXTRA_AFTER_LIMIT = 2;

/**
 * Sequential requests up to the quota and past it: Limit + 1, and up to EXTRA_AFTER_LIMIT more
 * until a 429 comes. The first response announces the Limit to aim at.
 */
export async function sendPastLimit(
  figure: Figure,
  send: () => Promise<Observation>,
  signal: AbortSignal,
): Promise<{ readonly sent: Observation[]; readonly limit: number }> {
  const sent: Observation[] = [];
  let limit = figure.value;
  for (let n = 1; n <= limit + 1 + EXTRA_AFTER_LIMIT && !signal.aborted; n++) {
    const o = await send();
    sent.push(o);
    if (n === 1) limit = limitToTest(figure, o);
    if (n >= limit + 1 && o.status === TOO_MANY_REQUESTS) break;
  }
  return { sent, limit };
}
