/** HDR-LIMIT: Limit header equals the tier quota. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'HDR-LIMIT',
  title: 'Limit header equals the tier quota',
  asserts:
    "Limit = the tier's quota for the endpoint's class (Enterprise: at least; a figure declared in the config: exactly)",
  spec: '§8',
  requirement:
    "X-RateLimit-Limit equals the tier's quota for the endpoint's class (Enterprise: at least the published figure), or exactly the organization's own figure where the config declares one.",
  assumptions: ['quota-classes', 'limit-header-class'],
  verdict: verdictIn('limitHeaderVerdict', () => import('../verdicts/hdr-limit.ts')),
  report: {
    answersTierLimits: true,
  },
});
