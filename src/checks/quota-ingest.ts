/** QUOTA-INGEST: Ingest quota is exact. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'QUOTA-INGEST',
  title: 'Ingest quota is exact',
  asserts: 'likewise for resume uploads: single, and bulk counted per resume',
  spec: '§8',
  requirement: 'Exactly Limit resumes are ingested in a window and the next is rejected with 429.',
  assumptions: ['quota-classes', 'bulk-counts-per-resume', 'counted-requests'],
  verdict: verdictIn('quotaExactVerdict', () => import('../verdicts/quota-read-ingest.ts')),
  report: {
    draws: 'quota-series',
    answersTierLimits: true,
  },
});
