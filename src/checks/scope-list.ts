/** SCOPE-LIST: Scope listing. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'SCOPE-LIST',
  title: 'Scope listing',
  asserts: '`{status:"success", data:[{scope, description}]}`, names within the seven',
  spec: '§2, §4, §5.7',
  requirement:
    'GET /recruiter/settings/services-api-scopes returns {status:"success", data:[{scope, description}]} naming only the seven scopes.',
  assumptions: ['bootstrap-any-scope'],
  verdict: verdictIn('scopeListVerdict', () => import('../verdicts/scope-list.ts')),
  report: {},
});
