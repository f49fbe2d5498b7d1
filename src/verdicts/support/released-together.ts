/**
 * A series whose bulk went together (suite/series-shape.ts): which of its requests were released
 * together, and what a refusal among them means. One at a time, nothing of ours is beside a request,
 * so every 429 is the quota's; among requests released together, a 429 with quota left (Remaining
 * above 0) is a concurrency cap's, and counted nothing. Pure.
 */
import { TOO_MANY_REQUESTS } from '../../contract/types.ts';
import type { Observation } from '../../measure/observation.ts';

/** Requests of a series released together: indices into it, `from` included, `to` not. */
export interface ReleasedTogether {
  readonly from: number;
  readonly to: number;
}

/** Whether request `i` of a series was released together with others. */
export function wentTogether(together: readonly ReleasedTogether[], i: number): boolean {
  return together.some((t) => t.from <= i && i < t.to);
}

/** A refusal with quota left (Remaining above 0). */
export function refusedWithQuotaLeft(o: Observation): boolean {
  return o.status === TOO_MANY_REQUESTS && (o.rateLimit.remaining.value ?? 0) > 0;
}

/** Request `i` went together with others and was refused with quota left: a cap's refusal, counted nothing. */
export function uncountedTogether(together: readonly ReleasedTogether[], o: Observation, i: number): boolean {
  return refusedWithQuotaLeft(o) && wentTogether(together, i);
}

/** A refusal of the quota: any 429 but a cap's among requests released together. */
export function isQuotaRefusal(together: readonly ReleasedTogether[]): (o: Observation, i: number) => boolean {
  return (o, i) => o.status === TOO_MANY_REQUESTS && !uncountedTogether(together, o, i);
}

/**
 * The series in an order the server may have taken it: the requests of each part released together
 * sorted among themselves by the window they fell in (their Reset, lower first), then by Remaining
 * (more left: taken earlier), then by Date. Their send order says nothing of the order the server
 * took them in (each on its own connection), so a verdict that reads a series in order (a Reset that
 * went back) reads it so.
 */
export function inServerOrder(obs: readonly Observation[], together: readonly ReleasedTogether[]): Observation[] {
  const ordered = [...obs];
  for (const t of together) ordered.splice(t.from, t.to - t.from, ...ordered.slice(t.from, t.to).sort(byServerOrder));
  return ordered;
}

/** Missing values sort last (a difference of two missing ones is NaN: the next key decides). */
const resetOf = (o: Observation) => o.rateLimit.reset.value ?? Number.POSITIVE_INFINITY;
const remainingOf = (o: Observation) => o.rateLimit.remaining.value ?? Number.NEGATIVE_INFINITY;
const dateOf = (o: Observation) => Date.parse(o.date ?? '') || 0;

function byServerOrder(a: Observation, b: Observation): number {
  return resetOf(a) - resetOf(b) || remainingOf(b) - remainingOf(a) || dateOf(a) - dateOf(b);
}
