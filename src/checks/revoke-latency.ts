/** REVOKE-LATENCY: Revocation reaches every edge in under 3 s. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'REVOKE-LATENCY',
  title: 'Revocation reaches every edge in under 3 s',
  asserts: 'every edge rejects a revoked key within 3 s (bounds per edge per trial)',
  spec: '§5.9, §8.3',
  requirement: 'After revocation every edge rejects the key within 3 s.',
  assumptions: ['auth-status'],
  verdict: verdictIn('revokeLatencyVerdict', () => import('../verdicts/revoke-latency.ts')),
  report: {
    draws: 'revocation-brackets',
  },
});
