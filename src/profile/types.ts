/**
 * The limiter profile: how a server limits, learned from its own answers before it is judged
 * (README "How it measures": learn, then judge). Everything the spec leaves open is a question here, and each
 * answer carries the observations that decided it, or says why it stayed open.
 */
import type { QuotaClass, TierName } from '../contract/types.ts';
import type { RateLimitDialectName } from '../contract/rate-limit-dialects.ts';
import type { AnnouncedPolicyFigures } from '../measure/observation.ts';

import type { ResetFormat } from '../measure/reset-format.ts';

export { RESET_FORMATS, type ResetFormat } from '../measure/reset-format.ts';

/**
 * How a window starts: on multiples of the window length by the server clock, at an organization's
 * first counted request after the previous window expired, or not at all (a token bucket, GCRA or
 * sliding counter that gives quota back during the window). `unknown`: the answers could not tell.
 */
export const WINDOW_ALGORITHMS = ['fixed-aligned', 'fixed-first-request', 'refilling', 'unknown'] as const;
export type WindowAlgorithm = (typeof WINDOW_ALGORITHMS)[number];

/** Answers that may or may not consume quota, depending on where the limiter sits. */
export const COUNTING_QUESTIONS = ['head', 'not-found', 'forbidden', 'unauthenticated', 'rejected'] as const;
export type CountingQuestion = (typeof COUNTING_QUESTIONS)[number];

/** A yes/no the server answered (with evidence) or left open (with the reason). */
export interface Learned<T> {
  /** null: undecided. */
  readonly value: T | null;
  /** One sentence: what was seen, or what was missing. */
  readonly how: string;
  /** Observation ids that decide it. */
  readonly evidence: readonly number[];
}

export interface ClassProfile {
  readonly quotaClass: QuotaClass;
  /** X-RateLimit-Limit announced for the class, when one was. */
  readonly limit: number | null;
  readonly resetFormat: Learned<ResetFormat>;
  /** Whether Reset holds still within a window (false: it moves while Remaining counts down). */
  readonly resetSteady: Learned<boolean>;
  readonly algorithm: Learned<WindowAlgorithm>;
  /**
   * Where window boundaries fall on the server's clock: ms past each multiple of the window length
   * (0: aligned to the epoch), from the end of the window the discovery used up; with its doubt, ms.
   * Schedules clock-aligned windows where no header shows a boundary.
   */
  readonly phase: Learned<WindowPhase>;
}

/** Where clock-aligned boundaries fall, as the discovery placed them. */
export interface WindowPhase {
  /** ms past each multiple of the window length on the server's clock. */
  readonly ms: number;
  /** ± doubt of where the used-up window ended, ms (our clock estimate aside). */
  readonly doubtMs: number;
  /**
   * The server clock's offset from ours, as estimated when the phase was placed (ms). Boundaries are
   * found again through this same figure, so a later, narrower estimate moves none of them: the
   * phase is an instant on our clock, repeated every window.
   */
  readonly clockOffsetMs: number;
}

/**
 * How the server answers one request beyond an organization's concurrency cap, while the cap is
 * held: refused with a status, queued until a request in flight finishes, or admitted (no cap).
 */
export type ConcurrencyAnswer =
  | { readonly kind: 'refuses'; readonly status: number }
  | { readonly kind: 'queues' }
  | { readonly kind: 'no-cap' };

/**
 * Where X-RateLimit-* is sent beside another dialect: whether the two told the same limit,
 * remaining and reset on every response that carried both ('agrees') or not on one ('differs');
 * 'not-both' where no response carried both.
 */
export const DIALECT_AGREEMENTS = ['agrees', 'differs', 'not-both'] as const;
export type DialectAgreement = (typeof DIALECT_AGREEMENTS)[number];

/** The rate-limit header dialects the deployment sends, whatever the run declares (contract/rate-limit-sent.ts). */
export interface DialectProfile {
  /** The dialects whose fields the responses carried, in RATE_LIMIT_DIALECT_NAMES order; [] for none. */
  readonly sent: Learned<readonly RateLimitDialectName[]>;
  /** Every rate-limit field received, lower case, in the order first seen. */
  readonly fields: readonly string[];
  /** The policies RateLimit-Policy announced, each once, in the order first seen. */
  readonly policies: readonly AnnouncedPolicyFigures[];
  readonly agreement: Learned<DialectAgreement>;
  /**
   * Where one response reports several quotas: per quota class, the policy its requests are counted
   * against, learned from which policy moved (profile/policy-classes.ts); absent where the run declared
   * no dialect that names policies, or in profiles from before it was learned.
   */
  readonly classes?: Readonly<Record<QuotaClass, Learned<string>>>;
}

export interface LimiterProfile {
  readonly tier: TierName;
  /** The organization the profile was learned on (run label). */
  readonly org: string;
  /** Window length the run was told the server uses, ms. */
  readonly windowMs: number;
  /** Whether responses carry X-RateLimit-Limit/Remaining/Reset at all. */
  readonly headers: Learned<boolean>;
  /** Which rate-limit dialects the responses carried (absent in profiles from before it was learned). */
  readonly dialects?: DialectProfile;
  readonly read: ClassProfile;
  readonly ingest: ClassProfile;
  /** Which answers consume a read request. */
  readonly counts: Readonly<Record<CountingQuestion, Learned<boolean>>>;
  /** Whether the read endpoints draw on one counter (true) or count per route (false). */
  readonly readSharedAcrossRoutes: Learned<boolean>;
  /** Whether read and ingest have counters and windows of their own. */
  readonly classesIndependent: Learned<boolean>;
  /** The concurrency cap's answer: learned by the CONCURRENCY-CAP check, not by the discovery (withConcurrency). */
  readonly concurrency: Learned<ConcurrencyAnswer>;
  /** Observations the discovery sent (all of them, for the report's evidence links). */
  readonly observations: number;
  readonly durationMs: number;
}
