/** Requests released in batches under the cap, and what was lost on the way made up once. */
import { beforeEach, describe, expect, it } from 'vitest';
import { inBatches, inBatchesMakingUpLost, straddlingFirstBatch } from '../../src/procedures/batches.ts';
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
  it('sends the total, never more at once than the batch, the first batch sized to straddle the Limit', () => {
    const s = sender();
    return inBatches(11, 4, s.send, new AbortController().signal, straddlingFirstBatch(10, 4, 1)).then((sent) => {
      expect(sent).toHaveLength(11);
      expect(s.most()).toBe(4);
      expect(straddlingFirstBatch(10, 4, 1)).toBe(2);
    });
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
