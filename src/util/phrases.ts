/** How sentences phrase their figures: counts, milliseconds, request positions. */

/** "one request", "3 requests". */
export function countOf(n: number, noun: string): string {
  return `${n === 1 ? 'one' : String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** "12.3 ms": to a tenth of a millisecond. */
export function ms(value: number): string {
  return `${Math.round(value * 10) / 10} ms`;
}

/** "3.1 ms before" or "0.4 ms after", of a gap measured as (the other) − (this). */
export function relativeTo(gapMs: number, ahead = 'before', behind = 'after'): string {
  return `${ms(Math.abs(gapMs))} ${gapMs >= 0 ? ahead : behind}`;
}

/** "#3, #4 and #9": the positions of requests in the run. */
export function positions(requests: readonly number[]): string {
  const ids = requests.map((id) => `#${id}`);
  return ids.length <= 1 ? ids.join('') : `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
}
