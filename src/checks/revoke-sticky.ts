/** REVOKE-STICKY: Revocation is permanent. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'REVOKE-STICKY',
  title: 'Revocation is permanent',
  asserts: 'once rejected, never admitted again by any edge',
  spec: '§5.9',
  requirement: 'Once an edge rejects a revoked key, no edge admits it again.',
  assumptions: ['auth-status'],
  verdict: verdictIn('revokeStickyVerdict', () => import('../verdicts/revoke-sticky.ts')),
  report: {},
});
