/**
 * What a run created on the deployment (README "What a run sends, writes and keeps"): the jobs its
 * scope checks created, which the cleanup archives, and the webhook subscriptions, which the spec
 * gives no call to remove and which are listed as left behind.
 */
import type { CreatedResource } from '../results/types.ts';

export class CreatedLedger {
  readonly #items: CreatedResource[] = [];

  add(resource: Omit<CreatedResource, 'cleanedUp'>): void {
    this.#items.push({ ...resource, cleanedUp: false });
  }

  markCleanedUp(resource: CreatedResource): void {
    const i = this.#items.indexOf(resource);
    if (i >= 0) this.#items[i] = { ...resource, cleanedUp: true };
  }

  all(): readonly CreatedResource[] {
    return [...this.#items];
  }
}
