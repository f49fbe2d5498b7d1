/** Requests released in batches under the cap, and what was lost on the way made up once. */
import { beforeEach, describe, expect, it } from 'vitest';
import { batchPlan, inBatches, inBatchesMakingUpLost } from '../../src/suite/batches.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

beforeEach(() => resetObservations());

/** A sender recording how many were in flight at once; request indices in `lost` get no answer. */
function sender(lost: readonly number[] = []) {
  let inFlight = 0;
  let most = 0;
  const indices: number[] = [];
  const send = async (i: number): Promise<Observation> => {
    indices.push(i);
    inFlight += 1;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    return lost.includes(i) ? obs({ status: null }) : obs({ status: 200 });
  };
  return { send, indices, most: () => most };
}

describe('inBatches', () => {
  it('sends the total, never more at once than the batch', async () => {
    const s = sender();
    const sent = await inBatches(11, 4, s.send, new AbortController().signal, 3);
    expect(sent).toHaveLength(11);
    expect(s.most()).toBe(4);
  });
});

describe('batchPlan', () => {
  /** The batches a plan releases, as lists of 1-based request numbers. */
  const batchesOf = (total: number, size: number, first: number) => {
    const out: number[][] = [];
    for (let start = 0; start < total; start += out.length === 1 ? first : size) {
      const n = Math.min(out.length === 0 ? first : size, total - start);
      out.push(Array.from({ length: n }, (_, i) => start + i + 1));
    }
    return out;
  };
  const together = (batches: number[][], a: number, b: number) =>
    batches.some((batch) => batch.includes(a) && batch.includes(b));

  it('as few batches as the total needs, the first past the quota sharing its batch with the last admissible', () => {
    // Starter singles: 12 after the first, the 10th past the quota; Enterprise: 602 of 119, the 600th.
    for (const [total, size, straddle, batches] of [
      [12, 4, 10, 3],
      [602, 119, 600, 6],
      [119, 99, 60, 2],
      [20, 4, 20, 5],
    ] as const) {
      const plan = batchPlan(total, size, straddle);
      expect(plan.batches).toBe(batches);
      expect(together(batchesOf(total, size, plan.firstBatch), straddle - 1, straddle)).toBe(true);
    }
  });

  it('one batch more where the fewest would split the two', () => {
    // 8 in batches of 4 would split #4 from #5: a first batch of 3 keeps them together.
    const plan = batchPlan(8, 4, 5);
    expect(plan).toEqual({ firstBatch: 3, batches: 3 });
    expect(together(batchesOf(8, 4, plan.firstBatch), 4, 5)).toBe(true);
  });
});

describe('inBatchesMakingUpLost', () => {
  it('sends one more for each request that got no answer, once, numbered after the rest', async () => {
    const s = sender([2, 7]);
    const sent = await inBatchesMakingUpLost(10, 4, s.send, new AbortController().signal);
    expect(sent).toHaveLength(12);
    expect(s.indices.slice(10)).toEqual([10, 11]);
    expect(sent.filter((o) => o.status === null)).toHaveLength(2);
  });

  it('sends nothing more when nothing was lost, or after an interrupt', async () => {
    expect(await inBatchesMakingUpLost(10, 4, sender().send, new AbortController().signal)).toHaveLength(10);
    const controller = new AbortController();
    controller.abort();
    expect(await inBatchesMakingUpLost(10, 4, sender([1]).send, controller.signal)).toHaveLength(0);
  });
});
