/**
 * `tiergate profile`: learn how a deployment limits, without running the suite. Opens the target
 * (embedded or --config), and on each tier's first organization runs the discovery the suite runs
 * beside its checks (learnLimiter, src/profile/learn.ts). Nothing is judged.
 */
import type { TierName } from '../contract/types.ts';
import { EXIT } from '../util/errors.ts';
import type { Io } from '../util/io.ts';
import { ObservationRecorder } from '../measure/recorder.ts';
import { clockEstimate, narrowOffset, type OffsetInterval } from '../measure/server-clock.ts';
import { learnLimiter } from '../profile/learn.ts';
import type { LimiterProfile } from '../profile/types.ts';
import type { RunOptions } from './options.ts';
import { openTargetSession, sessionProber } from './target-session.ts';
import { newRunId } from './run-id.ts';
import { preflight } from './preflight.ts';

export interface ProfileOptions {
  readonly target: RunOptions['target'];
  readonly windowMs: number;
  readonly tiers: readonly TierName[];
  readonly timeoutMs: number;
  /** The dialect the embedded target's answers are read in (`--declare-headers`); a config's `headers` otherwise. */
  readonly declaredHeaders?: RunOptions['declaredHeaders'];
}

export interface ProfileOutcome {
  readonly profiles: readonly LimiterProfile[];
  /** 0 when every tier asked for was profiled; 3 (inconclusive) when one could not be (interrupted, no org). */
  readonly exitCode: number;
}

export async function profileDeployment(options: ProfileOptions, io: Io): Promise<ProfileOutcome> {
  // Names the resume each discovery uploads: tiergate and an id of this profiling run.
  const runId = newRunId(Date.now());
  const session = await openTargetSession(options, io.env);
  const recorder = new ObservationRecorder(null);
  let offset: OffsetInterval | null = null;
  recorder.onObservation((o) => {
    offset = narrowOffset(offset, o);
  });
  const prober = sessionProber(session, io, { recorder, timeoutMs: options.timeoutMs, connectionsPerEdge: 4 });
  try {
    // Nothing is provisioned nor any quota spent before every edge has answered.
    await preflight(prober, { timeoutMs: options.timeoutMs, ca: session.ca });
    const orgs = await session.orgs(options.tiers.map((tier) => ({ tier, count: 1 })));
    const clockOffsetMs = () => clockEstimate(offset)?.offsetMs ?? 0;
    // Tiers one after another: each discovery times its reads against a window, and on two cores
    // parallel discoveries would blur each other's timing.
    const profiles: LimiterProfile[] = [];
    for (const tier of options.tiers) {
      const org = orgs.find((o) => o.tier === tier);
      if (!org || io.signal.aborted) continue;
      const uploads = options.target.kind !== 'external' || options.target.config.writes !== 'none';
      const { windowMs } = session;
      profiles.push(await learnLimiter(org, { prober, windowMs, clockOffsetMs, signal: io.signal, uploads, runId }));
    }
    const complete = profiles.length === options.tiers.length && !io.signal.aborted;
    return { profiles, exitCode: complete ? EXIT.pass : io.signal.aborted ? EXIT.interrupted : EXIT.inconclusive };
  } finally {
    await prober.close();
    await session.close();
    await recorder.close();
  }
}
