/**
 * A SuiteContext over a reference target started for one test: an HttpProber on its edges, orgs
 * provisioned through the admin API, and `provisionOrgs` for fleet phases (or null to test the skip);
 * `connectionsPerEdge` as many as a task holds in flight at once.
 */
import { onTestFinished } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import type { TierName } from '../../src/contract/types.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { systemClock } from '../../src/util/io.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import type { OrgHandle } from '../../src/contract/handles.ts';
import { provisionOrg } from '../../src/provision/provision.ts';
import { AdminClient } from '../../src/reference-server/admin-client.ts';
import type { TargetOptions } from '../../src/reference-server/options.ts';
import { startTarget } from '../../src/reference-server/server.ts';
import { captureIo } from './capture-io.ts';
import { standaloneContext } from '../../src/suite/standalone.ts';

export interface LoadTestContext {
  readonly context: SuiteContext;
  readonly org: OrgHandle;
  readonly edges: readonly string[];
}

export async function loadTestContext(
  tier: TierName,
  target: TargetOptions,
  { fleet = true, connectionsPerEdge = 4 } = {},
): Promise<LoadTestContext> {
  const running = await startTarget({ edges: 2, parseMs: 0, ...target });
  const admin = new AdminClient(running.adminUrl);
  const { io } = captureIo();
  const recorder = new ObservationRecorder(null);
  const prober = new HttpProber({
    edges: running.edges.map((url, i) => ({ label: `edge-${i}`, url })),
    contract: recruitingApi,
    clock: systemClock,
    epoch: systemClock.monotonic(),
    recorder,
    timeoutMs: 5000,
    connectionsPerEdge,
    signal: io.signal,
  });
  onTestFinished(async () => {
    await prober.close();
    await running.close();
  });
  let fleetCount = 0;
  const org = await provisionOrg(admin, tier, `${tier}-a`);
  const context = standaloneContext({
    contract: recruitingApi,
    prober,
    io,
    orgs: [org],
    recorder,
    windowMs: running.options.windowMs,
    provisionOrgs: fleet
      ? (fleetTier, count, limits) =>
          Promise.all(
            Array.from({ length: count }, () =>
              provisionOrg(admin, fleetTier, `${fleetTier}-fleet-${++fleetCount}`, limits),
            ),
          )
      : null,
  });
  return { context, org, edges: running.edges };
}
