/** What a run tells its reporters as it goes. The terminal reporter is one consumer among others. */
import type { TierName } from '../contract/types.ts';
import type { CheckResult } from '../catalogue/types.ts';
import type { RunResults } from './types.ts';
import type { TaskKind } from '../catalogue/task-kinds.ts';

/** Which task an event is about: its kind ('profile': learning how the server limits), tier and organizations. */
export interface TaskIdentity {
  readonly kind: TaskKind | 'profile';
  readonly tier: TierName;
  readonly orgs: readonly string[];
}

/** How a task is named on screen: 'read-burst starter-b', 'isolation starter-a/starter-b'. */
export function taskName(task: TaskIdentity): string {
  return `${task.kind} ${task.orgs.join('/')}`;
}

export type RunEvent =
  | {
      readonly type: 'run-start';
      readonly runId: string;
      readonly tiers: readonly TierName[];
      readonly tasks: number;
      readonly windowSeconds: number;
      readonly target: string;
    }
  /** A task waits for a fresh quota window; `untilEpochS` is the server's Reset it waits for, when known. */
  | { readonly type: 'task-waiting'; readonly task: TaskIdentity; readonly untilEpochS: number | null }
  | { readonly type: 'task-start'; readonly task: TaskIdentity }
  /** How far a long task is: `done` of `total` `unit` (e.g. 'trials'); `etaMs` is the time left at its pace so far, null before any is done. */
  | {
      readonly type: 'task-progress';
      readonly task: TaskIdentity;
      readonly done: number;
      readonly total: number;
      readonly unit: string;
      readonly etaMs: number | null;
    }
  | { readonly type: 'check-result'; readonly result: CheckResult }
  | { readonly type: 'warning'; readonly message: string }
  /** Something the user should know before the run spends quota, that is no fault (what the uploads allow). */
  | { readonly type: 'notice'; readonly message: string }
  | { readonly type: 'run-end'; readonly results: RunResults; readonly reportDir: string };

export type RunListener = (event: RunEvent) => void;
