/**
 * QUOTA-INGEST in two variants, each in a window of its own:
 * 'single' uploads resumes one per request, in batches under the cap (the parse takes time);
 * 'bulk' sends bulk uploads whose resumes add up to Limit, and one more, in batches under the cap, judged
 * in resumes (assumption bulk-counts-per-resume). Uploads lost on the way are made up once, so that the
 * server still sees one past the Limit.
 * HDR-LIMIT for the ingest class comes from the single variant.
 */
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import type { Observation } from '../measure/observation.ts';
import type { WindowContext } from '../measure/window.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { requestFor } from '../measure/requests.ts';
import { inFreshWindow } from '../suite/fresh-window.ts';
import { batchPlan, inBatchesMakingUpLost, underCap } from '../suite/batches.ts';
import { warmForSeries } from '../suite/warm.ts';
import { uploadsToTest } from '../suite/announced-limit.ts';
import { EXTRA_AFTER_LIMIT } from '../suite/series-shape.ts';
import { watchRestOfWindow } from '../suite/watch.ts';
import { defineTask, type RoundTrips } from '../suite/task.ts';

/** After the first upload, Limit and a few more a batch at a time, the first past the Limit among them being #Limit. */
const singlesPlan = (limit: number, batch: number) => batchPlan(limit + EXTRA_AFTER_LIMIT, batch, limit);
const singlesInBatches: RoundTrips = (limit, batch) => singlesPlan(limit, batch).batches;
/** After the first, bulk uploads to Limit in resumes and one more, a batch at a time. */
const bulkPlan = (admissible: number, batch: number) => batchPlan(admissible, batch, admissible);
const bulkInBatches: RoundTrips = (limit, batch) => bulkPlan(Math.floor(limit / bulkSize(limit)), batch).batches;

export const ingestSingle = defineTask({
  kind: 'ingest-single',
  decides: { 'QUOTA-INGEST': 'single', 'HDR-LIMIT': 'ingest' },
  consumes: 'ingest',
  uploads: true,
  orgs: 1,
  placement: 'lane',
  rounds: singlesInBatches,
  describe: 'resumes uploaded one per request, in batches under the concurrency cap, to Limit and past it',
  run: (context, task) => {
    const org = task.orgs[0]!;
    const upload = singleUpload(context, org);
    const uploads = endpointById(context.contract, 'resume-analysis').path;
    return inFreshWindow(context, task, 'ingest', { first: upload, uploads }, async (window, first) => {
      const figure = figuresOf(context.contract, org).ingest;
      const sent = await uploadSinglesAfter(context, org, first, upload);
      return {
        // Uploads inside a batch race each other, so the single variant is judged as a burst.
        'QUOTA-INGEST': context.judgements.judge('quotaExactVerdict', sent, {
          figure,
          quotaClass: 'ingest',
          variant: 'burst',
          window,
          unitsPerRequest: 1,
          later: [],
        }),
        'HDR-LIMIT': context.judgements.judge('limitHeaderVerdict', sent, figure, 'ingest', window.lengthMs / 1000),
      };
    });
  },
});

export const ingestBulk = defineTask({
  kind: 'ingest-bulk',
  decides: { 'QUOTA-INGEST': 'bulk' },
  consumes: 'ingest',
  uploads: true,
  orgs: 1,
  placement: 'lane',
  rounds: bulkInBatches,
  describe:
    'bulk uploads whose resumes add up to Limit, and one more, in batches under the concurrency cap; single uploads over the rest of the window',
  run: (context, task) => {
    const org = task.orgs[0]!;
    const bulk = bulkUpload(context, org);
    const uploads = endpointById(context.contract, 'resume-analysis-bulk').path;
    return inFreshWindow(
      context,
      task,
      'ingest',
      { first: bulk.send, units: bulk.units, uploads },
      async (window, first) => {
        const { sent, later } = await uploadBulkAfter(context, org, window, first, bulk);
        const figure = figuresOf(context.contract, org).ingest;
        // Uploads inside a batch race each other: judged as a burst, in resumes.
        return {
          'QUOTA-INGEST': context.judgements.judge('quotaExactVerdict', sent, {
            figure,
            quotaClass: 'ingest',
            variant: 'burst',
            window,
            unitsPerRequest: bulk.unitsPerRequest,
            later,
          }),
        };
      },
    );
  },
});

const ingestTags = (org: OrgHandle, variant: 'single' | 'bulk') =>
  ({ check: 'QUOTA-INGEST', phase: variant, tier: org.tier, org: org.label }) as const;

function singleUpload(context: SuiteContext, org: OrgHandle): () => Promise<Observation> {
  const edge = context.prober.edges[0]!;
  const endpoint = endpointById(context.contract, 'resume-analysis');
  return () =>
    context.prober.send(
      edge,
      requestFor(endpoint, org.primary.key, { runId: context.runId }),
      ingestTags(org, 'single'),
    );
}

/** After the first upload (it announced the Limit to aim at: Enterprise figures are minimums), the rest in batches. */
async function uploadSinglesAfter(
  context: SuiteContext,
  org: OrgHandle,
  first: Observation,
  upload: () => Promise<Observation>,
): Promise<Observation[]> {
  const tier = figuresOf(context.contract, org);
  const limit = uploadsToTest(tier.ingest, first);
  const batch = underCap(tier.concurrency.value);
  await warmForSeries(context, batch);
  const rest = await inBatchesMakingUpLost(
    limit + EXTRA_AFTER_LIMIT,
    batch,
    upload,
    context.signal,
    singlesPlan(limit, batch).firstBatch,
  );
  return [first, ...rest];
}

interface BulkUpload {
  readonly send: () => Promise<Observation>;
  /** Units each upload is judged to count: its resumes, or one where the deployment declares so. */
  readonly unitsPerRequest: number;
  /** What the first upload may show counted (by its Remaining): either reading until one is proven. */
  readonly units: readonly number[];
}

function bulkUpload(context: SuiteContext, org: OrgHandle): BulkUpload {
  const tier = figuresOf(context.contract, org);
  const edge = context.prober.edges[0]!;
  const endpoint = endpointById(context.contract, 'resume-analysis-bulk');
  // A deployment that declares bulk uploads counted per request is judged so (assumption bulk-counts-per-resume).
  const perRequest = context.declared['bulk-counts-per-resume'] === false;
  const resumes = bulkSize(tier.ingest.value);
  return {
    send: () =>
      context.prober.send(
        edge,
        requestFor(endpoint, org.primary.key, { runId: context.runId, resumes }),
        ingestTags(org, 'bulk'),
      ),
    unitsPerRequest: perRequest ? 1 : resumes,
    units: perRequest ? [1] : [resumes, 1],
  };
}

async function uploadBulkAfter(
  context: SuiteContext,
  org: OrgHandle,
  window: WindowContext,
  first: Observation,
  bulk: BulkUpload,
): Promise<{ sent: Observation[]; later: readonly Observation[] }> {
  const tier = figuresOf(context.contract, org);
  // As many uploads as the Limit holds (the first among them), and one more; in batches under the cap,
  // the batch holding the last admissible one holding the one past it too.
  const admissible = Math.floor(uploadsToTest(tier.ingest, first) / bulk.unitsPerRequest);
  const batch = underCap(tier.concurrency.value);
  await warmForSeries(context, batch);
  const sent = [
    first,
    ...(await inBatchesMakingUpLost(
      admissible,
      batch,
      bulk.send,
      context.signal,
      bulkPlan(admissible, batch).firstBatch,
    )),
  ];
  // No lucky pass: single uploads (one unit each) over the rest of the window.
  const edge = context.prober.edges[0]!;
  const single = endpointById(context.contract, 'resume-analysis');
  const later = sent.some((o) => o.status === context.contract.statuses.rateLimited)
    ? (
        await watchRestOfWindow(context, {
          first,
          window,
          again: () =>
            context.prober.send(edge, requestFor(single, org.primary.key, { runId: context.runId }), {
              ...ingestTags(org, 'bulk'),
              phase: 'after-429',
            }),
        })
      ).later
    : [];
  return { sent, later };
}

/** The largest divisor of `limit` up to 10 and at most half of it, so whole batches fill it exactly. */
export function bulkSize(limit: number): number {
  for (let size = Math.min(10, Math.floor(limit / 2)); size > 1; size--) if (limit % size === 0) return size;
  return 1;
}
