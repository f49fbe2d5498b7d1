/**
 * QUOTA-INGEST in two variants, each in a window of its own:
 * 'single' uploads resumes one per request, in batches under the cap (the parse takes time);
 * 'bulk' sends equal batches that add up to Limit, then one more (assumption bulk-counts-per-resume).
 * HDR-LIMIT for the ingest class comes from the single variant.
 */
import { endpointById } from '../contract/lookup.ts';
import { quotaExactVerdict } from '../verdicts/quota-read-ingest.ts';
import { limitHeaderVerdict } from '../verdicts/hdr-limit.ts';
import type { Observation } from '../measure/observation.ts';
import type { WindowContext } from '../measure/window.ts';
import type { SuiteContext } from './context.ts';
import type { OrgHandle } from './handles.ts';
import { requestFor } from './requests.ts';
import { inFreshWindow, type RoundTrips } from './fresh-window.ts';
import { inBatches, straddlingFirstBatch, underCap } from './batches.ts';
import { EXTRA_AFTER_LIMIT, limitToTest } from './announced-limit.ts';
import { watchRestOfWindow } from './watch.ts';
import { defineTask } from './task.ts';

/** One upload alone, then Limit and a few more a batch at a time. */
const singlesInBatches: RoundTrips = (limit, batch) => 1 + Math.ceil((limit + EXTRA_AFTER_LIMIT) / batch);
/** Bulk uploads one after another to Limit in resumes, and one more. */
const bulkOneByOne: RoundTrips = (limit) => Math.ceil(limit / bulkSize(limit)) + 2;

export const ingestSingle = defineTask({
  kind: 'ingest-single',
  decides: { 'QUOTA-INGEST': 'single', 'HDR-LIMIT': 'ingest' },
  consumes: 'ingest',
  orgs: 1,
  placement: 'lane',
  describe: 'resumes uploaded one per request, in batches under the concurrency cap, to Limit and past it',
  run: (context, task) => {
    const org = task.orgs[0]!;
    return inFreshWindow(context, task, 'ingest', async (window) => {
      const figure = context.contract.tiers[org.tier].ingest;
      const sent = await uploadSingles(context, org);
      return {
        // Uploads inside a batch race each other, so the single variant is judged as a burst.
        'QUOTA-INGEST': quotaExactVerdict(sent, { figure, quotaClass: 'ingest', variant: 'burst', window, unitsPerRequest: 1, later: [] }),
        'HDR-LIMIT': limitHeaderVerdict(sent, figure, 'ingest'),
      };
    }, singlesInBatches);
  },
});

export const ingestBulk = defineTask({
  kind: 'ingest-bulk',
  decides: { 'QUOTA-INGEST': 'bulk' },
  consumes: 'ingest',
  orgs: 1,
  placement: 'lane',
  describe: 'bulk uploads whose resumes add up to Limit, then one more; single uploads over the rest of the window',
  run: (context, task) => {
    const org = task.orgs[0]!;
    return inFreshWindow(context, task, 'ingest', async (window) => {
      const { sent, unitsPerRequest, later } = await uploadBulk(context, org, window);
      const figure = context.contract.tiers[org.tier].ingest;
      return { 'QUOTA-INGEST': quotaExactVerdict(sent, { figure, quotaClass: 'ingest', variant: 'sequential', window, unitsPerRequest, later }) };
    }, bulkOneByOne);
  },
});

const ingestTags = (org: OrgHandle, variant: 'single' | 'bulk') => ({ check: 'QUOTA-INGEST', phase: variant, tier: org.tier, org: org.label }) as const;

async function uploadSingles(context: SuiteContext, org: OrgHandle): Promise<Observation[]> {
  const tier = context.contract.tiers[org.tier];
  const edge = context.prober.edges[0]!;
  const endpoint = endpointById(context.contract, 'resume-analysis');
  const upload = () => context.prober.send(edge, requestFor(endpoint, org.primary.key), ingestTags(org, 'single'));
  // The first upload alone announces the Limit to aim at (Enterprise figures are minimums).
  const first = await upload();
  const limit = limitToTest(tier.ingest, first);
  const batch = underCap(tier.concurrency.value);
  const rest = await inBatches(limit + EXTRA_AFTER_LIMIT, batch, upload, context.signal, straddlingFirstBatch(limit, batch, 1));
  return [first, ...rest];
}

async function uploadBulk(
  context: SuiteContext,
  org: OrgHandle,
  window: WindowContext,
): Promise<{ sent: Observation[]; unitsPerRequest: number; later: Observation[] }> {
  const tier = context.contract.tiers[org.tier];
  const edge = context.prober.edges[0]!;
  const tags = ingestTags(org, 'bulk');
  const endpoint = endpointById(context.contract, 'resume-analysis-bulk');
  // A deployment that declares bulk uploads counted per request is judged so (assumption bulk-counts-per-resume).
  const perRequest = context.declared['bulk-counts-per-resume'] === false;
  const resumes = bulkSize(tier.ingest.value);
  const unitsPerRequest = perRequest ? 1 : resumes;
  const upload = () => context.prober.send(edge, requestFor(endpoint, org.primary.key, resumes), tags);
  const sent = [await upload()];
  const limit = limitToTest(tier.ingest, sent[0]);
  for (let used = unitsPerRequest; used <= limit && !context.signal.aborted; used += unitsPerRequest) {
    sent.push(await upload());
  }
  // No lucky pass: single uploads (one unit each) over the rest of the window.
  const single = endpointById(context.contract, 'resume-analysis');
  const later = sent.some((o) => o.status === context.contract.statuses.rateLimited)
    ? await watchRestOfWindow(context, { first: sent[0]!, window, again: () => context.prober.send(edge, requestFor(single, org.primary.key), { ...tags, phase: 'after-429' }) })
    : [];
  return { sent, unitsPerRequest, later };
}

/** The largest divisor of `limit` up to 10 and at most half of it, so whole batches fill it exactly. */
export function bulkSize(limit: number): number {
  for (let size = Math.min(10, Math.floor(limit / 2)); size > 1; size--) if (limit % size === 0) return size;
  return 1;
}
