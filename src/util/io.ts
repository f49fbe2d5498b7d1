/**
 * The one I/O boundary (k6's GlobalState, vitest's Logger): the CLI builds it from `process`,
 * tests build their own. The library never touches `process` directly.
 */
export interface Clock {
  /** Wall clock, epoch ms. */
  now(): number;
  /** Monotonic clock, ms with sub-ms precision. */
  monotonic(): number;
}

export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly clock: Clock;
  /** Aborted on Ctrl-C: runs stop, and still write the report of what finished. */
  readonly signal: AbortSignal;
  /** The arguments tiergate was given (a run's manifest records them); absent for a library call. */
  readonly argv?: readonly string[];
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};
