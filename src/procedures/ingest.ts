/**
 * QUOTA-INGEST in two variants, each in a window of its own:
 * 'single' uploads resumes one per request, in batches under the cap (the parse takes time);
 * 'bulk' sends equal batches that add up to Limit, then one more (assumption bulk-counts-per-resume).
 * HDR-LIMIT for the ingest class comes from the single variant.
 */
import { endpointById } from '../contract/lookup.ts';
import { checkResult } from '../verdicts/support/result.ts';
import type { CheckResult } from '../catalogue/types.ts';
import { quotaExactVerdict } from '../verdicts/quota-read-ingest.ts';
import { limitHeaderVerdict } from '../verdicts/hdr-limit.ts';
import type { Observation } from '../measure/observation.ts';
import type { Task } from './context.ts';
import type { OrgHandle } from './handles.ts';
import { requestFor } from './requests.ts';
import { inFreshWindow } from './fresh-window.ts';
import { inBatches, straddlingFirstBatch, underCap } from './batches.ts';
import { EXTRA_AFTER_LIMIT, limitToTest } from './announced-limit.ts';
import { watchRestOfWindow } from './watch.ts';

export function ingestTask(org: OrgHandle, variant: 'single' | 'bulk'): Task {
  const name = `ingest-${variant} ${org.label}`;
  const checks = variant === 'single' ? [{ id: 'QUOTA-INGEST', variant } as const, { id: 'HDR-LIMIT', variant: 'ingest' } as const] : [{ id: 'QUOTA-INGEST', variant } as const];
  return {
    name,
    tier: org.tier,
    org: org.label,
    consumes: 'ingest',
    run: (context) =>
      inFreshWindow(context, org, { name, checks, quotaClass: 'ingest' }, async (window) => {
        const tier = context.contract.tiers[org.tier];
        const edge = context.prober.edges[0]!;
        const tags = { check: 'QUOTA-INGEST', phase: variant, tier: org.tier, org: org.label } as const;
        const startedWall = context.io.clock.now();
        const started = context.prober.now();
        let sent: Observation[];
        let unitsPerRequest = 1;
        let later: Observation[] = [];
        if (variant === 'single') {
          const endpoint = endpointById(context.contract, 'resume-analysis');
          const upload = () => context.prober.send(edge, requestFor(endpoint, org.primary.key), tags);
          // The first upload alone announces the Limit to aim at (Enterprise figures are minimums).
          const first = await upload();
          const limit = limitToTest(tier.ingest, first);
          const batch = underCap(tier.concurrency.value);
          const rest = await inBatches(limit + EXTRA_AFTER_LIMIT, batch, upload, context.signal, straddlingFirstBatch(limit, batch, 1));
          sent = [first, ...rest];
        } else {
          const endpoint = endpointById(context.contract, 'resume-analysis-bulk');
          // A deployment that declares bulk uploads counted per request is judged so (assumption bulk-counts-per-resume).
          const perRequest = context.declared['bulk-counts-per-resume'] === false;
          const resumes = bulkSize(tier.ingest.value);
          unitsPerRequest = perRequest ? 1 : resumes;
          const upload = () => context.prober.send(edge, requestFor(endpoint, org.primary.key, resumes), tags);
          sent = [await upload()];
          const limit = limitToTest(tier.ingest, sent[0]);
          for (let used = unitsPerRequest; used <= limit && !context.signal.aborted; used += unitsPerRequest) {
            sent.push(await upload());
          }
          // No lucky pass: single uploads (one unit each) over the rest of the window.
          const single = endpointById(context.contract, 'resume-analysis');
          if (sent.some((o) => o.status === context.contract.statuses.rateLimited)) {
            later = await watchRestOfWindow(context, { first: sent[0]!, window, again: () => context.prober.send(edge, requestFor(single, org.primary.key), { ...tags, phase: 'after-429' }) });
          }
        }
        const at = (v: string) => ({ tier: org.tier, org: org.label, variant: v, startedWall, durationMs: context.prober.now() - started });
        const results: CheckResult[] = [
          checkResult(
            'QUOTA-INGEST',
            quotaExactVerdict(sent, {
              figure: tier.ingest,
              quotaClass: 'ingest',
              // Uploads inside a batch race each other, so the single variant is judged as a burst.
              variant: variant === 'single' ? 'burst' : 'sequential',
              window,
              unitsPerRequest,
              later,
            }),
            at(variant),
          ),
        ];
        if (variant === 'single') results.push(checkResult('HDR-LIMIT', limitHeaderVerdict(sent, tier.ingest, 'ingest'), at('ingest')));
        return results;
      }),
  };
}

/** The largest divisor of `limit` up to 10 and at most half of it, so whole batches fill it exactly. */
export function bulkSize(limit: number): number {
  for (let size = Math.min(10, Math.floor(limit / 2)); size > 1; size--) if (limit % size === 0) return size;
  return 1;
}
