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
import { inFreshWindow } from '../suite/fresh-window.ts';
import { sendPastLimit } from '../suite/announced-limit.ts';
import { watchRestOfWindow } from '../suite/watch.ts';
import { announcedWaitS } from '../measure/reset-format.ts';
import { defineTask, inconclusiveFinding, skippedFinding, type RoundTrips } from '../suite/task.ts';

/** After the first, reads one after another to Limit and one past it, then the second key. */
const oneByOne: RoundTrips = (limit) => limit + 1;

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
  rounds: oneByOne,
  lastRequestOpens: 'read',
  describe:
    'reads one at a time to Limit and past it; the second key, the rest of the window, then Retry-After waited out',
  run: (context, task) => {
    const org = task.orgs[0]!;
    const endpoint = endpointById(context.contract, 'jobs-list');
    const edge = context.prober.edges[0]!;
    const tags = { check: 'QUOTA-READ', phase: 'sequential', tier: org.tier, org: org.label } as const;
    const read = () => context.prober.send(edge, requestFor(endpoint, org.primary.key), tags);
    return inFreshWindow(context, task, 'read', { first: read }, async (window, first) => {
      const figure = figuresOf(context.contract, org).read;
      const { sent, limit } = await sendPastLimit(figure, first, read, context.signal, window.prior.length);
      const exhausted = sent.some((o) => o.status === context.contract.statuses.rateLimited);
      const shared =
        org.secondary && exhausted
          ? await context.prober.send(edge, requestFor(endpoint, org.secondary.key), { ...tags, check: 'ORG-SHARED' })
          : null;
      const later = exhausted
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
        : [];
      // The checks' time is the window's traffic; the Retry-After wait that follows is RETRY-AFTER's evidence, not their span.
      task.end();
      const rejections = sent.filter((o) => o.status === context.contract.statuses.rateLimited);
      const lastRejected =
        [...rejections, ...later.filter((o) => o.status === context.contract.statuses.rateLimited)].at(-1) ?? null;
      const retry = lastRejected ? await waitOutRetryAfter(context, org, lastRejected) : null;
      return {
        'QUOTA-READ': context.judgements.judge('quotaExactVerdict', sent, {
          figure,
          quotaClass: 'read',
          variant: 'sequential',
          window,
          later,
        }),
        'HDR-REMAINING': context.judgements.judge('remainingDecrementsVerdict', sent, window),
        'HDR-LIMIT': context.judgements.judge('limitHeaderVerdict', sent, figure, 'read'),
        'HDR-RESET': context.judgements.judge('resetEpochVerdict', [...sent, ...later], window.lengthMs / 1000, window),
        'ERR-429-BODY': context.judgements.judge('rateLimitBodyVerdict', rejections),
        'ORG-SHARED': shared
          ? context.judgements.judge('orgSharedVerdict', {
              keyA: sent,
              keyB: shared,
              keyAAgain: later[0] ?? null,
              limit,
              window,
              refilling: context.profileOf(org.tier)?.read.algorithm.value === 'refilling',
            })
          : org.secondary
            ? inconclusiveFinding(
                'the first key rejected, then the second key tried',
                'the first key was never rejected',
                sent.slice(-1).map((o) => o.id),
              )
            : skippedFinding('no second key of this organization was configured'),
        'RETRY-AFTER':
          lastRejected && retry
            ? context.judgements.judge('retryAfterVerdict', {
                rejected: lastRejected,
                ...retry,
                windowSeconds: window.lengthMs / 1000,
              })
            : inconclusiveFinding(
                'a 429 to take Retry-After from',
                'no request was rejected',
                sent.slice(-1).map((o) => o.id),
              ),
      };
    });
  },
});

/** Past the time Retry-After gives, as a client adding jitter would (§7 rule 2). */
const RETRY_MARGIN_MS = 20;

/** Wait as told (header, else body), bounded by a window and a second, then try once (twice where the first got no answer). */
async function waitOutRetryAfter(
  context: SuiteContext,
  org: OrgHandle,
  rejected: Observation,
): Promise<{ afterWait: Observation | null; waitedMs: number | null }> {
  const told = announcedWaitS(rejected);
  if (told === null || told * 1000 > context.windowMs + 1000) return { afterWait: null, waitedMs: null };
  const receivedAt = rejected.headersAt ?? rejected.doneAt;
  // A timer may fire a millisecond early against the monotonic clock: wait a little past the time told.
  const waitMs = Math.max(0, receivedAt + told * 1000 + RETRY_MARGIN_MS - context.prober.now());
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
