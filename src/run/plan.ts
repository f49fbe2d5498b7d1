/**
 * The plan is data before any socket opens (k6's execution requirements; `tiergate run --dry-run`).
 * Per tier, each organization is a lane: tasks on one lane run one after another, each quota task in
 * a window of its own; lanes and tiers run in parallel, so the suite takes about as many windows as
 * its longest lane. A task needing two orgs (ORG-ISOLATED) opens both their lanes.
 */
import type { TierName } from '../contract/types.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { Scenario } from '../scenario/define.ts';
import type { TaskKind } from '../catalogue/task-kinds.ts';
import { TASKS } from '../tasks/registry.ts';
import { declaredChecks, type RegisteredTask } from '../suite/task.ts';
import type { Reason } from '../catalogue/reasons/index.ts';

export interface PlannedTask {
  readonly kind: TaskKind;
  readonly tier: TierName;
  /** Org labels the task occupies; the first is its own. */
  readonly orgs: readonly string[];
  readonly checks: readonly CheckId[];
  readonly consumes: 'read' | 'ingest' | 'none';
}

/**
 * Where a tier's limiter profile is learned (profile/discover.ts): on an organization of its own,
 * beside every lane from the start (`beside`); where the tier has none to spare, first on a lane no
 * joint task shares (`first-on-lane`); with no such lane, before any task of the tier (`before-tier`).
 * A discovery the checks wait for is kept brief: the window it uses up (how windows start stays open
 * where the server shows rate-limit headers; without them it learns that too, some three windows more).
 * The checks need the profile only on a server without rate-limit headers, whose windows the learned
 * phase places: so it never waits for a check.
 */
export interface ProfilePlacement {
  readonly org: string;
  readonly runs: 'beside' | 'first-on-lane' | 'before-tier';
}

/** Windows a discovery the checks wait for holds its organization: the one it uses up (kept brief). */
export const DISCOVERY_WINDOWS = 1;

export interface TierPlan {
  readonly tier: TierName;
  readonly orgs: readonly string[];
  /** Where the tier's limiter profile is learned; null when no task of the tier spends quota. */
  readonly profile: ProfilePlacement | null;
  /** Run first, together: tasks over several lanes. */
  readonly joint: readonly PlannedTask[];
  /** Per org label, the tasks of its lane in order (after the joint ones). */
  readonly lanes: Readonly<Record<string, readonly PlannedTask[]>>;
  /** Judged over every response of the tier at the end. */
  readonly collected: readonly CheckId[];
}

/** A task the plan will not run against the run's edges (its definition's refusedFor), and why. */
export interface RefusedTask {
  readonly kind: TaskKind;
  readonly tier: TierName;
  /** Reported skipped with the reason. */
  readonly checks: readonly CheckId[];
  readonly reason: Reason;
}

export interface Plan {
  readonly tiers: readonly TierPlan[];
  readonly revocation: PlannedTask | null;
  readonly load: readonly PlannedTask[];
  /** Tasks refused for the run's edges: never run, their checks reported skipped. */
  readonly refused: readonly RefusedTask[];
  /** Fewest quota windows the plan can take: its longest lane. */
  readonly windowsNeeded: number;
  readonly checks: readonly CheckId[];
}

/** Judged over every response of a tier, by no task of its own. */
const COLLECTED: readonly CheckId[] = ['HDR-PRESENT'];

export interface PlanInput {
  readonly scenarios: readonly Scenario[];
  /** Org labels per tier (provisioned by the run, or named in the config). */
  readonly orgs: Readonly<Partial<Record<TierName, readonly string[]>>>;
  /** null: every check. */
  readonly checks: readonly CheckId[] | null;
  /** Whether some way to provision and revoke keys exists (else revocation checks are skipped). */
  readonly revocationOrg: { readonly tier: TierName; readonly label: string } | null;
  /** Per tier, an organization of its own to learn the limiter profile on (no lane); absent: on a lane. */
  readonly profileOrgs?: Readonly<Partial<Record<TierName, string>>>;
  /** The run's edges that are not loopback addresses (none for the embedded target): some tasks refuse them. */
  readonly farEdges: readonly string[];
}

export function buildPlan(input: PlanInput): Plan {
  const refusals = refusalsOf(input.farEdges);
  const selection = selectionOf(input, refusals);
  const tiers = input.scenarios.flatMap((scenario) => {
    const orgs = input.orgs[scenario.tier] ?? [];
    return orgs.length === 0 ? [] : [tierPlanOf(scenario, orgs, selection, input.profileOrgs?.[scenario.tier])];
  });
  // Beside every lane, on an organization of its own (revocation): selected by --checks alone.
  const revocationOrg = input.revocationOrg;
  const beside = revocationOrg
    ? placed('beside').flatMap((definition) => {
        const checks = declaredChecks(definition).filter(selection.named);
        return checks.length > 0 ? [plannedTask(definition, revocationOrg.tier, [revocationOrg.label], checks)] : [];
      })
    : [];
  // After every lane (sustained load): opt-in, for a scenario it applies to, on a tier with an organization to drive.
  const after = placed('after').flatMap((definition) =>
    input.scenarios.flatMap((scenario) => {
      const checks = selection.placedFor(definition, scenario);
      const orgs = input.orgs[scenario.tier] ?? [];
      return checks.length > 0 && orgs.length > 0
        ? [plannedTask(definition, scenario.tier, orgs.slice(0, definition.orgs), checks)]
        : [];
    }),
  );
  // Refused for the run's edges: for a scenario it applies to, on a tier with an organization (as it would run).
  const refused = [...refusals].flatMap(([definition, reason]) =>
    input.scenarios.flatMap((scenario) => {
      const checks = selection.checksFor(definition, scenario);
      return checks.length > 0 && (input.orgs[scenario.tier] ?? []).length > 0
        ? [{ kind: definition.kind, tier: scenario.tier, checks, reason }]
        : [];
    }),
  );
  const checks = [
    ...new Set([
      ...tiers.flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()].flatMap((k) => k.checks)),
      ...tiers.flatMap((t) => t.collected),
      ...beside.flatMap((b) => b.checks),
      ...after.flatMap((l) => l.checks),
      ...refused.flatMap((r) => r.checks),
    ]),
  ].filter(selection.named);
  return { tiers, revocation: beside[0] ?? null, load: after, refused, windowsNeeded: windowsNeededBy(tiers), checks };
}

/** The task definitions that refuse the run's edges, each with its reason. */
function refusalsOf(farEdges: readonly string[]): ReadonlyMap<RegisteredTask, Reason> {
  return new Map(
    (Object.values(TASKS) as readonly RegisteredTask[]).flatMap((definition) => {
      const reason = definition.refusedFor?.(farEdges) ?? null;
      return reason === null ? [] : [[definition, reason] as const];
    }),
  );
}

/** Which checks the run decides: named by --checks (null: every one), and by the scenario. */
interface Selection {
  readonly named: (id: CheckId) => boolean;
  /** Selected by --checks and by the scenario. */
  readonly chosen: (id: CheckId, scenario: Scenario) => boolean;
  /** The checks of a definition a tier's scenario runs: none where it does not apply, or is opt-in and not named. */
  readonly checksFor: (definition: RegisteredTask, scenario: Scenario) => readonly CheckId[];
  /** The same, for a definition the plan places: none where it is refused for the run's edges. */
  readonly placedFor: (definition: RegisteredTask, scenario: Scenario) => readonly CheckId[];
}

function selectionOf(input: PlanInput, refusals: ReadonlyMap<RegisteredTask, Reason>): Selection {
  const named = (id: CheckId) => input.checks === null || input.checks.includes(id);
  const chosen = (id: CheckId, scenario: Scenario) =>
    named(id) && (scenario.checks === 'all' || scenario.checks.includes(id));
  const checksFor = (definition: RegisteredTask, scenario: Scenario) => {
    if (definition.appliesTo && !definition.appliesTo(scenario)) return [];
    if (definition.optIn && input.checks === null) return [];
    return declaredChecks(definition).filter((id) => chosen(id, scenario));
  };
  const placedFor = (definition: RegisteredTask, scenario: Scenario) =>
    refusals.has(definition) ? [] : checksFor(definition, scenario);
  return { named, chosen, checksFor, placedFor };
}

/** The registered task definitions of one placement. */
function placed(placement: RegisteredTask['placement']): readonly RegisteredTask[] {
  return (Object.values(TASKS) as readonly RegisteredTask[]).filter((d) => d.placement === placement);
}

/** A task lists only the checks selected: the plan says what the run will decide, and no more. */
function plannedTask(
  definition: RegisteredTask,
  tier: TierName,
  orgs: readonly string[],
  checks: readonly CheckId[],
): PlannedTask {
  return { kind: definition.kind, tier, orgs, checks, consumes: definition.consumes };
}

/** One tier's plan: its joint tasks, where its discovery runs, and its lanes. */
function tierPlanOf(
  scenario: Scenario,
  orgs: readonly string[],
  selection: Selection,
  spare: string | undefined,
): TierPlan {
  const lanes: Record<string, PlannedTask[]> = Object.fromEntries(orgs.map((o) => [o, []]));
  const joint: PlannedTask[] = [];
  const windowsOn: Record<string, number> = Object.fromEntries(orgs.map((o) => [o, 0]));
  for (const definition of placed('joint')) {
    const checks = selection.placedFor(definition, scenario);
    if (checks.length === 0 || orgs.length < definition.orgs) continue;
    const taskOrgs = orgs.slice(0, definition.orgs);
    joint.push(plannedTask(definition, scenario.tier, taskOrgs, checks));
    for (const o of taskOrgs) windowsOn[o]! += 1;
  }
  // Tasks that take no window go on the last lane, which the joint tasks leave free.
  const freeLane = orgs[orgs.length - 1]!;
  // Without an organization of its own, the discovery goes first on that lane, and holds it.
  const freeOfJoint = !joint.some((t) => t.orgs.includes(freeLane));
  const profile: ProfilePlacement = spare
    ? { org: spare, runs: 'beside' }
    : { org: freeLane, runs: freeOfJoint ? 'first-on-lane' : 'before-tier' };
  for (const o of orgs)
    if (profile.runs === 'before-tier' || (profile.runs === 'first-on-lane' && o === freeLane))
      windowsOn[o]! += DISCOVERY_WINDOWS;
  placeLaneTasks(scenario, orgs, selection, { lanes, windowsOn, freeLane });
  for (const org of orgs) if (readQuotaUsedBefore(joint, org)) lanes[org] = readersAfterOthers(lanes[org]!);
  const spends = [...joint, ...Object.values(lanes).flat()].some((t) => t.consumes !== 'none');
  return {
    tier: scenario.tier,
    orgs,
    profile: spends ? profile : null,
    joint,
    lanes,
    collected: COLLECTED.filter((id) => selection.chosen(id, scenario)),
  };
}

/** Whether a joint task spends the organization's read quota (its own: the first), which a lane's first task would then find used up. */
function readQuotaUsedBefore(joint: readonly PlannedTask[], org: string): boolean {
  return joint.some((t) => t.orgs[0] === org && t.consumes === 'read');
}

/**
 * A lane's tasks with those that also read on the organization (TaskDefinition.readsToo) moved past
 * the first task that does not: right after a joint task used the read quota up, they would wait its
 * read window out, while another class's task can use the time.
 */
function readersAfterOthers(lane: readonly PlannedTask[]): PlannedTask[] {
  const firstOther = lane.findIndex((t) => !TASKS[t.kind].readsToo && t.consumes !== 'none' && t.consumes !== 'read');
  if (firstOther <= 0 || !lane.slice(0, firstOther).every((t) => TASKS[t.kind].readsToo)) return [...lane];
  return [lane[firstOther]!, ...lane.filter((_, i) => i !== firstOther)];
}

/**
 * The lane tasks of a tier, each on a lane: tasks that take no window first, on the free lane (their
 * requests would land in a window another task opened), then those whose last request opens a window,
 * so a task can follow them, each on the least-loaded lane.
 */
function placeLaneTasks(
  scenario: Scenario,
  orgs: readonly string[],
  selection: Selection,
  into: { lanes: Record<string, PlannedTask[]>; windowsOn: Record<string, number>; freeLane: string },
): void {
  const { lanes, windowsOn, freeLane } = into;
  const order = (d: RegisteredTask) => (d.consumes === 'none' ? 0 : d.lastRequestOpens !== undefined ? 1 : 2);
  const laneTasks = [...placed('lane')].sort((x, y) => order(x) - order(y));
  for (const definition of laneTasks) {
    const checks = selection.placedFor(definition, scenario);
    if (checks.length === 0) continue;
    if (definition.consumes === 'none') {
      lanes[freeLane]!.push(plannedTask(definition, scenario.tier, [freeLane], checks));
      continue;
    }
    const lane = leastLoadedLane(orgs, lanes, windowsOn, definition);
    lanes[lane]!.push(plannedTask(definition, scenario.tier, [lane], checks));
    windowsOn[lane]! += 1;
  }
}

/**
 * Least-loaded lane. Among equals, a task of the class a lane's tail leaves open (read-sequential's
 * Retry-After wait-out opens the next read window) goes right after it, so that request counts in
 * its window's ledger instead of costing a window of its own; any other task keeps off that lane.
 */
function leastLoadedLane(
  orgs: readonly string[],
  lanes: Readonly<Record<string, readonly PlannedTask[]>>,
  windowsOn: Readonly<Record<string, number>>,
  definition: RegisteredTask,
): string {
  const leftOpen = (lane: string) => {
    const open = lanes[lane]!.at(-1)?.kind;
    return open === undefined ? undefined : TASKS[open].lastRequestOpens;
  };
  const preference = (lane: string) =>
    leftOpen(lane) === undefined ? 0 : leftOpen(lane) === definition.consumes ? -1 : 1;
  return [...orgs].sort((x, y) => windowsOn[x]! - windowsOn[y]! || preference(x) - preference(y))[0]!;
}

/** The windows the busiest organization needs: its joint tasks, its lane's tasks that spend quota, its discovery. */
function windowsNeededBy(tiers: readonly TierPlan[]): number {
  return Math.max(
    0,
    ...tiers.flatMap((t) =>
      t.orgs.map(
        (o) =>
          t.joint.filter((j) => j.orgs.includes(o)).length +
          (t.lanes[o] ?? []).filter((k) => k.consumes !== 'none').length +
          (t.profile?.runs === 'before-tier' || (t.profile?.runs === 'first-on-lane' && t.profile.org === o)
            ? DISCOVERY_WINDOWS
            : 0),
      ),
    ),
  );
}
