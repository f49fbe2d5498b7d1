/**
 * One window on one org, sequential reads up to and past the quota. Its observations decide
 * QUOTA-READ (sequential), HDR-REMAINING, HDR-LIMIT (read), HDR-RESET, ERR-429-BODY and ORG-SHARED.
 * After the 429: the second key (ORG-SHARED), the first key again (the bracket: its window still in
 * force), a read of another route (one read quota per organization), and a few reads spread over the
 * rest of the window (no lucky pass: a quota that refills shows here). Then it waits out Retry-After
 * for RETRY-AFTER.
 */
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { sleep } from '../util/sleep.ts';
import type { Observation } from '../measure/observation.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { OrgHandle } from '../contract/handles.ts';
import { requestFor } from '../measure/requests.ts';
import { inFreshWindow, plannedLatencyMs } from '../suite/fresh-window.ts';
import { sendPastLimit, type SentSeries } from '../suite/announced-limit.ts';
import { seriesShape } from '../suite/series-shape.ts';
import { underCap } from '../suite/batches.ts';
import { warmForSeries } from '../suite/warm.ts';
import { isQuotaRefusal, uncountedTogether } from '../verdicts/support/released-together.ts';
import { watchRestOfWindow } from '../suite/watch.ts';
import { announcedWaitS } from '../measure/reset-format.ts';
import { defineTask, inconclusiveFinding, skippedFinding, type RoundTrips, type TaskRun } from '../suite/task.ts';
import type { WindowContext } from '../measure/window.ts';
import type { Finding } from '../catalogue/types.ts';
import { because } from '../catalogue/reasons/index.ts';

/** After the first, the series to Limit and past it (its bulk together where it cannot fit one at a time). */
const seriesRounds: RoundTrips = (limit, batch, planning) =>
  seriesShape({ left: limit - 1, batch, ...planning }).rounds;

export const readSequential = defineTask({
  kind: 'read-sequential',
  decides: {
    'QUOTA-READ': 'sequential',
    'HDR-REMAINING': '',
    'HDR-LIMIT': 'read',
    'HDR-RESET': '',
    'ERR-429-BODY': '',
    'ORG-SHARED': '',
    'RETRY-AFTER': '',
  },
  consumes: 'read',
  orgs: 1,
  placement: 'lane',
  rounds: seriesRounds,
  lastRequestOpens: 'read',
  describe:
    'reads to Limit and past it, one at a time (where they cannot fit half a window so, a bulk together and a tail one at a time from two before the Limit); the second key, the rest of the window, then Retry-After waited out',
  run: (context, task) => {
    const org = task.orgs[0]!;
    const endpoint = endpointById(context.contract, 'jobs-list');
    const edge = context.prober.edges[0]!;
    const tags = { check: 'QUOTA-READ', phase: 'sequential', tier: org.tier, org: org.label } as const;
    const read = () => context.prober.send(edge, requestFor(endpoint, org.primary.key), tags);
    return inFreshWindow(context, task, 'read', { first: read }, async (window, first) => {
      const figure = figuresOf(context.contract, org).read;
      const { sent, limit, together } = await sendSeries(context, task, { first, window, read });
      const refusals = sent.filter(isQuotaRefusal(together));
      const exhausted = refusals.length > 0;
      const shared =
        org.secondary && exhausted
          ? await context.prober.send(edge, requestFor(endpoint, org.secondary.key), { ...tags, check: 'ORG-SHARED' })
          : null;
      const watched = exhausted
        ? await watchRestOfWindow(context, {
            first: sent[0]!,
            window,
            again: () =>
              context.prober.send(edge, requestFor(endpoint, org.primary.key), { ...tags, phase: 'after-429' }),
            otherRoute: () =>
              context.prober.send(edge, requestFor(endpointById(context.contract, 'scope-list'), org.primary.key), {
                ...tags,
                phase: 'other-route',
              }),
          })
        : { later: [], otherRoute: null };
      const { later, otherRoute } = watched;
      // The checks' time is the window's traffic; the Retry-After wait that follows is RETRY-AFTER's evidence, not their span.
      task.end();
      // A cap's refusal among the bulk is not §7's quota refusal: ERR-429-BODY and RETRY-AFTER judge the quota's.
      const lastRejected =
        [...refusals, ...later.filter((o) => o.status === context.contract.statuses.rateLimited)].at(-1) ?? null;
      const retry = lastRejected ? await waitOutRetryAfter(context, org, lastRejected) : null;
      return {
        'QUOTA-READ': context.judgements.judge('quotaExactVerdict', sent, {
          figure,
          quotaClass: 'read',
          variant: 'sequential',
          window,
          later,
          otherRoute,
          together,
        }),
        'HDR-REMAINING': context.judgements.judge('remainingDecrementsVerdict', sent, window, together),
        'HDR-LIMIT': context.judgements.judge('limitHeaderVerdict', sent, figure, 'read', window.lengthMs / 1000),
        'HDR-RESET': context.judgements.judge(
          'resetEpochVerdict',
          [...sent, ...later],
          window.lengthMs / 1000,
          window,
          together,
        ),
        'ERR-429-BODY': context.judgements.judge('rateLimitBodyVerdict', refusals),
        'ORG-SHARED': orgSharedDecision(context, org, { sent, together, shared, later, limit, window }),
        'RETRY-AFTER':
          lastRejected && retry
            ? context.judgements.judge('retryAfterVerdict', {
                rejected: lastRejected,
                ...retry,
                windowSeconds: window.lengthMs / 1000,
              })
            : inconclusiveFinding(
                'a 429 to take Retry-After from',
                because('never-refused', { sent: sent.length }),
                sent.slice(-1).map((o) => o.id),
              ),
      };
    });
  },
});

/** ORG-SHARED: the second key after the first one's 429, where there is a second key and a 429. */
function orgSharedDecision(
  context: SuiteContext,
  org: OrgHandle,
  series: Omit<SentSeries, 'shape'> & {
    readonly shared: Observation | null;
    readonly later: readonly Observation[];
    readonly window: WindowContext;
  },
): Finding {
  const { sent, together, shared, later, limit, window } = series;
  if (shared)
    return context.judgements.judge('orgSharedVerdict', {
      // A cap's refusal among the bulk did not use the quota up: the quota's 429 did.
      keyA: sent.filter((o, i) => !uncountedTogether(together, o, i)),
      keyB: shared,
      keyAAgain: later[0] ?? null,
      limit,
      window,
      refilling: context.profileOf(org.tier)?.read.algorithm.value === 'refilling',
    });
  return org.secondary
    ? inconclusiveFinding(
        'the first key rejected, then the second key tried',
        because('never-refused', { sent: sent.length }),
        sent.slice(-1).map((o) => o.id),
      )
    : skippedFinding(because('no-second-key', {}));
}

/** The series past the Limit, shaped by the round trip the task's window was planned by (suite/series-shape.ts). */
function sendSeries(
  context: SuiteContext,
  task: TaskRun,
  series: { readonly first: Observation; readonly window: WindowContext; readonly read: () => Promise<Observation> },
): Promise<SentSeries> {
  const figures = figuresOf(context.contract, task.orgs[0]!);
  const roundTripMs = plannedLatencyMs(context, task, 'read');
  return sendPastLimit(figures.read, series.first, series.read, context.signal, {
    spent: series.window.prior.length,
    warm: (together) => warmForSeries(context, together),
    shapeFor: (left) =>
      seriesShape({
        left,
        batch: underCap(figures.concurrency.value),
        roundTripMs,
        windowMs: context.windowMs,
        bulk: task.scenario.quota.bulk ?? 'auto',
      }),
  });
}

/** Wait as told (header, else body), bounded by a window and a second, then try once (twice where the first got no answer). */
async function waitOutRetryAfter(
  context: SuiteContext,
  org: OrgHandle,
  rejected: Observation,
): Promise<{ afterWait: Observation | null; waitedMs: number | null }> {
  const told = announcedWaitS(rejected);
  if (told === null || told * 1000 > context.windowMs + 1000) return { afterWait: null, waitedMs: null };
  const receivedAt = rejected.headersAt ?? rejected.doneAt;
  // A timer may fire a millisecond early against the monotonic clock: wait a little past the time
  // told, as a client adding jitter would (§7 rule 2).
  const waitMs = Math.max(0, receivedAt + told * 1000 + context.network.margins().waitOutMs - context.prober.now());
  await sleep(waitMs, context.signal);
  if (context.signal.aborted) return { afterWait: null, waitedMs: null };
  const endpoint = endpointById(context.contract, 'jobs-list');
  const retry = () =>
    context.prober.send(context.prober.edges[0]!, requestFor(endpoint, org.primary.key), {
      check: 'RETRY-AFTER',
      phase: 'after-retry-after',
      tier: org.tier,
      org: org.label,
    });
  // A retry lost on the way (no answer) tells nothing: as a client would, try once more.
  let afterWait = await retry();
  if (afterWait.status === null && !context.signal.aborted) afterWait = await retry();
  // The wait is what elapsed before the retry was sent, not including the retry's own round trip.
  return { afterWait, waitedMs: afterWait.sentAt - receivedAt };
}
