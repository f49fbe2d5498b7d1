/**
 * Release requests together, batch after batch, never more in flight than `batchSize`: quota checks
 * stay under the concurrency cap so a cap rejection cannot pass for a quota rejection.
 */
import type { Observation } from '../measure/observation.ts';

export async function inBatches(
  total: number,
  batchSize: number,
  send: (index: number) => Promise<Observation>,
  signal: AbortSignal,
  firstBatch = batchSize,
): Promise<Observation[]> {
  const all: Observation[] = [];
  for (let start = 0; start < total && !signal.aborted; start += start === 0 ? firstBatch : batchSize) {
    const size = Math.min(start === 0 ? firstBatch : batchSize, total - start);
    // Build every promise in one synchronous loop: the batch leaves at one barrier.
    const batch = Array.from({ length: size }, (_, i) => send(start + i));
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

/**
 * inBatches, then as many more as got no answer, once: a request lost on the way may never have
 * reached the server, and a series sent to reach just past the Limit must still reach past it.
 */
export async function inBatchesMakingUpLost(
  total: number,
  batchSize: number,
  send: (index: number) => Promise<Observation>,
  signal: AbortSignal,
  firstBatch = batchSize,
): Promise<Observation[]> {
  const sent = await inBatches(total, batchSize, send, signal, firstBatch);
  const lost = sent.filter((o) => o.status === null).length;
  if (lost === 0 || signal.aborted) return sent;
  return [...sent, ...(await inBatches(lost, batchSize, (i) => send(total + i), signal))];
}

/** The batch size that keeps in-flight requests strictly under the cap. */
export function underCap(cap: number): number {
  return Math.max(1, cap - 1);
}

/**
 * The first batch's size such that no batch boundary falls at request `limit` (counted from
 * `alreadySent` requests sent before the batches): the batch holding the last admissible request
 * also holds the first one over quota, so a server that races its admissions is caught over-admitting.
 */
export function straddlingFirstBatch(limit: number, batchSize: number, alreadySent = 0): number {
  const offset = (limit - alreadySent + 1) % batchSize;
  return offset === 0 ? batchSize : offset;
}
