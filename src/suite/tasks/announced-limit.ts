import type { Figure } from '../../contract/types.ts';
import type { Observation } from '../../observe/observation.ts';

/**
 * How many requests a quota check must send: the Limit the server announces (Enterprise figures are
 * minimums, so the announced one is what is tested), else the published figure.
 */
export function limitToTest(figure: Figure, announcedBy: Observation | undefined): number {
  const announced = announcedBy?.rateLimit.limit.value ?? null;
  if (announced !== null && announced > 0 && (figure.atLeast ? announced >= figure.value : true)) {
    // A non-Enterprise server announcing another figure is judged against the published one, but
    // sending enough to see its own boundary gives better evidence: test the larger of the two.
    return figure.atLeast ? announced : Math.max(announced, figure.value);
  }
  return figure.value;
}
