/** ORG-ISOLATED: Organizations are isolated. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'ORG-ISOLATED',
  title: 'Organizations are isolated',
  asserts: 'another organization of the tier is untouched by one that used up its quota',
  spec: '§1, §8',
  requirement: "Exhausting one organization's quota leaves another organization of the same tier untouched.",
  assumptions: [],
  verdict: verdictIn('orgIsolatedVerdict', () => import('../verdicts/org-shared-isolated.ts')),
  report: {
    answersTierLimits: true,
  },
});
