/**
 * The reference target on loopback, one organization for revocation trials, and a SuiteContext
 * around an HttpProber, as the suite would build them. Observations are kept in memory.
 */
import { PassThrough } from 'node:stream';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { HttpProber } from '../../src/measure/http-prober.ts';
import { systemClock, type Io } from '../../src/util/io.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { ObservationRecorder } from '../../src/measure/recorder.ts';
import type { SuiteContext } from '../../src/suite/context.ts';
import type { KeyHook, OrgHandle } from '../../src/contract/handles.ts';
import type { OrgLimits } from '../../src/contract/types.ts';
import { provisionOrg } from '../../src/provision/provision.ts';
import { AdminClient, type AdminRevocation } from '../../src/reference-server/admin-client.ts';
import type { FaultName } from '../../src/reference-server/faults.ts';
import type { VariantName } from '../../src/reference-server/variants.ts';
import { startTarget, type RunningTarget } from '../../src/reference-server/server.ts';
import { realClock } from '../../src/reference-server/clock.ts';
import { standaloneContext } from '../../src/suite/standalone.ts';
import { revocationTask, type RevocationTaskOptions } from '../../src/revocation/task.ts';
import { runTask } from '../../src/suite/task.ts';
import { defineScenario, type RevocationShape } from '../../src/scenario/define.ts';
import type { CheckResult } from '../../src/catalogue/types.ts';

export interface Harness {
  readonly target: RunningTarget;
  readonly admin: AdminClient;
  readonly org: OrgHandle;
  readonly observations: Observation[];
  /**
   * The wall clock (epoch ms) the target reads too, kept on the monotonic clock the probes are timed
   * by: a test setting the target's revocation times beside the probes then compares one clock with
   * itself, not Date.now with a monotonic clock a system clock step can move it away from.
   */
  readonly wallNow: () => number;
  context(keyHook: KeyHook | null, reportDir?: string | null): SuiteContext;
  close(): Promise<void>;
}

/**
 * `limits`: the organization gets figures of its own, as the suite's revocation organization does
 * (its trials then run several at once); without, Starter's cap of 5 holds one trial's probes only.
 */
export async function startHarness(
  options: {
    faults?: FaultName[];
    variants?: VariantName[];
    revocationDelayMs?: number;
    edges?: number;
    limits?: OrgLimits;
  } = {},
): Promise<Harness> {
  const wallOrigin = Date.now() - systemClock.monotonic();
  const wallNow = () => Math.floor(wallOrigin + systemClock.monotonic());
  const target = await startTarget({
    clock: { now: wallNow, delay: realClock.delay },
    edges: options.edges ?? 3,
    revocationDelayMs: options.revocationDelayMs ?? 300,
    windowMs: 60_000,
    faults: options.faults ?? [],
    variants: options.variants ?? [],
  });
  const admin = new AdminClient(target.adminUrl);
  const org = options.limits
    ? { ...(await provisionOrg(admin, 'enterprise', 'starter-revocation', options.limits)), tier: 'starter' as const }
    : await provisionOrg(admin, 'starter', 'starter-revocation');
  const observations: Observation[] = [];
  const recorder = new ObservationRecorder(null);
  recorder.onObservation((o) => observations.push(o));
  const controller = new AbortController();
  const epoch = systemClock.monotonic();
  const prober = new HttpProber({
    edges: target.edges.map((url, i) => ({ label: `edge-${i}`, url })),
    contract: recruitingApi,
    clock: systemClock,
    epoch,
    recorder,
    timeoutMs: 5000,
    // Room for several trials at once, each with one probe in flight per edge.
    connectionsPerEdge: 8,
    signal: controller.signal,
  });
  const io: Io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    cwd: process.cwd(),
    clock: systemClock,
    signal: controller.signal,
  };
  return {
    target,
    admin,
    org,
    observations,
    wallNow,
    context: (keyHook, reportDir = null) =>
      standaloneContext({ contract: recruitingApi, prober, io, orgs: [org], windowMs: 60_000, keyHook, reportDir }),
    close: async () => {
      controller.abort();
      await prober.close();
      await target.close();
    },
  };
}

/** The revocation task, as the run starts it, over `shape` on `org`. */
export function runRevocation(
  context: SuiteContext,
  org: OrgHandle,
  shape: RevocationShape,
  options: RevocationTaskOptions = {},
): Promise<CheckResult[]> {
  return runTask(revocationTask(options), context, {
    tier: org.tier,
    orgs: [org],
    scenario: defineScenario({ tier: org.tier, revocation: shape }),
    checks: null,
  });
}

/** The admin API hook, also keeping what the target says each revocation does per edge (epoch ms). */
export function recordingAdminHook(admin: AdminClient, revocations: AdminRevocation[]): KeyHook {
  return {
    kind: 'admin-api',
    provisionKey: async (org, scopes) => {
      const created = await admin.createKey(
        org.id!,
        scopes === 'all' ? recruitingApi.scopes.map((s) => s.scope) : scopes,
        'test',
      );
      return { label: `${org.label}/k`, key: created.key, id: created.id, scopes };
    },
    revokeKey: async (key) => {
      revocations.push(await admin.revokeKey(key.id!));
    },
  };
}
