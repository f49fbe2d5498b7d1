/**
 * A response's Date header as epoch seconds (NaN when it is no date). Under load every response
 * carries one and it changes once a second, so the last text parsed is kept: the aggregator reads
 * it twice per response (plausible Reset, fixed window) and Date.parse is no cheap call.
 */
let lastText: string | null = null;
let lastSeconds = Number.NaN;

export function dateHeaderSeconds(date: string): number {
  if (date !== lastText) {
    lastText = date;
    lastSeconds = Date.parse(date) / 1000;
  }
  return lastSeconds;
}
