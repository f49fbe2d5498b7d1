/**
 * Who drives a run's traffic. The lifecycle (run.ts) is the same for each: open the run, the target
 * session, the engine's work, results, reports, latest. `harness` runs the plan of checks; `k6` runs
 * the scenarios' sustained load in k6 and judges its output.
 */
import type { Io } from '../util/io.ts';
import type { RunEvent } from '../results/events.ts';
import type { RunOptions } from './options.ts';
import type { TargetSession } from './target-session.ts';
import type { EngineOutcome } from './publish.ts';

export interface OpenRun {
  readonly options: RunOptions;
  readonly io: Io;
  readonly session: TargetSession;
  readonly runId: string;
  readonly runDir: string;
  readonly emit: (event: RunEvent) => void;
}

/** Drives an open run; resolves with what it measured (partial when io.signal aborted it). */
export type EngineDrive = (run: OpenRun) => Promise<EngineOutcome>;

export interface RunEngine {
  /**
   * Before anything starts: refuses a run this engine cannot do (k6 missing, nothing to load), and
   * returns the drive with what it found out (k6's path, the parsed thresholds).
   */
  prepare(options: RunOptions, io: Io): Promise<EngineDrive>;
}
