/**
 * What a run actually wrote to the deployment, from its observations: per tier and endpoint of §4,
 * the writes sent (every method but GET and HEAD) and how many were admitted (2xx). The cleanup's
 * archives count too: they are writes.
 */
import type { Contract, HttpMethod, TierName } from '../contract/types.ts';
import { isAdmitted, type Observation } from './observation.ts';

export interface WrittenRow {
  readonly tier: TierName | null;
  /** `METHOD /path` as §4 writes it (`PUT /recruiter/jobs/:id`), or the path itself where no endpoint matches. */
  readonly endpoint: string;
  readonly sent: number;
  readonly admitted: number;
}

const READS: readonly HttpMethod[] = ['GET', 'HEAD'];

export class WriteTally {
  readonly #rows = new Map<string, { tier: TierName | null; endpoint: string; sent: number; admitted: number }>();
  readonly #patterns: readonly { readonly method: HttpMethod; readonly pattern: RegExp; readonly name: string }[];

  constructor(contract: Contract) {
    this.#patterns = contract.endpoints.map((e) => ({
      method: e.method,
      pattern: new RegExp(`^${e.path.replace(/:[a-z]+/g, '[^/]+')}$`),
      name: `${e.method} ${e.path}`,
    }));
  }

  observe(o: Observation): void {
    if (READS.includes(o.method)) return;
    const endpoint = this.#patterns.find((p) => p.method === o.method && p.pattern.test(o.path))?.name ?? `${o.method} ${o.path}`;
    const key = `${o.tier ?? ''}|${endpoint}`;
    const row = this.#rows.get(key) ?? { tier: o.tier, endpoint, sent: 0, admitted: 0 };
    row.sent += 1;
    if (isAdmitted(o)) row.admitted += 1;
    this.#rows.set(key, row);
  }

  rows(): WrittenRow[] {
    return [...this.#rows.values()].map((r) => ({ ...r }));
  }
}
