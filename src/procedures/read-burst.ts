/**
 * QUOTA-READ, burst variant: 2 × Limit released at once in batches under the cap; exactly Limit
 * admitted (less what the window's ledger already holds). The Limit to aim at is the one the limiter
 * profile learned, so no request of the harness's own spends the window first.
 */
import { endpointById } from '../contract/lookup.ts';
import { quotaExactVerdict } from '../verdicts/quota-read-ingest.ts';
import { requestFor } from './requests.ts';
import { inFreshWindow, type RoundTrips } from './fresh-window.ts';
import { inBatches, straddlingFirstBatch, underCap } from './batches.ts';
import { limitFromAnnounced } from './announced-limit.ts';
import { defineTask } from './task.ts';

/** 2 × Limit reads, a batch at a time. */
const inBatchesOf2xLimit: RoundTrips = (limit, batch) => Math.ceil((2 * limit) / batch);

export const readBurst = defineTask({
  kind: 'read-burst',
  decides: { 'QUOTA-READ': 'burst' },
  consumes: 'read',
  orgs: 1,
  placement: 'lane',
  appliesTo: (scenario) => scenario.quota.variants.includes('burst'),
  describe: '2 × Limit reads released at once, in batches under the concurrency cap',
  run: (context, task) => {
    const org = task.orgs[0]!;
    return inFreshWindow(context, task, 'read', async (window) => {
      const tier = context.contract.tiers[org.tier];
      const edge = context.prober.edges[0]!;
      const tags = { check: 'QUOTA-READ', phase: 'burst', tier: org.tier, org: org.label } as const;
      const limit = limitFromAnnounced(tier.read, context.profileOf(org.tier)?.read.limit ?? null) - window.prior.length;
      const endpoint = endpointById(context.contract, 'jobs-list');
      const batch = underCap(tier.concurrency.value);
      const sent = await inBatches(
        2 * Math.max(1, limit),
        batch,
        () => context.prober.send(edge, requestFor(endpoint, org.primary.key), tags),
        context.signal,
        straddlingFirstBatch(limit, batch),
      );
      return { 'QUOTA-READ': quotaExactVerdict(sent, { figure: tier.read, quotaClass: 'read', variant: 'burst', window }) };
    }, inBatchesOf2xLimit);
  },
});
