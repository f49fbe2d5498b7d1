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
export async function inBatchesMakingUpLost(...args: Parameters<typeof inBatches>): Promise<Observation[]> {
  const [total, batchSize, send, signal] = args;
  const sent = await inBatches(...args);
  const lost = sent.filter((o) => o.status === null).length;
  if (lost === 0 || signal.aborted) return sent;
  return [...sent, ...(await inBatches(lost, batchSize, (i) => send(total + i), signal))];
}

/** The batch size that keeps in-flight requests strictly under the cap. */
export function underCap(cap: number): number {
  return Math.max(1, cap - 1);
}

/** How a series is released: the first batch's size, and how many batches in all. */
export interface BatchPlan {
  readonly firstBatch: number;
  readonly batches: number;
}

/**
 * How to release `total` requests in batches of at most `batchSize` so that the one at `straddle`
 * (1-based among them: the first past the quota) shares its batch with the one before it: a server
 * that races its admissions is caught over-admitting. The first batch is sized for the fewest batches
 * (the plan's arithmetic counts them: a slow upload costs one upload time a batch).
 */
export function batchPlan(total: number, batchSize: number, straddle: number): BatchPlan {
  const size = Math.max(1, batchSize);
  if (total <= 0) return { firstBatch: size, batches: 0 };
  let best: BatchPlan | null = null;
  for (let first = Math.min(size, total); first >= 1; first--) {
    const splits = straddle - 1 >= first && (straddle - 1 - first) % size === 0;
    const batches = 1 + Math.ceil((total - first) / size);
    if (!splits && (best === null || batches < best.batches)) best = { firstBatch: first, batches };
  }
  // One alone in its batch (size 1) cannot share it: there is nothing to straddle.
  return best ?? { firstBatch: Math.min(size, total), batches: 1 + Math.ceil((total - Math.min(size, total)) / size) };
}
