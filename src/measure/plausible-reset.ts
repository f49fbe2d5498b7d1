/**
 * X-RateLimit-Reset, if it is a plausible epoch in seconds for this response: not before the
 * response's Date and at most one window (plus a second of rounding) after it. A delta, epoch
 * milliseconds or garbage gives null, and callers fall back to the server's Date.
 */
import { dateHeaderSeconds } from './http-date.ts';
import type { Observation } from './observation.ts';

export function plausibleReset(o: Observation, windowS: number): number | null {
  const reset = o.rateLimit.reset.value;
  if (reset === null || o.date === null) return null;
  const dateS = dateHeaderSeconds(o.date);
  if (!Number.isFinite(dateS)) return null;
  return reset >= dateS && reset <= dateS + windowS + 1 ? reset : null;
}
