/** AUTH-MALFORMED: Malformed key rejected. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'AUTH-MALFORMED',
  title: 'Malformed key rejected',
  asserts: 'a malformed key: 401 (assumed)',
  spec: '§5.3',
  requirement: 'A request whose key does not match the key format is rejected.',
  assumptions: ['auth-status'],
  verdict: verdictIn('authRejected', () => import('../verdicts/auth-missing-malformed-unknown.ts')),
  report: {},
});
