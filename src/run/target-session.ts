/**
 * The target a run talks to: the embedded reference target (started here on loopback, with orgs and
 * keys provisioned through its admin API) or a real deployment named in a config file.
 */
import { commandWebhookRemover } from '../provision/hooks/cleanup.ts';
import type { TierName } from '../contract/types.ts';
import { HttpProber, type Edge } from '../measure/http-prober.ts';
import type { NetworkMeter } from '../measure/network.ts';
import type { ObservationRecorder } from '../measure/recorder.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Io } from '../util/io.ts';
import type { TargetInfo } from '../results/types.ts';
import { AdminClient } from '../reference-server/admin-client.ts';
import { startTargetThread } from '../reference-server/thread.ts';
import type { SuiteContext } from '../suite/context.ts';
import type { KeyHook, OrgHandle } from '../contract/handles.ts';
import { adminApiHook } from '../provision/hooks/admin-api.ts';
import { configKeyHook } from '../provision/hooks/from-config.ts';
import { headerDeclaration, type RunOptions } from './options.ts';
import type { HeaderDeclaration } from '../config/schema.ts';
import { provisionOrg, provisionTiers, type ProvisionRequest } from '../provision/provision.ts';
import { embeddedProfileOrg } from './plan-for.ts';

export interface TargetSession {
  readonly info: TargetInfo;
  readonly edges: readonly Edge[];
  readonly windowMs: number;
  /** Non-loopback edges are allowed only when a config says so explicitly. */
  readonly allowRemote: boolean;
  /** PEM of the CA(s) every client of the target trusts besides the public roots; null for none. */
  readonly ca: string | null;
  readonly edgeHeader: string;
  /** The rate-limit header dialect the run judges (config `headers`, `run --declare-headers`); null: §8's. */
  readonly headers: HeaderDeclaration | null;
  /** How long the target takes to answer an upload, where it is known before any (the embedded target's parse time); null: to be measured. */
  readonly uploadMs: number | null;
  /** The organizations quota and access checks use, per tier. */
  orgs(requests: readonly ProvisionRequest[]): Promise<OrgHandle[]>;
  /** An organization for revocation trials, or null when keys cannot be provisioned and revoked. */
  revocationOrg(tier: TierName): Promise<OrgHandle | null>;
  /** Per tier, an organization of its own to learn the limiter profile on beside the lanes; none where the target has none to spare. */
  profileOrgs(tiers: readonly TierName[]): Promise<OrgHandle[]>;
  readonly keyHook: KeyHook | null;
  /** Removes a webhook subscription the run created (config `cleanup.webhook`); null: none is removed. */
  readonly removeWebhook: SuiteContext['removeWebhook'];
  /** More organizations of a tier (fleet load); null where the target cannot create them. */
  readonly provisionOrgs: SuiteContext['provisionOrgs'];
  close(): Promise<void>;
}

/** Limits of the embedded target's revocation organization: its probes never meet a quota. */
export const REVOCATION_ORG_LIMITS = { read: 1_000_000, ingest: 1_000_000, concurrency: 1_000 } as const;

const edgesOf = (urls: readonly string[]): Edge[] => urls.map((url, i) => ({ label: `edge-${i}`, url }));

export async function openTargetSession(
  options: Pick<RunOptions, 'target' | 'windowMs' | 'declaredHeaders'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TargetSession> {
  const target = options.target;
  const headers = headerDeclaration(options);
  if (target.kind === 'external') {
    const config = target.config;
    const orgs = target.orgs;
    const ca = target.ca?.pem ?? null;
    const keyHook = config.revocation
      ? configKeyHook(config.revocation.hook, env, {
          allowRemote: config.target.allowNonLoopback,
          ca: ca ?? undefined,
        })
      : null;
    return {
      info: { kind: 'external', edges: config.target.edges, faults: [] },
      edges: edgesOf(config.target.edges),
      windowMs: config.window,
      allowRemote: config.target.allowNonLoopback,
      ca,
      edgeHeader: config.target.edgeHeader,
      headers,
      uploadMs: null,
      orgs: async (requests) => orgs.filter((o) => requests.some((r) => r.tier === o.tier)),
      revocationOrg: async () => orgs.find((o) => o.label === config.revocation?.org) ?? null,
      profileOrgs: async () => [],
      keyHook,
      removeWebhook: config.cleanup ? commandWebhookRemover(config.cleanup.webhook, config.cleanup.timeout, env) : null,
      provisionOrgs: null,
      close: async () => {},
    };
  }
  const running = await startTargetThread({
    edges: target.edges,
    windowMs: options.windowMs,
    revocationDelayMs: target.revocationDelayMs,
    revocationJitterMs: target.revocationJitterMs,
    parseMs: target.parseMs,
    faults: target.faults,
    variants: target.variants,
    tls: target.tls,
    latencyMs: target.latencyMs,
    jitterMs: target.jitterMs,
    headers: target.headers,
  });
  const admin = new AdminClient(running.adminUrl);
  let fleet = 0;
  return {
    info: { kind: 'embedded', edges: running.edges, faults: target.faults, variants: target.variants },
    edges: edgesOf(running.edges),
    windowMs: options.windowMs,
    allowRemote: false,
    ca: running.ca,
    edgeHeader: recruitingApi.headers.edgeNode,
    headers,
    uploadMs: target.parseMs,
    orgs: (requests) => provisionTiers(admin, requests, target.orgLimits),
    // Revocation is not about quotas: its organization gets Enterprise limits far above what its
    // probes send, so no limiter that counts them (HEAD, 401) can turn a probe into a 429.
    revocationOrg: async (tier) => ({
      ...(await provisionOrg(admin, 'enterprise', `${tier}-revocation`, REVOCATION_ORG_LIMITS)),
      tier,
    }),
    profileOrgs: (tiers) => Promise.all(tiers.map((tier) => provisionOrg(admin, tier, embeddedProfileOrg(tier)))),
    keyHook: adminApiHook(admin),
    // The embedded target is the run's own: its subscriptions go with it.
    removeWebhook: null,
    provisionOrgs: (tier, count, limits) =>
      Promise.all(Array.from({ length: count }, () => provisionOrg(admin, tier, `${tier}-fleet-${++fleet}`, limits))),
    close: () => running.close(),
  };
}

/** The prober over a session's edges: its edge header, its loopback rule, its CA, the header dialect declared, the run's clock and Ctrl-C. */
export function sessionProber(
  session: TargetSession,
  io: Io,
  options: {
    readonly recorder: ObservationRecorder;
    readonly timeoutMs: number;
    readonly connectionsPerEdge: number;
    readonly keepBodies?: boolean;
    readonly network?: NetworkMeter;
  },
): HttpProber {
  const contract = recruitingApi;
  return new HttpProber({
    edges: session.edges,
    contract: { ...contract, headers: { ...contract.headers, edgeNode: session.edgeHeader } },
    clock: io.clock,
    epoch: io.clock.monotonic(),
    recorder: options.recorder,
    timeoutMs: options.timeoutMs,
    connectionsPerEdge: options.connectionsPerEdge,
    signal: io.signal,
    allowRemote: session.allowRemote,
    ...(session.ca === null ? {} : { ca: session.ca }),
    keepBodies: options.keepBodies === true,
    ...(options.network ? { network: options.network } : {}),
    ca: session.ca ?? undefined,
    ...(session.headers === null ? {} : { rateLimitReader: session.headers }),
  });
}
