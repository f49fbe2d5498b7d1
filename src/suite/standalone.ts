/**
 * The context of a task run on its own, outside a suite (benches, tests of one task): no limiter
 * profile learned (windows shown fresh by the server's own answers), no assumption declared, the
 * server clock taken for ours, no events, no observations file.
 */
import type { SuiteContext } from './context.ts';
import { WindowKeeper } from '../windows/keeper.ts';
import type { ObservationRecorder } from '../measure/recorder.ts';
import { CreatedLedger } from './created.ts';
import { JudgementLog } from './judgements.ts';
import { NetworkMeter } from '../measure/network.ts';
import { remeasureBudget } from './remeasure.ts';

export type StandaloneInput = Pick<SuiteContext, 'contract' | 'prober' | 'io' | 'orgs' | 'windowMs'> &
  Partial<
    Pick<
      SuiteContext,
      'keyHook' | 'provisionOrgs' | 'reportDir' | 'timeoutMs' | 'writes' | 'network' | 'declaredHeaders'
    >
  > & {
    /** The prober's recorder: the window keeper sees every answer through it. */
    readonly recorder?: ObservationRecorder;
  };

export function standaloneContext(input: StandaloneInput): SuiteContext {
  const { contract, prober, windowMs, io, recorder } = input;
  // The prober's round trips reach it only where the caller built the prober with it.
  const network = input.network ?? new NetworkMeter();
  const windows = new WindowKeeper({
    contract,
    prober,
    windowMs,
    signal: io.signal,
    clockOffsetMs: () => 0,
    clockUncertaintyMs: () => 1000,
    wallNow: Date.now,
    profileOf: () => null,
    profileLearned: async () => null,
    margins: () => network.margins(),
  });
  recorder?.onObservation((o) => windows.observe(o));
  return {
    keyHook: null,
    provisionOrgs: null,
    reportDir: null,
    timeoutMs: 5000,
    writes: 'own',
    declaredHeaders: null,
    ...input,
    network,
    windows,
    profileOf: () => null,
    uploadMs: (tier, path, quantile) => windows.latencyMs(tier, 'ingest', path, quantile),
    declared: {},
    clockOffsetMs: () => 0,
    emit: () => {},
    signal: io.signal,
    recorder: recorder ?? null,
    revocation: {},
    runId: 'standalone',
    created: new CreatedLedger(),
    judgements: new JudgementLog(contract),
    remeasure: remeasureBudget(),
    removeWebhook: null,
  };
}
