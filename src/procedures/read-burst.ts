/**
 * QUOTA-READ, burst variant: 2 × Limit released at once in batches under the cap; exactly Limit
 * admitted (less what the window's ledger already holds). The Limit to aim at is the one the limiter
 * profile learned, so no request of the harness's own spends the window first.
 */
import { endpointById } from '../contract/lookup.ts';
import { checkResult } from '../verdicts/support/result.ts';
import { quotaExactVerdict } from '../verdicts/quota-read-ingest.ts';
import type { Task } from './context.ts';
import type { OrgHandle } from './handles.ts';
import { requestFor } from './requests.ts';
import { inFreshWindow } from './fresh-window.ts';
import { inBatches, straddlingFirstBatch, underCap } from './batches.ts';
import { limitFromAnnounced } from './announced-limit.ts';

export function readBurstTask(org: OrgHandle): Task {
  const name = `read-burst ${org.label}`;
  return {
    name,
    tier: org.tier,
    org: org.label,
    consumes: 'read',
    run: (context) =>
      inFreshWindow(context, org, { name, checks: [{ id: 'QUOTA-READ', variant: 'burst' }], quotaClass: 'read' }, async (window) => {
        const tier = context.contract.tiers[org.tier];
        const edge = context.prober.edges[0]!;
        const tags = { check: 'QUOTA-READ', phase: 'burst', tier: org.tier, org: org.label } as const;
        const startedWall = context.io.clock.now();
        const started = context.prober.now();
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
        const finding = quotaExactVerdict(sent, { figure: tier.read, quotaClass: 'read', variant: 'burst', window });
        return [
          checkResult('QUOTA-READ', finding, {
            tier: org.tier,
            org: org.label,
            variant: 'burst',
            startedWall,
            durationMs: context.prober.now() - started,
          }),
        ];
      }),
  };
}
