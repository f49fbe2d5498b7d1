/**
 * The plan is data before any socket opens (k6's execution requirements; `tiergate run --dry-run`).
 * Per tier, each organization is a lane: tasks on one lane run one after another, each quota task in
 * a window of its own; lanes and tiers run in parallel, so the suite takes about as many windows as
 * its longest lane. A task needing two orgs (ORG-ISOLATED) opens both their lanes.
 */
import type { TierName } from '../contract/types.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { Scenario } from '../scenario/define.ts';

export type TaskKind =
  | 'access'
  | 'isolation'
  | 'read-sequential'
  | 'read-burst'
  | 'ingest-single'
  | 'ingest-bulk'
  | 'concurrency'
  | 'revocation'
  | 'load';

export interface PlannedTask {
  readonly kind: TaskKind;
  readonly tier: TierName;
  /** Org labels the task occupies; the first is its own. */
  readonly orgs: readonly string[];
  readonly checks: readonly CheckId[];
  readonly consumes: 'read' | 'ingest' | 'none';
}

export interface TierPlan {
  readonly tier: TierName;
  readonly orgs: readonly string[];
  /** Run first, together: tasks over several lanes. */
  readonly joint: readonly PlannedTask[];
  /** Per org label, the tasks of its lane in order (after the joint ones). */
  readonly lanes: Readonly<Record<string, readonly PlannedTask[]>>;
  /** Judged over every response of the tier at the end. */
  readonly collected: readonly CheckId[];
}

export interface Plan {
  readonly tiers: readonly TierPlan[];
  readonly revocation: PlannedTask | null;
  readonly load: readonly PlannedTask[];
  /** Fewest quota windows the plan can take: its longest lane. */
  readonly windowsNeeded: number;
  readonly checks: readonly CheckId[];
}

/** Which checks each kind of task decides. */
export const TASK_CHECKS: Readonly<Record<TaskKind, readonly CheckId[]>> = {
  access: ['AUTH-MISSING', 'AUTH-MALFORMED', 'AUTH-UNKNOWN', 'AUTH-KEY-FORMAT', 'SCOPE-LIST', 'SCOPE-ENFORCED', 'HEAD-BOOTSTRAP'],
  isolation: ['ORG-ISOLATED'],
  'read-sequential': ['QUOTA-READ', 'HDR-REMAINING', 'HDR-LIMIT', 'HDR-RESET', 'ERR-429-BODY', 'ORG-SHARED', 'RETRY-AFTER'],
  'read-burst': ['QUOTA-READ'],
  'ingest-single': ['QUOTA-INGEST', 'HDR-LIMIT'],
  'ingest-bulk': ['QUOTA-INGEST'],
  concurrency: ['CONCURRENCY-CAP'],
  revocation: ['REVOKE-LATENCY', 'REVOKE-STICKY', 'AUTH-REVOKED', 'ROTATION'],
  load: ['LOAD-THRESHOLDS'],
};

const COLLECTED: readonly CheckId[] = ['HDR-PRESENT'];

const QUOTA_KINDS: Readonly<Record<'isolation' | 'read-sequential' | 'read-burst' | 'ingest-single' | 'ingest-bulk' | 'concurrency', 'read' | 'ingest'>> = {
  isolation: 'read',
  'read-burst': 'read',
  'ingest-single': 'ingest',
  'ingest-bulk': 'ingest',
  concurrency: 'ingest',
  // Last on its lane: its Retry-After wait spills into the next window.
  'read-sequential': 'read',
};

export interface PlanInput {
  readonly scenarios: readonly Scenario[];
  /** Org labels per tier (provisioned by the run, or named in the config). */
  readonly orgs: Readonly<Partial<Record<TierName, readonly string[]>>>;
  /** null: every check. */
  readonly checks: readonly CheckId[] | null;
  /** Whether some way to provision and revoke keys exists (else revocation checks are skipped). */
  readonly revocationOrg: { readonly tier: TierName; readonly label: string } | null;
}

export function buildPlan(input: PlanInput): Plan {
  /** Selected by --checks and by the scenario. */
  const chosen = (id: CheckId, scenario: Scenario) =>
    (input.checks === null || input.checks.includes(id)) && (scenario.checks === 'all' || scenario.checks.includes(id));
  const tiers: TierPlan[] = [];
  for (const scenario of input.scenarios) {
    const orgs = input.orgs[scenario.tier] ?? [];
    if (orgs.length === 0) continue;
    const checksOf = (kind: TaskKind) => TASK_CHECKS[kind].filter((id) => chosen(id, scenario));
    const want = (kind: TaskKind) => checksOf(kind).length > 0;
    // A task lists only the checks selected: the plan says what the run will decide, and no more.
    const task = (kind: TaskKind, taskOrgs: readonly string[]): PlannedTask => ({
      kind,
      tier: scenario.tier,
      orgs: taskOrgs,
      checks: checksOf(kind),
      consumes: kind in QUOTA_KINDS ? QUOTA_KINDS[kind as keyof typeof QUOTA_KINDS] : 'none',
    });
    const lanes: Record<string, PlannedTask[]> = Object.fromEntries(orgs.map((o) => [o, []]));
    const joint: PlannedTask[] = [];
    const windowsOn: Record<string, number> = Object.fromEntries(orgs.map((o) => [o, 0]));
    if (want('isolation') && orgs.length >= 2) {
      joint.push(task('isolation', [orgs[0]!, orgs[1]!]));
      windowsOn[orgs[0]!]! += 1;
      windowsOn[orgs[1]!]! += 1;
    }
    // The access checks take no window: put them on the last lane, which the joint task leaves free.
    const accessLane = orgs[orgs.length - 1]!;
    if (want('access')) lanes[accessLane]!.push(task('access', [accessLane]));
    const quotaKinds: TaskKind[] = ['concurrency', 'ingest-single', 'read-burst', 'ingest-bulk', 'read-sequential'];
    for (const kind of quotaKinds) {
      if (kind === 'read-burst' && !scenario.quota.variants.includes('burst')) continue;
      if (!want(kind)) continue;
      // Least-loaded lane; read-sequential goes to the lane whose tail is free, since it waits out Retry-After.
      const lane = [...orgs].sort((x, y) => windowsOn[x]! - windowsOn[y]!)[0]!;
      lanes[lane]!.push(task(kind, [lane]));
      windowsOn[lane]! += 1;
    }
    tiers.push({ tier: scenario.tier, orgs, joint, lanes, collected: COLLECTED.filter((id) => chosen(id, scenario)) });
  }
  const revocationWanted =
    input.revocationOrg !== null && (input.checks === null || TASK_CHECKS.revocation.some((id) => input.checks!.includes(id)));
  const revocation: PlannedTask | null = revocationWanted
    ? {
        kind: 'revocation',
        tier: input.revocationOrg!.tier,
        orgs: [input.revocationOrg!.label],
        checks: TASK_CHECKS.revocation.filter((id) => input.checks === null || input.checks.includes(id)),
        consumes: 'none',
      }
    : null;
  // Sustained load is opt-in (--checks LOAD-THRESHOLDS), for a scenario that has a load shape and
  // allows the check, on a tier with an organization to drive.
  const load: PlannedTask[] = input.scenarios
    .filter((s) => s.load !== null && (input.checks?.includes('LOAD-THRESHOLDS') ?? false))
    .filter((s) => (s.checks === 'all' || s.checks.includes('LOAD-THRESHOLDS')) && (input.orgs[s.tier]?.length ?? 0) > 0)
    .map((s) => ({ kind: 'load', tier: s.tier, orgs: input.orgs[s.tier]!.slice(0, 1), checks: TASK_CHECKS.load, consumes: 'read' }));
  const windowsNeeded = Math.max(
    0,
    ...tiers.flatMap((t) => t.orgs.map((o) => t.joint.filter((j) => j.orgs.includes(o)).length + (t.lanes[o] ?? []).filter((k) => k.consumes !== 'none').length)),
  );
  const checks = [
    ...new Set([...tiers.flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()].flatMap((k) => k.checks)), ...tiers.flatMap((t) => t.collected), ...(revocation?.checks ?? []), ...load.flatMap((l) => l.checks)]),
  ].filter((id) => input.checks === null || input.checks.includes(id));
  return { tiers, revocation, load, windowsNeeded, checks };
}
