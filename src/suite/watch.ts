/**
 * No lucky pass (README "How it measures"): after a quota check's 429, watch the rest of its window
 * sparsely, within the check's request budget. A limiter that gives quota back, or counts a route
 * apart, admits something here while the window surely lasts.
 */
import { windowSafeEnd, type WindowContext } from '../measure/window.ts';
import { sleep } from '../util/sleep.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import type { SuiteContext } from './context.ts';

/** Requests spread over the rest of the window after the 429, besides the bracket and the other route. */
const WATCH_REQUESTS = 4;

/**
 * After the 429: the same request again at once (the bracket for ORG-SHARED, and the first watch),
 * the class's other route when there is one, then the same request spread evenly until shortly
 * before the window's safe end. Stops at the first admission of the same request (the evidence is
 * in); the other route admitted (a quota counted per route) does not stop it, as the refusals over
 * the rest of the window are what shows whether Reset holds still (HDR-RESET). Bounded:
 * 2 + WATCH_REQUESTS requests, one window of time.
 */
export async function watchRestOfWindow(
  context: SuiteContext,
  watch: {
    first: Observation;
    window: WindowContext;
    again: () => Promise<Observation>;
    otherRoute?: () => Promise<Observation>;
  },
): Promise<Watched> {
  const later: Observation[] = [await watch.again()];
  if (isAdmitted(later[0]!)) return { later, otherRoute: null };
  const otherRoute = watch.otherRoute ? await watch.otherRoute() : null;
  if (otherRoute) later.push(otherRoute);
  // The last read must reach the server inside the window, whichever share of its round trip the way there is.
  const stopAt =
    windowSafeEnd(watch.window, watch.first) - context.network.margins(watch.first.edge).lastReadClearanceMs;
  const from = context.prober.now();
  const step = (stopAt - from) / WATCH_REQUESTS;
  for (let i = 1; i <= WATCH_REQUESTS && step > 0 && !context.signal.aborted; i++) {
    await sleep(from + i * step - context.prober.now(), context.signal);
    if (context.signal.aborted || context.prober.now() > stopAt) break;
    const o = await watch.again();
    later.push(o);
    if (isAdmitted(o)) break;
  }
  return { later, otherRoute };
}

/** What the watch sent after the 429: every request in the order sent, and which was the other route's read. */
export interface Watched {
  readonly later: readonly Observation[];
  readonly otherRoute: Observation | null;
}
