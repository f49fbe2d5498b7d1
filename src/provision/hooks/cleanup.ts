/**
 * The cleanup hook (config `cleanup.webhook`): a shell command that removes a webhook subscription
 * the run created, for which the spec gives no call. It gets the subscription in its environment,
 * TIERGATE_WEBHOOK_URL, TIERGATE_WEBHOOK_ID (empty where the deployment's answer named none) and
 * TIERGATE_ORG (the organization's name in the config); exit status 0 means removed. Its timeout
 * kills the whole process group, as every hook's does.
 */
import type { CreatedResource } from '../../results/types.ts';
import { runCommand } from './command.ts';
import type { Env } from './template.ts';

/** Removes one subscription; resolves true once the command exited 0. */
export function commandWebhookRemover(
  command: string,
  timeoutMs: number,
  env: Env,
): (webhook: CreatedResource, url: string) => Promise<boolean> {
  return async (webhook, url) => {
    const result = await runCommand(command, env, timeoutMs, {
      TIERGATE_WEBHOOK_URL: url,
      TIERGATE_WEBHOOK_ID: webhook.id ?? '',
      TIERGATE_ORG: webhook.org,
    });
    return result.code === 0;
  };
}
