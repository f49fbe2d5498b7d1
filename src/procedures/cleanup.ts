/**
 * The end of a run that wrote (config `writes: own`): each job the run created is archived through
 * the API (§4: PUT /recruiter/jobs/:id updates or archives), with the key of its organization. A
 * webhook subscription has no call to undo it in the spec: the config's cleanup hook removes it
 * where there is one; else it stays in the ledger as left behind.
 */
import { endpointById } from '../contract/lookup.ts';
import { isAdmitted } from '../measure/observation.ts';
import type { SuiteContext } from './context.ts';
import { archiveRequest, webhookUrl } from './requests.ts';

export async function cleanUpCreated(context: SuiteContext): Promise<void> {
  const update = endpointById(context.contract, 'jobs-update');
  for (const resource of context.created.all()) {
    if (context.signal.aborted) return;
    if (resource.kind === 'webhook') {
      if (context.removeWebhook && (await context.removeWebhook(resource, webhookUrl(context.runId)))) context.created.markCleanedUp(resource);
      continue;
    }
    if (resource.id === null) continue;
    const org = context.orgs.find((o) => o.label === resource.org);
    if (!org) continue;
    const answer = await context.prober.send(context.prober.edges[0]!, archiveRequest(update, org.primary.key, resource.id), {
      check: 'CLEANUP',
      phase: 'archive',
      tier: resource.tier,
      org: resource.org,
    });
    if (isAdmitted(answer)) context.created.markCleanedUp(resource);
  }
}
