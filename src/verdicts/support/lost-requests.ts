/**
 * Requests of a series sent one after another that got no answer (a connection dropped, a timeout):
 * whether the server counted one is told by its own Remaining, where an admitted answer with a
 * Remaining comes right before it and right after it. One fewer across the two is the later one's
 * own count; two fewer, the lost one counted too. Pure.
 */
import { isAdmitted, type Observation } from '../../measure/observation.ts';

export type LostFate = 'counted' | 'not-counted';

export interface LostReading {
  readonly fate: LostFate;
  /** The admitted answers around it whose Remaining tells. */
  readonly before: Observation;
  readonly after: Observation;
}

/**
 * For each request of `series` (0-based index) with no answer that sits alone between two admitted
 * answers carrying a Remaining (under one Limit and one Reset), how the server counted it. A fall of
 * anything but one or two tells nothing (another request, a boundary), and neither does a run of
 * several lost in a row.
 */
export function lostByRemaining(series: readonly Observation[]): ReadonlyMap<number, LostReading> {
  const read = new Map<number, LostReading>();
  for (let i = 1; i + 1 < series.length; i++) {
    const [before, lost, after] = [series[i - 1]!, series[i]!, series[i + 1]!];
    if (lost.status !== null || !isAdmitted(before) || !isAdmitted(after)) continue;
    const [a, b] = [before.rateLimit, after.rateLimit];
    if (a.remaining.value === null || b.remaining.value === null || a.limit.value !== b.limit.value || a.reset.raw !== b.reset.raw) continue;
    const fall = a.remaining.value - b.remaining.value;
    if (fall === 1 || fall === 2) read.set(i, { fate: fall === 2 ? 'counted' : 'not-counted', before, after });
  }
  return read;
}

/** In words, for a verdict's notes: "ECONNRESET at request 58: Remaining 3 → 1 across it, so it counted". */
export function lostNote(n: number, lost: Observation, reading: LostReading): string {
  const [a, b] = [reading.before.rateLimit.remaining.value, reading.after.rateLimit.remaining.value];
  const what = lost.error?.code ?? 'no answer';
  return `${what} at request ${n}: Remaining ${a} → ${b} across it, so it ${reading.fate === 'counted' ? 'counted (admitted, its answer lost)' : 'did not count (it never reached the limiter)'}`;
}
