/** SCOPE-ENFORCED: Scopes enforced per endpoint. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'SCOPE-ENFORCED',
  title: 'Scopes enforced per endpoint',
  asserts: 'every scoped endpoint: 403 (assumed) without its scope, admitted with it',
  spec: '§4, §5.6',
  requirement: 'Each endpoint rejects a key lacking its scope and admits a key holding it.',
  assumptions: ['scope-status'],
  verdict: verdictIn('scopeEnforcedVerdict', () => import('../verdicts/scope-enforced.ts')),
  report: {},
});
