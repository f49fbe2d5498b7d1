/** The quota window a check ran in, as the harness learned it from the server. */
import type { Observation } from './observation.ts';

export interface WindowContext {
  /**
   * Monotonic ms (run epoch) at which the window opened, learned from the server's headers. When
   * `opensAtFirstRequest`, the time the previous window was known to be over: the window itself
   * opens with the check's first counted request.
   */
  readonly openedAt: number;
  /** ± bound on `openedAt`: the gap between the last response of the old window and the first of the new. */
  readonly openedUncertaintyMs: number;
  /** Window length the server is expected to use, ms. */
  readonly lengthMs: number;
  /** X-RateLimit-Reset of the window, when the server gave a plausible epoch; else null. */
  readonly resetEpochS: number | null;
  /**
   * The server's windows start at an organization's first counted request (or it refills): the
   * harness waited until every earlier window was over, so this one opens with the check.
   */
  readonly opensAtFirstRequest: boolean;
  /**
   * The ledger: the harness's own requests in this window before the check's first one that the
   * server counted (a window-sync poll the server counts, say). Exactness counts them too.
   */
  readonly prior: readonly Observation[];
  /**
   * How responses are placed in this window: by an epoch Reset they share ('reset'), or, where Reset
   * moves within a window or the window opened with the check, by timing alone ('timing').
   */
  readonly placeBy: 'reset' | 'timing';
  /**
   * Monotonic ms before which the window cannot end, where only the server's announcement places its
   * end (a window found under way, its start unknown): the earliest end its Reset allows.
   */
  readonly sureEndAt?: number;
}

/** Allowance for the server's clock running at another rate than ours over one window, ms. */
const RATE_SLACK_MS = 20;

/**
 * When the window opened and how surely, for judging: the learned boundary; or, for a window that
 * opens at the first request, that request's send (the server cannot have seen it earlier, so the
 * window lasts at least a full length from there).
 */
export function windowStart(
  window: WindowContext,
  first: Observation | undefined,
): { at: number; uncertaintyMs: number } {
  if (!window.opensAtFirstRequest || first === undefined)
    return { at: window.openedAt, uncertaintyMs: window.openedUncertaintyMs };
  return { at: first.sentAt, uncertaintyMs: RATE_SLACK_MS };
}

/**
 * The latest instant the window is sure to be still open: its start plus its length, less the doubt,
 * and no later than the end the server announced for it.
 */
export function windowSafeEnd(window: WindowContext, first: Observation | undefined): number {
  const start = windowStart(window, first);
  return Math.min(start.at + window.lengthMs - start.uncertaintyMs, window.sureEndAt ?? Infinity);
}
