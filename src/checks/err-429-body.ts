/** ERR-429-BODY: 429 body. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'ERR-429-BODY',
  title: '429 body',
  asserts: '`status`, `code: RATE_LIMIT_EXCEEDED`, `message`, integer `retry_after_seconds`',
  spec: '§2, §7',
  requirement:
    'A 429 body has status "error", code "RATE_LIMIT_EXCEEDED", a string message and an integer retry_after_seconds.',
  assumptions: [],
  verdict: verdictIn('rateLimitBodyVerdict', () => import('../verdicts/err-429-body.ts')),
  report: {},
});
