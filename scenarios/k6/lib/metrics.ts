/**
 * Each response's status and rate-limit headers as one tagged sample, so verdicts can be computed
 * after the run from k6's `--out json` (tiergate k6 ingest), across any number of runners:
 *
 *   tiergate_remaining (Trend): value X-RateLimit-Remaining (-1 when absent or not an integer),
 *   tags org, tier, status, window (X-RateLimit-Reset as sent, 'none' when absent), limit
 *   (X-RateLimit-Limit as sent) and date (the server's Date header, to check Reset's plausibility).
 *
 * Header parsing is the harness's own (`headerValue`), so both engines read a header alike.
 */
import type { RefinedResponse, ResponseType } from 'k6/http';
import { Trend } from 'k6/metrics';
import { headerValue } from '../../../src/measure/observation.ts';
import type { HeaderNames } from '../../../src/contract/types.ts';
import { headerOf } from './headers.ts';

export const REMAINING_METRIC = 'tiergate_remaining';

const remaining = new Trend(REMAINING_METRIC);

export function recordResponse(
  res: RefinedResponse<ResponseType | undefined>,
  names: HeaderNames,
  org: string,
  tier: string,
): void {
  const value = headerValue(headerOf(res.headers, names.remaining)).value;
  remaining.add(value ?? -1, {
    org,
    tier,
    status: String(res.status),
    window: headerOf(res.headers, names.reset) ?? 'none',
    limit: headerOf(res.headers, names.limit) ?? 'none',
    date: headerOf(res.headers, 'date') ?? 'none',
  });
}
