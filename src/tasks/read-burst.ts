/**
 * QUOTA-READ, burst variant: one read (it shows the window fresh and announces the Limit), then
 * 2 × Limit less one released at once in batches under the cap; exactly Limit admitted in all (less
 * what the window's ledger already holds).
 */
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { requestFor } from '../measure/requests.ts';
import { inFreshWindow } from '../suite/fresh-window.ts';
import { batchPlan, inBatches, underCap } from '../suite/batches.ts';
import { warmForSeries } from '../suite/warm.ts';
import { limitToTest } from '../suite/announced-limit.ts';
import { defineTask, type RoundTrips } from '../suite/task.ts';

/** After the first, 2 × Limit reads less one, a batch at a time, the first past the Limit among them being #Limit. */
const burstPlan = (limit: number, batch: number) => batchPlan(2 * Math.max(1, limit) - 1, batch, limit);
const inBatchesOf2xLimit: RoundTrips = (limit, batch) => burstPlan(limit, batch).batches;

export const readBurst = defineTask({
  kind: 'read-burst',
  decides: { 'QUOTA-READ': 'burst' },
  consumes: 'read',
  orgs: 1,
  placement: 'lane',
  rounds: inBatchesOf2xLimit,
  appliesTo: (scenario) => scenario.quota.variants.includes('burst'),
  describe: 'one read, then 2 × Limit less one released at once, in batches under the concurrency cap',
  run: (context, task) => {
    const org = task.orgs[0]!;
    const tier = figuresOf(context.contract, org);
    const edge = context.prober.edges[0]!;
    const tags = { check: 'QUOTA-READ', phase: 'burst', tier: org.tier, org: org.label } as const;
    const endpoint = endpointById(context.contract, 'jobs-list');
    const read = () => context.prober.send(edge, requestFor(endpoint, org.primary.key), tags);
    return inFreshWindow(context, task, 'read', { first: read }, async (window, first) => {
      // The first read announces the Limit to aim at; what the window's ledger holds is spent already.
      const limit = limitToTest(tier.read, first) - window.prior.length;
      const batch = underCap(tier.concurrency.value);
      await warmForSeries(context, batch);
      const rest = await inBatches(
        2 * Math.max(1, limit) - 1,
        batch,
        read,
        context.signal,
        burstPlan(limit, batch).firstBatch,
      );
      return {
        'QUOTA-READ': context.judgements.judge('quotaExactVerdict', [first, ...rest], {
          figure: tier.read,
          quotaClass: 'read',
          variant: 'burst',
          window,
        }),
      };
    });
  },
});
