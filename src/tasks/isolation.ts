/** ORG-ISOLATED: exhaust one org's read quota, then one read by another org of the tier must be untouched. */
import { endpointById } from '../contract/lookup.ts';
import { figuresOf } from '../contract/org-limits.ts';
import { requestFor } from '../measure/requests.ts';
import { inFreshWindow } from '../suite/fresh-window.ts';
import { OVER_ADMISSION_FACTOR, limitToTest } from '../suite/announced-limit.ts';
import { EXTRA_AFTER_LIMIT } from '../suite/series-shape.ts';
import { inBatches, underCap } from '../suite/batches.ts';
import { warmForSeries } from '../suite/warm.ts';
import { defineTask, type RoundTrips } from '../suite/task.ts';

/** After the first read, Limit and a few more a batch at a time, then the other organization and the bracket. */
const spendThenProbe: RoundTrips = (limit, batch) => Math.ceil((limit + EXTRA_AFTER_LIMIT) / batch) + 2;

export const isolation = defineTask({
  kind: 'isolation',
  decides: { 'ORG-ISOLATED': '' },
  consumes: 'read',
  orgs: 2,
  placement: 'joint',
  rounds: spendThenProbe,
  describe: "one organization's read quota spent, then one read by another organization of the tier",
  run: (context, task) => {
    const [exhausted, other] = [task.orgs[0]!, task.orgs[1]!];
    const endpoint = endpointById(context.contract, 'jobs-list');
    const edge = context.prober.edges[0]!;
    const tags = { check: 'ORG-ISOLATED', phase: 'exhaust', tier: exhausted.tier, org: exhausted.label } as const;
    const read = () => context.prober.send(edge, requestFor(endpoint, exhausted.primary.key), tags);
    // A window fresh on both organizations: the other's request must meet its own untouched quota.
    return inFreshWindow(context, task, 'read', { first: read }, async (window, first) => {
      const figures = figuresOf(context.contract, exhausted);
      const figure = figures.read;
      // Exhaust the quota quickly (in batches under the cap) so the check fits well inside one window.
      const limit = limitToTest(figure, first);
      const batch = underCap(figures.concurrency.value);
      await warmForSeries(context, batch);
      const sent = [first, ...(await inBatches(limit + EXTRA_AFTER_LIMIT, batch, read, context.signal))];
      // A server that gives quota back is read on to its first 429 (bounded, a batch at a time): the check needs one.
      while (
        !sent.some((o) => o.status === context.contract.statuses.rateLimited) &&
        sent.length < OVER_ADMISSION_FACTOR * limit &&
        !context.signal.aborted
      ) {
        const more = await inBatches(
          Math.min(batch, OVER_ADMISSION_FACTOR * limit - sent.length),
          batch,
          read,
          context.signal,
        );
        sent.push(...more);
        if (more.every((o) => o.status === null)) break;
      }
      const probe = await context.prober.send(edge, requestFor(endpoint, other.primary.key), {
        ...tags,
        phase: 'other-org',
        org: other.label,
      });
      // The bracket: the first organization again, still rejected, shows its window was in force.
      const again = await context.prober.send(edge, requestFor(endpoint, exhausted.primary.key), {
        ...tags,
        phase: 'after-other-org',
      });
      // Judged against its exact figure (published, or its own declared); only a minimum ("or more") defers to the announced Limit.
      const otherFigure = figuresOf(context.contract, other).read;
      const otherLimit = otherFigure.atLeast ? limitToTest(otherFigure, probe) : otherFigure.value;
      return {
        'ORG-ISOLATED': context.judgements.judge('orgIsolatedVerdict', {
          exhausted: sent,
          other: probe,
          exhaustedAgain: again,
          otherLimit,
          window,
        }),
      };
    });
  },
});
