/** Per-organization jobs and webhooks: what the job and webhook endpoints read and change. */
import { randomId } from './key-material.ts';
import {
  candidate,
  DEFAULT_STAGES,
  SAMPLE_CANDIDATES,
  SAMPLE_JOBS,
  type Candidate,
  type Criterion,
  type Job,
  type JobStatus,
  type Stage,
} from './samples.ts';

/** Bounded memory under load: beyond these, the oldest created record is dropped. */
export const MAX_CREATED_JOBS = 200;
export const MAX_WEBHOOKS = 100;
export const MAX_CANDIDATES = 100;

export interface JobInput {
  readonly title: string;
  readonly status?: JobStatus | undefined;
  readonly department?: string | null | undefined;
  readonly location?: string | null | undefined;
  readonly stages?: readonly string[] | undefined;
  readonly criteria?: readonly { readonly name: string; readonly weight?: number | undefined }[] | undefined;
}

export type JobPatch = Partial<JobInput>;

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly active: boolean;
  readonly created_at: string;
}

interface OrgRecords {
  readonly jobs: Map<string, Job>;
  readonly webhooks: Map<string, Webhook>;
  /** Candidates the admin API gave the organization (the sample ones are every organization's). */
  readonly candidates: Map<string, Candidate>;
  /** Cached `{status, data}` JSON of the job list (the hot read path). */
  jobsJson: string | null;
}

function stagesOf(names: readonly string[]): Stage[] {
  return names.map((name, i) => ({ id: `stage-${i + 1}`, name, order: i + 1 }));
}

function criteriaOf(items: JobInput['criteria']): Criterion[] {
  const list = items ?? [];
  return list.map((c, i) => ({ id: `crit-${i + 1}`, name: c.name, weight: c.weight ?? 1 / list.length }));
}

function dropOldest<V>(map: Map<string, V>, max: number, keep: (key: string) => boolean): void {
  if (map.size <= max) return;
  for (const key of map.keys()) {
    if (keep(key)) continue;
    map.delete(key);
    if (map.size <= max) return;
  }
}

const isSample = (id: string) => SAMPLE_JOBS.some((j) => j.id === id);

export class OrgData {
  readonly #orgs = new Map<string, OrgRecords>();

  #records(orgId: string): OrgRecords {
    let records = this.#orgs.get(orgId);
    if (!records) {
      records = {
        jobs: new Map(SAMPLE_JOBS.map((j) => [j.id, j])),
        webhooks: new Map(),
        candidates: new Map(),
        jobsJson: null,
      };
      this.#orgs.set(orgId, records);
    }
    return records;
  }

  jobsJson(orgId: string): string {
    const records = this.#records(orgId);
    records.jobsJson ??= JSON.stringify({ status: 'success', data: [...records.jobs.values()] });
    return records.jobsJson;
  }

  createJob(orgId: string, input: JobInput, now: number): Job {
    const records = this.#records(orgId);
    const at = new Date(now).toISOString();
    const job: Job = {
      id: randomId('job'),
      title: input.title,
      status: input.status ?? 'draft',
      department: input.department ?? null,
      location: input.location ?? null,
      stages: input.stages ? stagesOf(input.stages) : DEFAULT_STAGES,
      criteria: criteriaOf(input.criteria),
      created_at: at,
      updated_at: at,
    };
    records.jobs.set(job.id, job);
    dropOldest(records.jobs, SAMPLE_JOBS.length + MAX_CREATED_JOBS, isSample);
    records.jobsJson = null;
    return job;
  }

  /** The updated job, or null when the org has no such job. Archiving is `status: "archived"`. */
  updateJob(orgId: string, id: string, patch: JobPatch, now: number): Job | null {
    const records = this.#records(orgId);
    const job = records.jobs.get(id);
    if (!job) return null;
    const updated: Job = {
      ...job,
      title: patch.title ?? job.title,
      status: patch.status ?? job.status,
      department: patch.department === undefined ? job.department : patch.department,
      location: patch.location === undefined ? job.location : patch.location,
      stages: patch.stages ? stagesOf(patch.stages) : job.stages,
      criteria: patch.criteria ? criteriaOf(patch.criteria) : job.criteria,
      updated_at: new Date(now).toISOString(),
    };
    records.jobs.set(id, updated);
    records.jobsJson = null;
    return updated;
  }

  webhooks(orgId: string): readonly Webhook[] {
    return [...this.#records(orgId).webhooks.values()];
  }

  /** The organization's jobs, webhook subscriptions and own candidates as they stand (the admin API's view). */
  snapshot(orgId: string): {
    readonly jobs: readonly Job[];
    readonly webhooks: readonly Webhook[];
    readonly candidates: readonly Candidate[];
  } {
    const records = this.#records(orgId);
    return {
      jobs: [...records.jobs.values()],
      webhooks: [...records.webhooks.values()],
      candidates: [...records.candidates.values()],
    };
  }

  /** A candidate of the organization's own (the admin API's), or a sample one; null when neither has the id. */
  candidate(orgId: string, id: string): Candidate | null {
    return this.#records(orgId).candidates.get(id) ?? SAMPLE_CANDIDATES.get(id) ?? null;
  }

  addCandidate(orgId: string, name: string): Candidate {
    const records = this.#records(orgId);
    const added = candidate(randomId('cand'), name, 'yes', 3);
    records.candidates.set(added.id, added);
    dropOldest(records.candidates, MAX_CANDIDATES, () => false);
    return added;
  }

  subscribe(orgId: string, url: string, events: readonly string[], now: number): Webhook {
    const records = this.#records(orgId);
    const hook: Webhook = { id: randomId('whk'), url, events, active: true, created_at: new Date(now).toISOString() };
    records.webhooks.set(hook.id, hook);
    dropOldest(records.webhooks, MAX_WEBHOOKS, () => false);
    return hook;
  }

  updateWebhook(
    orgId: string,
    id: string,
    patch: { url?: string | undefined; events?: readonly string[] | undefined; active?: boolean | undefined },
  ): Webhook | null {
    const records = this.#records(orgId);
    const hook = records.webhooks.get(id);
    if (!hook) return null;
    const updated: Webhook = {
      ...hook,
      url: patch.url ?? hook.url,
      events: patch.events ?? hook.events,
      active: patch.active ?? hook.active,
    };
    records.webhooks.set(id, updated);
    return updated;
  }
}
