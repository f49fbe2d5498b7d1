/**
 * How one response under load is classified and timed. Shared by the harness's driver, the k6
 * ingest and the verdicts, so both engines judge alike.
 */
import { TOO_MANY_REQUESTS } from '../contract/types.ts';
import type { Observation } from './observation.ts';

/**
 * The statuses tiergate expects under load, as k6's `http.expectedStatuses(...)` takes them: at or
 * above quota a 429 is the expected answer (§7, §8 rule 1), not a failure.
 */
export const EXPECTED_STATUSES = { min: 200, max: 299, also: [TOO_MANY_REQUESTS] } as const;

/**
 * k6's `expected_response` as tiergate declares it: 2xx, and 429
 * (`http.expectedStatuses({min:200,max:299}, 429)`, the same in the k6 scripts). A redirect is no
 * answer from an API endpoint. `http_req_failed` is the complement; a transport error (no status)
 * is a failure. Whether a 429 came too early is judged per window, not here.
 */
export function isExpectedStatus(status: number | null): boolean {
  if (status === null) return false;
  return (
    (status >= EXPECTED_STATUSES.min && status <= EXPECTED_STATUSES.max) ||
    (EXPECTED_STATUSES.also as readonly number[]).includes(status)
  );
}

export type LatencyBasis = 'intended' | 'sent';

/** The coordinated-omission policy, decided up front and written into every LOAD-THRESHOLDS result. */
export const LATENCY_POLICY = {
  harness:
    'Open model at a constant arrival rate: request i is due at start + (i + ½)/rate. Latency is measured from that ' +
    'intended send time to the end of the response body, so any delay in sending (a busy client, a full ' +
    'connection pool) counts as latency: no coordinated omission.',
  k6:
    "k6 engine: latency is k6's per-request duration (from the actual send). k6's constant-arrival-rate " +
    'executor starts iterations on schedule and drops those it cannot start (dropped_iterations) instead of ' +
    'delaying them; a run with dropped iterations is reported as such.',
} as const;

/** Latency of one observation: from the intended send time when the driver set one, else from the send. */
export function latencyOf(o: Observation): { readonly ms: number; readonly basis: LatencyBasis } {
  if (o.intendedAt !== null) return { ms: Math.max(0, o.doneAt - o.intendedAt), basis: 'intended' };
  return { ms: Math.max(0, o.doneAt - o.sentAt), basis: 'sent' };
}
