/** §2 "Rate-limit error body" and §7, as a schema. */
import { z } from 'zod';

export const rateLimitErrorBody = z
  .object({
    status: z.literal('error'),
    code: z.literal('RATE_LIMIT_EXCEEDED'),
    message: z.string(),
    retry_after_seconds: z.number().int().nonnegative(),
  })
  .loose();
export type RateLimitErrorBody = z.infer<typeof rateLimitErrorBody>;

/** §2 "Scope list response envelope". */
export const scopeListBody = z.object({
  status: z.literal('success'),
  data: z.array(z.object({ scope: z.string(), description: z.string() }).loose()),
});
export type ScopeListBody = z.infer<typeof scopeListBody>;

/** Shape of the JSON error bodies the reference target sends for non-429 errors. */
export const genericErrorBody = z.object({ status: z.literal('error'), code: z.string(), message: z.string() }).loose();
