/** ORG-SHARED: Keys share their organization's quota. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'ORG-SHARED',
  title: "Keys share their organization's quota",
  asserts: 'keys of one organization share its quota',
  spec: '§1, §8',
  requirement: 'Two keys of one organization draw on one quota.',
  assumptions: ['counted-requests'],
  verdict: verdictIn('orgSharedVerdict', () => import('../verdicts/org-shared-isolated.ts')),
  report: {
    answersTierLimits: true,
  },
});
