/** CONCURRENCY-CAP: Concurrency cap. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'CONCURRENCY-CAP',
  title: 'Concurrency cap',
  asserts:
    'the cap in flight admitted; one more not served beside them: refused (429 assumed), or held until one finishes',
  spec: '§8',
  requirement:
    'With the cap of requests in flight, one more is not served beside them: refused (429 assumed), or held until one of them finishes; the cap itself is admitted.',
  assumptions: ['concurrency-status'],
  verdict: verdictIn('concurrencyCapVerdict', () => import('../verdicts/concurrency-cap.ts')),
  report: {
    draws: 'held-timeline',
    answersTierLimits: true,
  },
});
