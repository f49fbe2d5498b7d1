/** ROTATION: Key rotation. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'ROTATION',
  title: 'Key rotation',
  asserts: 'a new key works before the old is revoked and after, on every edge',
  spec: '§5.8',
  requirement: 'A new key works before the old one is revoked, and keeps working after, on every edge.',
  assumptions: [],
  verdict: verdictIn('rotationVerdict', () => import('../verdicts/rotation.ts')),
  report: {},
});
