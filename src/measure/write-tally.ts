/**
 * What a run actually wrote to the deployment, from its observations: per tier and endpoint of §4,
 * the writes sent (every method but GET and HEAD) and how many were admitted (2xx). The cleanup's
 * archives count too: they are writes.
 */
import type { Contract, EndpointId, HttpMethod, TierName } from '../contract/types.ts';
import { isAdmitted, type Observation } from './observation.ts';

/** What a run writes, counted per organization: resumes accepted (single and bulk), jobs created and changed, webhook subscriptions. */
export const FOOTPRINT_KINDS = ['resumes', 'jobs-created', 'jobs-changed', 'webhooks'] as const;
export type FootprintKind = (typeof FOOTPRINT_KINDS)[number];

/**
 * Resumes bounded by the ingest quota: `windows` windows of the ingest Limit, which the checks aim at
 * as the deployment announces it (the figure, or what it announces up to `maxFactor` times it), in
 * resumes (`resumesPerUnit` where bulk uploads count per request).
 */
export interface QuotaBound {
  readonly windows: number;
  readonly figure: number;
  readonly maxFactor: number;
  readonly resumesPerUnit: number;
}

/** What the plan said the run would write to one organization: exactly, or at most (a quota bound). */
export interface PlannedWrite {
  readonly tier: TierName;
  readonly org: string;
  readonly kind: FootprintKind;
  /** Before the run: by the figures; in results, by the Limit the deployment announced (`quota`). */
  readonly planned: number;
  readonly bound: 'exact' | 'at-most';
  /** Where part of the bound is the ingest quota's (the rest is exact: the scope check's, the discovery's attempts). */
  readonly quota?: QuotaBound;
}

/** A planned write beside what the observations show was done (admitted); planned 0 where the plan named none. */
export interface PlannedAndDone extends PlannedWrite {
  readonly done: number;
}

export interface WrittenRow {
  readonly tier: TierName | null;
  /** `METHOD /path` as §4 writes it (`PUT /recruiter/jobs/:id`), or the path itself where no endpoint matches. */
  readonly endpoint: string;
  readonly sent: number;
  readonly admitted: number;
}

const READS: readonly HttpMethod[] = ['GET', 'HEAD'];

/** The footprint's kind of each writing endpoint: what one admitted request of it did. */
const KIND_OF: Readonly<Partial<Record<EndpointId, FootprintKind>>> = {
  'resume-analysis': 'resumes',
  'resume-analysis-bulk': 'resumes',
  'jobs-create': 'jobs-created',
  'jobs-update': 'jobs-changed',
  webhooks: 'webhooks',
};

export class WriteTally {
  readonly #rows = new Map<string, { tier: TierName | null; endpoint: string; sent: number; admitted: number }>();
  /** Per organization, the highest ingest Limit its uploads' answers announced. */
  readonly #ingestLimit = new Map<string, number>();
  /** Per `org|kind`, what was admitted (resumes by what each upload carried). */
  readonly #done = new Map<string, { tier: TierName; org: string; kind: FootprintKind; done: number }>();
  readonly #patterns: readonly {
    readonly method: HttpMethod;
    readonly pattern: RegExp;
    readonly name: string;
    readonly kind: FootprintKind | undefined;
  }[];

  constructor(contract: Contract) {
    this.#patterns = contract.endpoints.map((e) => ({
      method: e.method,
      pattern: new RegExp(`^${e.path.replace(/:[a-z]+/g, '[^/]+')}$`),
      name: `${e.method} ${e.path}`,
      kind: KIND_OF[e.id],
    }));
  }

  observe(o: Observation): void {
    if (READS.includes(o.method)) return;
    const matched = this.#patterns.find((p) => p.method === o.method && p.pattern.test(o.path));
    const endpoint = matched?.name ?? `${o.method} ${o.path}`;
    const key = `${o.tier ?? ''}|${endpoint}`;
    const row = this.#rows.get(key) ?? { tier: o.tier, endpoint, sent: 0, admitted: 0 };
    row.sent += 1;
    if (isAdmitted(o)) row.admitted += 1;
    this.#rows.set(key, row);
    if (matched?.kind && isAdmitted(o) && o.tier !== null && o.org !== null)
      this.#count(o.tier, o.org, matched.kind, matched.kind === 'resumes' ? (o.resumes ?? 1) : 1);
    const limit = o.rateLimit.limit.value;
    if (matched?.kind === 'resumes' && o.org !== null && limit !== null)
      this.#ingestLimit.set(o.org, Math.max(limit, this.#ingestLimit.get(o.org) ?? 0));
  }

  #count(tier: TierName, org: string, kind: FootprintKind, n: number): void {
    const key = `${org}|${kind}`;
    const row = this.#done.get(key) ?? { tier, org, kind, done: 0 };
    row.done += n;
    this.#done.set(key, row);
  }

  /** Each planned row beside what was done, its quota bound taken at the Limit the deployment announced; what was done but not planned, as planned 0 (exact). */
  beside(planned: readonly PlannedWrite[]): PlannedAndDone[] {
    const rows = planned.map((p) => ({
      ...p,
      planned: this.#settled(p),
      done: this.#done.get(`${p.org}|${p.kind}`)?.done ?? 0,
    }));
    for (const d of this.#done.values()) {
      if (!planned.some((p) => p.org === d.org && p.kind === d.kind)) rows.push({ ...d, planned: 0, bound: 'exact' });
    }
    return rows;
  }

  /** A quota bound at the Limit the organization's uploads were answered with (within what the checks believe), never below the figure's. */
  #settled(p: PlannedWrite): number {
    if (!p.quota) return p.planned;
    const { windows, figure, maxFactor, resumesPerUnit } = p.quota;
    const limit = Math.max(figure, Math.min(this.#ingestLimit.get(p.org) ?? figure, figure * maxFactor));
    return p.planned + windows * (limit - figure) * resumesPerUnit;
  }

  rows(): WrittenRow[] {
    return [...this.#rows.values()].map((r) => ({ ...r }));
  }
}
