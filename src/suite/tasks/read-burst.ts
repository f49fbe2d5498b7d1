/** QUOTA-READ, burst variant: 2 × Limit released at once in batches under the cap; exactly Limit admitted. */
import { endpointById } from '../../contract/lookup.ts';
import { checkResult } from '../../checks/result.ts';
import { quotaExactVerdict } from '../../checks/quota-exact.ts';
import type { OrgHandle, Task } from '../context.ts';
import { requestFor } from '../requests.ts';
import { inFreshWindow } from './fresh-window.ts';
import { inBatches, straddlingFirstBatch, underCap } from './batches.ts';
import { limitToTest } from './announced-limit.ts';

export function readBurstTask(org: OrgHandle): Task {
  const name = `read-burst ${org.label}`;
  return {
    name,
    tier: org.tier,
    org: org.label,
    consumes: 'read',
    run: (context) =>
      inFreshWindow(context, org, { name, checks: [{ id: 'QUOTA-READ', variant: 'burst' }] }, async (window) => {
        const tier = context.contract.tiers[org.tier];
        const edge = context.prober.edges[0]!;
        const tags = { check: 'QUOTA-READ', phase: 'burst', tier: org.tier, org: org.label } as const;
        const startedWall = context.io.clock.now();
        const started = context.prober.now();
        // HEAD is free (assumption head-bootstrap-free) and announces the read Limit to aim at.
        const head = await context.prober.send(edge, { method: 'HEAD', path: '/recruiter/bootstrap', key: org.primary.key }, tags);
        const limit = limitToTest(tier.read, head);
        const endpoint = endpointById(context.contract, 'jobs-list');
        const batch = underCap(tier.concurrency.value);
        const sent = await inBatches(
          2 * limit,
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
