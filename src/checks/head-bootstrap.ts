/** HEAD-BOOTSTRAP: HEAD /recruiter/bootstrap. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'HEAD-BOOTSTRAP',
  title: 'HEAD /recruiter/bootstrap',
  asserts: 'HEAD /recruiter/bootstrap: headers, no body, no quota used',
  spec: '§4',
  requirement:
    'HEAD /recruiter/bootstrap returns a status and the rate-limit headers, and no body; by assumption it consumes no read request.',
  assumptions: ['head-bootstrap-free'],
  verdict: verdictIn('headBootstrapVerdict', () => import('../verdicts/head-bootstrap.ts')),
  report: {},
});
