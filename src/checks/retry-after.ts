/** RETRY-AFTER: Retry-After is truthful. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'RETRY-AFTER',
  title: 'Retry-After is truthful',
  asserts: 'header = body, agrees with Reset, and waiting it out succeeds',
  spec: '§7',
  requirement:
    'Retry-After is an integer equal to retry_after_seconds, agrees with X-RateLimit-Reset, and waiting it out succeeds.',
  assumptions: [],
  verdict: verdictIn('retryAfterVerdict', () => import('../verdicts/retry-after.ts')),
  report: {},
});
