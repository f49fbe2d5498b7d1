/** The quota window a check ran in, as the harness learned it from the server. */
export interface WindowContext {
  /** Monotonic ms (run epoch) at which the window opened, learned from the server's headers. */
  readonly openedAt: number;
  /** ± bound on `openedAt`: the gap between the last response of the old window and the first of the new. */
  readonly openedUncertaintyMs: number;
  /** Window length the server is expected to use, ms. */
  readonly lengthMs: number;
  /** X-RateLimit-Reset of the window, when the server gave a plausible epoch; else null. */
  readonly resetEpochS: number | null;
}
