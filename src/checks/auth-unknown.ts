/** AUTH-UNKNOWN: Unknown key rejected. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'AUTH-UNKNOWN',
  title: 'Unknown key rejected',
  asserts: 'a well-formed key never issued: 401 (assumed)',
  spec: '§5.1, §5.3',
  requirement: 'A well-formed key that was never issued is rejected.',
  assumptions: ['auth-status'],
  verdict: verdictIn('authRejected', () => import('../verdicts/auth-missing-malformed-unknown.ts')),
  report: {},
});
