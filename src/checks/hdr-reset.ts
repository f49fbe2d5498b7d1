/** HDR-RESET: Reset is a Unix epoch. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'HDR-RESET',
  title: 'Reset is a Unix epoch',
  asserts: 'epoch seconds, in (Date, Date + window], constant within a window',
  spec: '§8',
  requirement:
    'X-RateLimit-Reset is Unix epoch seconds (not a delta, not milliseconds), in (now, now + window], constant within a window, changing only once the reset it announced has come.',
  assumptions: [],
  verdict: verdictIn('resetEpochVerdict', () => import('../verdicts/hdr-reset.ts')),
  report: {},
});
