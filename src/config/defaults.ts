/**
 * The defaults more than one entry point states (`tiergate run` and `profile`, `serve`, `k6`, the
 * reference target), each owned here once. The CLI's --help is generated from them and the README
 * quotes them; the reference target's own defaults (src/reference-server/options.ts) start here.
 */
import { recruitingApi } from '../contract/recruiting-api.ts';

export const DEFAULTS = Object.freeze({
  /** Quota window: the spec's figures are per minute. */
  windowMs: recruitingApi.windowSeconds * 1000,
  /** Per-request timeout. */
  timeoutMs: 5_000,
  /** Edge listeners of the reference target, sharing one state. */
  edges: 3,
  /** How long a revocation takes to reach each edge of the reference target (the revocation benchmark's figures are taken at the same delay). */
  revocationDelayMs: 300,
  /** Reports root: a run writes `<dir>/<run-id>/` and points `<dir>/latest` at it. */
  reportsDir: 'reports',
  /** The deployment's config that `tiergate init` writes and `tiergate doctor` checks. */
  configFile: 'tiergate.config.json',
});

/** Revocation trials a run may ask for, and at once (flags, config and scenarios alike): more is surely a typo. */
export const REVOCATION_LIMITS = Object.freeze({ trials: 1000, parallel: 100 });

/**
 * Simulated parse time of one resume on the reference target, by window length. Uploads must stay in
 * flight long enough for CONCURRENCY-CAP to see them held while the extra is answered, yet a tier's
 * single uploads (Enterprise: 500, in batches under the cap) must fit a window.
 */
export const PARSE_MS = Object.freeze({ shortWindows: 200, longWindows: 500, longFromWindowMs: 10_000 });

export function defaultParseMs(windowMs: number): number {
  return windowMs >= PARSE_MS.longFromWindowMs ? PARSE_MS.longWindows : PARSE_MS.shortWindows;
}
