/**
 * What a run that wrote (config `writes: own`) cleans up: each job it created is archived through
 * the API (§4: PUT /recruiter/jobs/:id updates or archives), with the key of its organization, as
 * soon as its scope check is done with it, and at the end of the run where that did not take. A
 * webhook subscription has no call to undo it in the spec: the config's cleanup hook removes it at
 * the end where there is one; else it stays in the ledger as left behind.
 */
import { endpointById } from '../contract/lookup.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import { waitOutRefusal } from './refusal-wait.ts';
import type { SuiteContext } from './context.ts';
import { archiveRequest, webhookUrl } from '../measure/requests.ts';
import type { CreatedResource } from '../results/types.ts';

export async function cleanUpCreated(context: SuiteContext): Promise<void> {
  for (const resource of context.created.all()) {
    if (context.signal.aborted) return;
    if (resource.cleanedUp) continue;
    if (resource.kind === 'job') await archiveJob(context, resource);
    else if (context.removeWebhook && (await context.removeWebhook(resource, webhookUrl(context.runId))))
      context.created.markCleanedUp(resource);
  }
}

/** Archives a job the run created (one whose id it knows), marking it cleaned up once admitted. */
export async function archiveJob(context: SuiteContext, job: CreatedResource): Promise<void> {
  const org = context.orgs.find((o) => o.label === job.org);
  if (job.kind !== 'job' || job.id === null || !org) return;
  const update = endpointById(context.contract, 'jobs-update');
  const archive = () =>
    context.prober.send(context.prober.edges[0]!, archiveRequest(update, org.primary.key, job.id!), {
      check: 'CLEANUP',
      phase: 'archive',
      tier: job.tier,
      org: job.org,
    });
  if (isAdmitted(await archiveOnce(context, archive))) context.created.markCleanedUp(job);
}

/**
 * One archive, sent again once where it met the organization's used-up quota (the checks spend it to
 * the end of a window: sent again when the wait it announced is over, a window at most) or got no
 * answer.
 */
async function archiveOnce(context: SuiteContext, archive: () => Promise<Observation>): Promise<Observation> {
  const first = await archive();
  if (context.signal.aborted || isAdmitted(first)) return first;
  // Refused otherwise (a 404, a 400): sending it again would be refused again.
  if (first.status !== null && first.status !== context.contract.statuses.rateLimited) return first;
  if (first.status !== null) await waitOutRefusal(context, first);
  return context.signal.aborted ? first : archive();
}
