/**
 * Connections opened right before a series that sends requests together (README "At a distance"): a
 * TCP and TLS handshake never lands inside a measurement. The prober keeps them alive between series.
 */
import type { SuiteContext } from './context.ts';

/** Opens enough connections to the series' edge (the first) for `together` requests at once. */
export async function warmForSeries(context: SuiteContext, together: number): Promise<void> {
  const edge = context.prober.edges[0];
  if (edge && together > 1 && !context.signal.aborted) await context.prober.warm(edge, together);
}
