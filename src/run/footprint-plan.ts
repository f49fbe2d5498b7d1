/**
 * The run's footprint, said before it starts (the dry run, the run's first lines, results.json): what
 * it will write to the deployment, per organization, under the config's `writes` policy. What the
 * scope check writes is exact (one job created, its update and archive, one subscription, one single
 * and one bulk resume). Uploads for the quota checks depend on where window boundaries fall, so they
 * are stated as the most the deployment's own quota lets it accept: n upload tasks on an organization
 * spend at most 2n + 1 windows' quota (the one under way when the first starts, each task's own, and
 * each measured again once), and the discovery one upload per attempt. The checks aim at the Limit
 * the deployment announces (up to 20 times the figure), so the bound is restated at that Limit once
 * the run has seen it; where bulk uploads count per request, a unit is a bulk upload's resumes. The
 * report sets each row beside what the observations show.
 */
import type { Contract, OrgLimits, TierName } from '../contract/types.ts';
import type { WritePolicy } from '../contract/writes.ts';
import { figuresOf } from '../contract/org-limits.ts';
import type { FootprintKind, PlannedWrite } from '../results/types.ts';
import type { QuotaBound } from '../measure/write-tally.ts';
import { MAX_LIMIT_FACTOR } from '../contract/org-limits.ts';
import { bulkSize } from '../tasks/ingest.ts';
import { TASKS } from '../tasks/registry.ts';
import { PAIR_ATTEMPTS } from '../profile/discover.ts';
import type { Plan, PlannedTask } from './plan.ts';

/** Windows n upload tasks on one organization may spend quota in: the one under way, then each task's own and one measured again. */
export const uploadWindows = (tasks: number) => 2 * tasks + 1;

/** What SCOPE-ENFORCED writes with its scoped key, each admitted once (a refused one is sent again, admitted once). */
const SCOPE_WRITES: readonly (readonly [FootprintKind, number])[] = [
  ['resumes', 2],
  ['jobs-created', 1],
  ['jobs-changed', 2],
  ['webhooks', 1],
];

type LimitsOf = (org: string) => Partial<OrgLimits> | undefined;

/** What the footprint is planned from besides the plan: the contract, organizations' own figures, and whether bulk uploads count per request (config assumptions). */
export interface FootprintInputs {
  readonly contract: Contract;
  readonly limitsOf?: LimitsOf;
  readonly bulkCountsPerRequest?: boolean;
  /** The revocation trials as they will run (trials, and at most this many at once); absent: said without figures. */
  readonly revocationTrials?: { readonly trials: number; readonly parallel: number };
}

/** Per organization and kind, what the run may write: exact for the scope check, a quota bound for uploads. */
export function planFootprint(plan: Plan, policy: WritePolicy, inputs: FootprintInputs): PlannedWrite[] {
  if (policy === 'none') return [];
  const rows = new Map<string, PlannedWrite>();
  const add = (
    tier: TierName,
    org: string,
    kind: FootprintKind,
    count: number,
    bound: PlannedWrite['bound'],
    quota?: QuotaBound,
  ) => {
    const key = `${org}|${kind}`;
    const before = rows.get(key);
    // A bound added to an exact figure is a bound.
    const atMost = before?.bound === 'at-most' || bound === 'at-most';
    const merged = quota ?? before?.quota;
    rows.set(key, {
      tier,
      org,
      kind,
      planned: (before?.planned ?? 0) + count,
      bound: atMost ? 'at-most' : 'exact',
      ...(merged ? { quota: merged } : {}),
    });
  };
  for (const tier of plan.tiers) {
    const uploadTasks = new Map<string, PlannedTask[]>();
    for (const task of [...tier.joint, ...Object.values(tier.lanes).flat()]) {
      const org = task.orgs[0]!;
      if (task.checks.includes('SCOPE-ENFORCED'))
        for (const [kind, count] of SCOPE_WRITES) add(tier.tier, org, kind, count, 'exact');
      if (TASKS[task.kind].uploads === true) uploadTasks.set(org, [...(uploadTasks.get(org) ?? []), task]);
    }
    for (const [org, tasks] of uploadTasks) {
      const figure = figuresOf(inputs.contract, { tier: tier.tier, limits: inputs.limitsOf?.(org) }).ingest.value;
      // Counted per request, a bulk upload spends one of the Limit and carries its resumes.
      const resumesPerUnit =
        inputs.bulkCountsPerRequest === true && tasks.some((t) => t.kind === 'ingest-bulk') ? bulkSize(figure) : 1;
      const quota: QuotaBound = {
        windows: uploadWindows(tasks.length),
        figure,
        maxFactor: MAX_LIMIT_FACTOR,
        resumesPerUnit,
      };
      add(tier.tier, org, 'resumes', quota.windows * figure * resumesPerUnit, 'at-most', quota);
    }
    if (tier.profile) add(tier.tier, tier.profile.org, 'resumes', PAIR_ATTEMPTS, 'at-most');
  }
  return [...rows.values()];
}

const KIND_TEXT: Readonly<Record<FootprintKind, string>> = {
  resumes: 'resumes accepted',
  'jobs-created': 'jobs created',
  'jobs-changed': 'job updates (its own job: updated, then archived)',
  webhooks: 'webhook subscriptions (left behind unless cleanup.webhook removes them)',
};

export const plannedWriteText = (row: Pick<PlannedWrite, 'kind' | 'planned' | 'bound'>) =>
  `${row.bound === 'at-most' ? 'at most ' : ''}${row.planned} ${KIND_TEXT[row.kind]}`;

/** The footprint as the dry run and a deployment run's first lines say it. */
export function plannedWrites(plan: Plan, policy: WritePolicy, inputs: FootprintInputs): string[] {
  const shape = inputs.revocationTrials;
  const keys = shape
    ? `at most ${shape.trials + shape.parallel} keys (one per trial, ${shape.trials} trials, and one more per chain of trials at once, at most ${shape.parallel})`
    : 'keys (one per trial, and one more per chain of trials at once)';
  const revocation = plan.revocation
    ? [
        `  revocation on ${plan.revocation.orgs.join(', ')}: ${keys} provisioned through your revocation hook, each revoked by the end (whatever the writes policy: the hooks are yours)`,
      ]
    : [];
  if (policy === 'none') {
    return [
      'writes: none (config): nothing is created or changed; the ingest and concurrency checks are skipped, and the scope checks send writes a body the deployment refuses after its scope check',
      ...revocation,
    ];
  }
  const lines = [
    'writes: own: what the checks need, named tiergate and the run id (uploads: at most 2n + 1 windows of the ingest quota for n upload tasks on an organization, at the figure; the checks aim at the Limit the deployment announces, up to 20 times it, and the bound follows)',
  ];
  const rows = planFootprint(plan, policy, inputs);
  for (const tier of plan.tiers) {
    const orgs = [...new Set(rows.filter((r) => r.tier === tier.tier).map((r) => r.org))];
    const parts = orgs.map(
      (org) =>
        `${org}: ${rows
          .filter((r) => r.org === org)
          .map(plannedWriteText)
          .join(', ')}`,
    );
    if (parts.length > 0) lines.push(`  ${tier.tier}: ${parts.join('; ')}`);
  }
  return [...lines, ...revocation];
}
