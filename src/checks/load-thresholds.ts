/** LOAD-THRESHOLDS: Thresholds under sustained load. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'LOAD-THRESHOLDS',
  title: 'Thresholds under sustained load',
  asserts: 'sustained load at 1× and 2× quota: per window admitted ≤ Limit, k6-style thresholds',
  spec: '§8',
  requirement:
    'Under sustained load at and above quota, admitted requests never exceed Limit per window and latency/error thresholds hold.',
  assumptions: ['fixed-windows'],
  verdict: verdictIn('loadThresholdsVerdict', () => import('../verdicts/load-thresholds.ts')),
  notJudgedAgain: 'it judges histograms aggregated as the load ran, not observations one by one',
  report: {},
});
