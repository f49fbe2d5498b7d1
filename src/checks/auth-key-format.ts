/** AUTH-KEY-FORMAT: Keys match the published format. */
import { defineCheck, verdictIn } from './define.ts';

export const check = defineCheck({
  id: 'AUTH-KEY-FORMAT',
  title: 'Keys match the published format',
  asserts: 'every key used is `xh_live_`/`xh_test_` + 32 alphanumerics',
  spec: '§5.3',
  requirement: 'Every key is xh_live_ or xh_test_ followed by 32 alphanumeric characters.',
  assumptions: [],
  verdict: verdictIn('keyFormatVerdict', () => import('../verdicts/auth-key-format.ts')),
  notJudgedAgain: 'its input is the API keys themselves, which a run never writes down',
  report: {},
});
