/** HDR-REMAINING: Remaining decrements by one. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'HDR-REMAINING',
  title: 'Remaining decrements by one',
  asserts: 'decrements by exactly one, never negative, 0 on 429',
  spec: '§8',
  requirement:
    'X-RateLimit-Remaining decrements by exactly one per counted request, is never negative, and is 0 on a 429.',
  assumptions: ['counted-requests'],
  verdict: verdictIn('remainingDecrementsVerdict', () => import('../verdicts/hdr-remaining.ts')),
  report: {
    draws: 'remaining-series',
    answersTierLimits: true,
  },
});
