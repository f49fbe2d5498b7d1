/**
 * How a server limits, learned on one organization: the discovery's requests (discover.ts), then the
 * inference over what they recorded (infer.ts). The one way both `tiergate run` (beside its checks)
 * and `tiergate profile` (alone) learn it.
 */
import { recruitingApi } from '../contract/recruiting-api.ts';
import { QUOTA_CLASSES, type OrgLimits, type QuotaClass, type TierName } from '../contract/types.ts';
import type { HttpProber } from '../measure/http-prober.ts';
import { discover } from './discover.ts';
import { inferProfile } from './infer.ts';
import type { DialectProfile, LimiterProfile } from './types.ts';

/** The organization learned on: its keys (one with every scope, one with none where there is one) and its own figures. */
export interface LimiterOrg {
  readonly tier: TierName;
  readonly label: string;
  readonly primary: { readonly key: string };
  readonly unscoped?: { readonly key: string } | null;
  readonly limits?: Partial<OrgLimits>;
}

export interface LearnOptions {
  readonly prober: HttpProber;
  readonly windowMs: number;
  readonly clockOffsetMs: () => number;
  readonly signal: AbortSignal;
  /** May it upload a resume (not where the run may write nothing)? */
  readonly uploads: boolean;
  /** Names the resume it uploads (tiergate and the run id). */
  readonly runId: string;
  /** Stop once the used-up window is read, where the checks wait for it (DiscoveryInput.brief). */
  readonly brief?: boolean;
}

export async function learnLimiter(org: LimiterOrg, options: LearnOptions): Promise<LimiterProfile> {
  const record = await discover({
    prober: options.prober,
    contract: recruitingApi,
    tier: org.tier,
    org: org.label,
    keys: { primary: org.primary.key, unscoped: org.unscoped?.key ?? null },
    ...(org.limits ? { limits: org.limits } : {}),
    windowMs: options.windowMs,
    clockOffsetMs: options.clockOffsetMs,
    signal: options.signal,
    ...(options.brief === undefined ? {} : { brief: options.brief }),
    uploads: options.uploads,
    runId: options.runId,
  });
  const profile = inferProfile(record, options.clockOffsetMs());
  // The tier's later answers are read by the policy each class was learned to draw on.
  const classes = profile.dialects?.classes;
  if (classes) options.prober.learnPolicies(org.tier, learnedNames(classes));
  return profile;
}

/** The policy names learned, by class; a class left open is read as before (the first quota reported). */
function learnedNames(classes: NonNullable<DialectProfile['classes']>): Partial<Record<QuotaClass, string>> {
  return Object.fromEntries(
    QUOTA_CLASSES.flatMap((c) => (classes[c].value === null ? [] : [[c, classes[c].value]])),
  ) as Partial<Record<QuotaClass, string>>;
}
