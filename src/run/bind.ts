/** Turns a planned task (data) into a runnable Task over the run's provisioned organizations. */
import type { TaskKind, PlannedTask } from './plan.ts';
import type { Task } from '../procedures/context.ts';
import type { OrgHandle } from '../procedures/handles.ts';
import type { Scenario } from '../scenario/define.ts';
import { accessTask } from '../procedures/access.ts';
import { isolationTask } from '../procedures/isolation.ts';
import { readSequentialTask } from '../procedures/read-sequential.ts';
import { readBurstTask } from '../procedures/read-burst.ts';
import { ingestTask } from '../procedures/ingest.ts';
import { concurrencyTask } from '../procedures/concurrency.ts';
import { revocationTask } from '../procedures/revocation.ts';
import { skippedTask } from './skipped.ts';
import { loadTask } from '../procedures/load.ts';
import type { ObservationRecorder } from '../measure/recorder.ts';
import type { RunOptions } from './options.ts';

export interface BindInput {
  readonly orgs: ReadonlyMap<string, OrgHandle>;
  readonly scenarios: readonly Scenario[];
  readonly revocation: RunOptions['revocation'];
  /** Sustained load records its responses here (observations.ndjson). */
  readonly recorder: ObservationRecorder;
  readonly timeoutMs: number;
}

export function taskBinder(input: BindInput): (planned: PlannedTask) => Task {
  const org = (label: string | undefined): OrgHandle => {
    const found = label === undefined ? undefined : input.orgs.get(label);
    if (!found) throw new Error(`plan names organization ${label ?? '(none)'}, which was not provisioned`);
    return found;
  };
  const tierOrgs = (planned: PlannedTask) => [...input.orgs.values()].filter((o) => o.tier === planned.tier);
  const binders: Readonly<Record<TaskKind, (planned: PlannedTask) => Task>> = {
    access: (p) => accessTask(org(p.orgs[0]), tierOrgs(p)),
    isolation: (p) => isolationTask(org(p.orgs[0]), org(p.orgs[1])),
    'read-sequential': (p) => readSequentialTask(org(p.orgs[0])),
    'read-burst': (p) => readBurstTask(org(p.orgs[0])),
    'ingest-single': (p) => ingestTask(org(p.orgs[0]), 'single'),
    'ingest-bulk': (p) => ingestTask(org(p.orgs[0]), 'bulk'),
    concurrency: (p) => concurrencyTask(org(p.orgs[0])),
    revocation: (p) => {
      const scenario = input.scenarios.find((s) => s.tier === p.tier);
      const shape = { ...(scenario?.revocation ?? { trials: 20, intervalMs: 10, settleMs: 2000 }) };
      const overrides = input.revocation;
      return revocationTask(org(p.orgs[0]), {
        trials: overrides.trials ?? shape.trials,
        intervalMs: overrides.intervalMs ?? shape.intervalMs,
        settleMs: overrides.settleMs ?? shape.settleMs,
      });
    },
    load: (p) => {
      const shape = input.scenarios.find((s) => s.tier === p.tier)?.load;
      return shape
        ? loadTask(org(p.orgs[0]), shape, { recorder: input.recorder, timeoutMs: input.timeoutMs })
        : skippedTask(p, 'the scenario has no sustained-load shape (load: null)');
    },
  };
  return (planned) => binders[planned.kind](planned);
}
