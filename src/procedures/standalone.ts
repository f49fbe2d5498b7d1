/**
 * The context of a task run on its own, outside a suite (benches, tests of one task): no limiter
 * profile learned (windows scheduled as for an unknown limiter), no assumption declared, the server
 * clock taken for ours, no events, no observations file.
 */
import type { SuiteContext } from './context.ts';
import { WindowKeeper } from './windows.ts';

export type StandaloneInput = Pick<SuiteContext, 'contract' | 'prober' | 'io' | 'orgs' | 'windowMs'> &
  Partial<Pick<SuiteContext, 'keyHook' | 'provisionOrgs' | 'reportDir' | 'timeoutMs'>>;

export function standaloneContext(input: StandaloneInput): SuiteContext {
  const { contract, prober, windowMs, io } = input;
  return {
    keyHook: null,
    provisionOrgs: null,
    reportDir: null,
    timeoutMs: 5000,
    ...input,
    windows: new WindowKeeper({
      contract,
      prober,
      windowMs,
      signal: io.signal,
      clockOffsetMs: () => 0,
      clockUncertaintyMs: () => 1000,
      wallNow: Date.now,
      profileOf: () => null,
    }),
    profileOf: () => null,
    declared: {},
    clockOffsetMs: () => 0,
    emit: () => {},
    signal: io.signal,
    recorder: null,
    revocation: {},
  };
}
