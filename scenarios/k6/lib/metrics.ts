/**
 * Each response's status and rate-limit headers as one tagged sample, so verdicts can be computed
 * after the run from k6's `--out json` (tiergate k6 ingest), across any number of runners:
 *
 *   tiergate_remaining (Trend): value Remaining (-1 when absent or not an integer), tags org, tier,
 *   status, window (Reset as sent, 'none' when absent), limit (Limit as sent) and date (the server's
 *   Date header, to check Reset's plausibility).
 *
 * Under §8's X-RateLimit-* (the default) those are the headers themselves, read by the harness's own
 * `headerValue`, so both engines read a header alike. Under a dialect the export declares
 * (rate-limit.ts), value, window and limit are the figures of the quota the response reports, and
 * the tags also carry `dialect`, the policy read (`policy`, where declared) and each of the dialect's
 * fields as received (`field:<name>`), which `tiergate k6 ingest` reads with the contract's parser.
 */
import type { RefinedResponse, ResponseType } from 'k6/http';
import { Trend } from 'k6/metrics';
import { headerValue } from '../../../src/measure/observation.ts';
import type { HeaderNames } from '../../../src/contract/types.ts';
import { headerOf } from './headers.ts';
import { dialectFields, dialectFigures, FIELD_TAG_PREFIX, type K6RateLimitDialect } from './rate-limit.ts';

export const REMAINING_METRIC = 'tiergate_remaining';

const remaining = new Trend(REMAINING_METRIC);

const shown = (n: number | null): string => (n === null ? 'none' : String(n));

/** The tags and value of a response under a declared dialect. */
function dialectSample(
  headers: { readonly [name: string]: string },
  spec: K6RateLimitDialect,
): { value: number; tags: Record<string, string> } {
  const raw = dialectFields(headers, spec);
  const figures = dialectFigures(raw, spec);
  const tags: Record<string, string> = {
    dialect: spec.dialect,
    window: shown(figures.reset),
    limit: shown(figures.limit),
  };
  if (spec.policyName !== null) tags.policy = spec.policyName;
  for (const [name, value] of Object.entries(raw)) tags[`${FIELD_TAG_PREFIX}${name}`] = value;
  return { value: figures.remaining ?? -1, tags };
}

export function recordResponse(
  res: RefinedResponse<ResponseType | undefined>,
  names: HeaderNames,
  dialect: K6RateLimitDialect | null,
  org: string,
  tier: string,
): void {
  const common = { org, tier, status: String(res.status), date: headerOf(res.headers, 'date') ?? 'none' };
  if (dialect !== null) {
    const { value, tags } = dialectSample(res.headers, dialect);
    remaining.add(value, { ...common, ...tags });
    return;
  }
  const value = headerValue(headerOf(res.headers, names.remaining)).value;
  remaining.add(value ?? -1, {
    ...common,
    window: headerOf(res.headers, names.reset) ?? 'none',
    limit: headerOf(res.headers, names.limit) ?? 'none',
  });
}
