/**
 * What every observation is tagged with: who sent it and in which phase. Readers pick observations
 * by these (a discovery's steps, a quota check's other route, the revocation probes), so they are
 * unions of the tags in use, and a tag misspelt where a request is sent does not compile.
 * the observations file writes them as they are.
 */
import type { CheckId } from '../catalogue/types.ts';

/**
 * Senders that are no check: the window-sync polls, the limiter discovery, the load driver's
 * benchmark (bench/), tiergate doctor, the cleanup of what the run created, and the keyless requests
 * that open connections (the preflight's, the warm-up before a series).
 */
type HarnessTask = 'WINDOW-SYNC' | 'PROFILE' | 'BENCH' | 'DOCTOR' | 'CLEANUP' | 'CONNECT';

/** Who sent a request: the check it serves, or a harness task. */
export type CheckTag = CheckId | HarnessTask;

/**
 * A revocation trial's probes (§5.8, §5.9, §8.3):
 * - `confirm`: before the revoke call, proving the key is admitted on the edge;
 * - `probe`: the dense loop around the revoke call;
 * - `final`: one per edge after the settle period (AUTH-REVOKED);
 * - `successor-before` / `successor-after`: the rotation key, before the revoke call and after settling.
 */
export type ProbePhase = 'confirm' | 'probe' | 'final' | 'successor-before' | 'successor-after';

/** A revocation probe's phase with its trial (1-based): `probe/3`. */
type RevocationPhase = `${ProbePhase}/${number}`;

/**
 * The limiter discovery's steps (profile/discover.ts): counted reads around each request in
 * question (named by its question, profile/record.ts's PairQuestion), then exhaustion, refill,
 * expiry and narrowing reads.
 */
export type DiscoveryPhase =
  | 'counted'
  | 'head'
  | 'not-found'
  | 'forbidden'
  | 'unauthenticated'
  | 'other-route'
  | 'ingest'
  | 'exhaust'
  | 'refill'
  | 'refill-follow-up'
  | 'expiry'
  | 'expiry-follow-up'
  | 'expiry-again'
  | 'expiry-again-follow-up'
  | 'expiry-exhaust'
  | 'narrow';

/**
 * The quota checks' series (`sequential`, `burst`; QUOTA-INGEST's `single`, `bulk`; ORG-ISOLATED's
 * `exhaust`) and what follows its 429: the same request again, the other route, the other
 * organization, the wait Retry-After asked for.
 */
type QuotaPhase =
  | 'sequential'
  | 'burst'
  | 'single'
  | 'bulk'
  | 'exhaust'
  | 'after-429'
  | 'other-route'
  | 'other-org'
  | 'after-other-org'
  | 'after-retry-after';

/**
 * CONCURRENCY-CAP: connections opened, fast reads timing a round trip, the held uploads, the same
 * read with one fewer held, the one beyond the cap.
 */
export type ConcurrencyPhase = 'warm-up' | 'round-trip' | 'hold' | 'control' | 'extra';

declare const loadPhaseBrand: unique symbol;
/**
 * A sustained-load phase as its scenario or k6's tags name it (`at-quota`, `fleet`): the user's
 * word. Branded, so that PhaseTag stays a union of names and not any string: only a name that came
 * through loadPhaseName passes for one.
 */
export type LoadPhaseName = string & { readonly [loadPhaseBrand]: true };

export const loadPhaseName = (name: string): LoadPhaseName => name as LoadPhaseName;

/** The phase a request belongs to within its sender. */
export type PhaseTag =
  | QuotaPhase
  | ConcurrencyPhase
  | DiscoveryPhase
  | RevocationPhase
  /** A revocation vantage point's probe (scenarios/k6/revocation.ts, read by k6 ingest --revocation). */
  | 'vantage'
  /** The auth, scope and HEAD checks' single requests. */
  | 'access'
  | 'window-sync'
  /** LOAD-THRESHOLDS' read of the announced Limit before the load. */
  | 'limit-probe'
  /** tiergate doctor and the run's preflight: one request per edge; then the doctor's few per key. */
  | 'reach'
  /** CONNECT: connections opened before a series (HttpProber.warm). */
  | 'warm-up'
  | 'key'
  /** The cleanup: a job the run created, archived. */
  | 'archive'
  | LoadPhaseName;
