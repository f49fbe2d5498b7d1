/** AUTH-MISSING: Missing key rejected. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'AUTH-MISSING',
  title: 'Missing key rejected',
  asserts: 'no key: 401 (assumed)',
  spec: '§5.1',
  requirement: 'A request without an X-API-Key header is rejected.',
  assumptions: ['auth-status'],
  verdict: verdictIn('authRejected', () => import('../verdicts/auth-missing-malformed-unknown.ts')),
  report: {},
});
