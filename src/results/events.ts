/** What a run tells its reporters as it goes. The terminal reporter is one consumer among others. */
import type { TierName } from '../contract/types.ts';
import type { CheckResult } from '../catalogue/types.ts';
import type { RunResults } from './types.ts';

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
  | { readonly type: 'task-waiting'; readonly task: string; readonly untilEpochS: number | null }
  | { readonly type: 'task-start'; readonly task: string }
  | { readonly type: 'check-result'; readonly result: CheckResult }
  | { readonly type: 'warning'; readonly message: string }
  | { readonly type: 'run-end'; readonly results: RunResults; readonly reportDir: string };

export type RunListener = (event: RunEvent) => void;
