/** HDR-PRESENT: Rate-limit headers on every response. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'HDR-PRESENT',
  title: 'Rate-limit headers on every response',
  asserts: 'the three X-RateLimit headers on every response the run received',
  spec: '§8',
  requirement:
    'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset are present on every HTTP response, errors and HEAD included.',
  assumptions: [],
  verdict: verdictIn('headersPresentVerdict', () => import('../verdicts/hdr-present.ts')),
  report: {},
});
