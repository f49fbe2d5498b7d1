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
import { TASKS } from '../procedures/registry.ts';
import { declaredChecks, type RegisteredTask } from '../procedures/task.ts';

export interface PlannedTask {
  readonly kind: TaskKind;
  readonly tier: TierName;
  /** Org labels the task occupies; the first is its own. */
  readonly orgs: readonly string[];
  readonly checks: readonly CheckId[];
  readonly consumes: 'read' | 'ingest' | 'none';
}

/**
 * Where a tier's limiter profile is learned (procedures/discover.ts): on an organization of its own,
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

export interface Plan {
  readonly tiers: readonly TierPlan[];
  readonly revocation: PlannedTask | null;
  readonly load: readonly PlannedTask[];
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
}

export function buildPlan(input: PlanInput): Plan {
  const named = (id: CheckId) => input.checks === null || input.checks.includes(id);
  /** Selected by --checks and by the scenario. */
  const chosen = (id: CheckId, scenario: Scenario) =>
    named(id) && (scenario.checks === 'all' || scenario.checks.includes(id));
  const definitions = Object.values(TASKS) as readonly RegisteredTask[];
  const placed = (placement: RegisteredTask['placement']) => definitions.filter((d) => d.placement === placement);
  // A task lists only the checks selected: the plan says what the run will decide, and no more.
  const task = (
    definition: RegisteredTask,
    tier: TierName,
    orgs: readonly string[],
    checks: readonly CheckId[],
  ): PlannedTask => ({
    kind: definition.kind,
    tier,
    orgs,
    checks,
    consumes: definition.consumes,
  });
  /** The checks of a definition a tier's scenario runs: none where it does not apply, or is opt-in and not named. */
  const checksFor = (definition: RegisteredTask, scenario: Scenario) => {
    if (definition.appliesTo && !definition.appliesTo(scenario)) return [];
    if (definition.optIn && input.checks === null) return [];
    return declaredChecks(definition).filter((id) => chosen(id, scenario));
  };
  const tiers: TierPlan[] = [];
  for (const scenario of input.scenarios) {
    const orgs = input.orgs[scenario.tier] ?? [];
    if (orgs.length === 0) continue;
    const lanes: Record<string, PlannedTask[]> = Object.fromEntries(orgs.map((o) => [o, []]));
    const joint: PlannedTask[] = [];
    const windowsOn: Record<string, number> = Object.fromEntries(orgs.map((o) => [o, 0]));
    for (const definition of placed('joint')) {
      const checks = checksFor(definition, scenario);
      if (checks.length === 0 || orgs.length < definition.orgs) continue;
      const taskOrgs = orgs.slice(0, definition.orgs);
      joint.push(task(definition, scenario.tier, taskOrgs, checks));
      for (const o of taskOrgs) windowsOn[o]! += 1;
    }
    // Tasks that take no window go on the last lane, which the joint tasks leave free.
    const freeLane = orgs[orgs.length - 1]!;
    // Without an organization of its own, the discovery goes first on that lane, and holds it.
    const spare = input.profileOrgs?.[scenario.tier];
    const freeOfJoint = !joint.some((t) => t.orgs.includes(freeLane));
    const profile: ProfilePlacement = spare
      ? { org: spare, runs: 'beside' }
      : { org: freeLane, runs: freeOfJoint ? 'first-on-lane' : 'before-tier' };
    for (const o of orgs)
      if (profile.runs === 'before-tier' || (profile.runs === 'first-on-lane' && o === freeLane))
        windowsOn[o]! += DISCOVERY_WINDOWS;
    // Tasks that take no window first (their requests would land in a window another task opened),
    // then those whose last request opens a window, so a task can follow them.
    const order = (d: RegisteredTask) => (d.consumes === 'none' ? 0 : d.lastRequestOpens !== undefined ? 1 : 2);
    const laneTasks = placed('lane').sort((x, y) => order(x) - order(y));
    for (const definition of laneTasks) {
      const checks = checksFor(definition, scenario);
      if (checks.length === 0) continue;
      if (definition.consumes === 'none') {
        lanes[freeLane]!.push(task(definition, scenario.tier, [freeLane], checks));
        continue;
      }
      // Least-loaded lane. Among equals, a task of the class a lane's tail leaves open (read-sequential's
      // Retry-After wait-out opens the next read window) goes right after it, so that request counts in
      // its window's ledger instead of costing a window of its own; any other task keeps off that lane.
      const leftOpen = (lane: string) => {
        const open = lanes[lane]!.at(-1)?.kind;
        return open === undefined ? undefined : TASKS[open].lastRequestOpens;
      };
      const preference = (lane: string) =>
        leftOpen(lane) === undefined ? 0 : leftOpen(lane) === definition.consumes ? -1 : 1;
      const lane = [...orgs].sort((x, y) => windowsOn[x]! - windowsOn[y]! || preference(x) - preference(y))[0]!;
      lanes[lane]!.push(task(definition, scenario.tier, [lane], checks));
      windowsOn[lane]! += 1;
    }
    const spends = [...joint, ...Object.values(lanes).flat()].some((t) => t.consumes !== 'none');
    tiers.push({
      tier: scenario.tier,
      orgs,
      profile: spends ? profile : null,
      joint,
      lanes,
      collected: COLLECTED.filter((id) => chosen(id, scenario)),
    });
  }
  // Beside every lane, on an organization of its own (revocation): selected by --checks alone.
  const revocationOrg = input.revocationOrg;
  const beside = revocationOrg
    ? placed('beside').flatMap((definition) => {
        const checks = declaredChecks(definition).filter(named);
        return checks.length > 0 ? [task(definition, revocationOrg.tier, [revocationOrg.label], checks)] : [];
      })
    : [];
  // After every lane (sustained load): opt-in, for a scenario it applies to, on a tier with an organization to drive.
  const after = placed('after').flatMap((definition) =>
    input.scenarios.flatMap((scenario) => {
      const checks = checksFor(definition, scenario);
      const orgs = input.orgs[scenario.tier] ?? [];
      return checks.length > 0 && orgs.length > 0
        ? [task(definition, scenario.tier, orgs.slice(0, definition.orgs), checks)]
        : [];
    }),
  );
  const windowsNeeded = Math.max(
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
  const checks = [
    ...new Set([
      ...tiers.flatMap((t) => [...t.joint, ...Object.values(t.lanes).flat()].flatMap((k) => k.checks)),
      ...tiers.flatMap((t) => t.collected),
      ...beside.flatMap((b) => b.checks),
      ...after.flatMap((l) => l.checks),
    ]),
  ].filter(named);
  return { tiers, revocation: beside[0] ?? null, load: after, windowsNeeded, checks };
}
