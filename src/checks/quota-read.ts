/** QUOTA-READ: Read quota is exact. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'QUOTA-READ',
  title: 'Read quota is exact',
  asserts: 'exactly Limit reads admitted, the next 429: sequential, and as a burst of 2 × Limit',
  spec: '§7.1, §8',
  requirement: 'Exactly Limit read requests succeed in a window and the next is rejected with 429.',
  assumptions: ['quota-classes', 'counted-requests'],
  verdict: verdictIn('quotaExactVerdict', () => import('../verdicts/quota-read-ingest.ts')),
  report: {
    draws: 'quota-series',
    answersTierLimits: true,
  },
});
