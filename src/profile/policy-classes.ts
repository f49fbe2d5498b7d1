/**
 * Which announced policy each quota class draws on, where one response reports several quotas
 * (issue 29): learned from which policy moves when a request is counted, never from its name. Pure.
 *
 * Between two consecutive answered requests of one organization, both admitted, the policy whose
 * `r` went down by exactly the later request's cost, while no other reported policy's did, is the
 * one that request's class draws on. Every such pair votes for its class; a class all of whose votes
 * name one policy has learned it, one with votes for two (or none) stays open, and the first quota a
 * response reports stays the one read for it.
 */
import type { QuotaClass } from '../contract/types.ts';
import { parseRateLimitFields, RATE_LIMIT_DIALECTS } from '../contract/rate-limit-dialects.ts';
import { isAdmitted, type Observation } from '../measure/observation.ts';
import { learned, undecided } from './learned.ts';
import type { Learned } from './types.ts';

/** Per quota class, the name of the policy its requests are counted against; null: not learned. */
export type PolicyClasses = Readonly<Record<QuotaClass, Learned<string>>>;

/** What one request costs a policy counted in requests (the only unit the discovery sends). */
const REQUEST_COST = 1;
/** Pairs cited as evidence, at most. */
const CITED = 4;

interface Vote {
  readonly quotaClass: QuotaClass;
  readonly policy: string;
  readonly ids: readonly [number, number];
}

/**
 * The policy each class draws on, from observations of one tier read in a declared dialect (their
 * `rateLimit.dialect.fields`, re-read here); `classOf` gives a request's class by its path.
 */
export function policyClassesOf(
  observations: readonly Observation[],
  classOf: (path: string) => QuotaClass,
): PolicyClasses {
  const votes = byOrganization(observations).flatMap((sent) => votesOf(sent, classOf));
  return { read: decided('read', votes), ingest: decided('ingest', votes) };
}

/** The same, where any observation was read in a declared dialect that names its policies; else null (nothing to learn). */
export function learnedPolicyClasses(
  observations: readonly Observation[],
  classOf: (path: string) => QuotaClass,
): PolicyClasses | null {
  const named = observations.some(
    (o) => o.rateLimit.dialect && RATE_LIMIT_DIALECTS[o.rateLimit.dialect.name].namesPolicies,
  );
  return named ? policyClassesOf(observations, classOf) : null;
}

/** Each organization's observations, in send order. */
function byOrganization(observations: readonly Observation[]): Observation[][] {
  const orgs = new Map<string, Observation[]>();
  for (const o of [...observations].sort((a, b) => a.id - b.id)) {
    if (o.org === null) continue;
    orgs.set(o.org, [...(orgs.get(o.org) ?? []), o]);
  }
  return [...orgs.values()];
}

function votesOf(sent: readonly Observation[], classOf: (path: string) => QuotaClass): Vote[] {
  return sent.slice(1).flatMap((b, i) => {
    const a = sent[i]!;
    if (!isAdmitted(a) || !isAdmitted(b)) return [];
    const [before, after] = [remainingByPolicy(a), remainingByPolicy(b)];
    const moved = [...after].filter(([name, r]) => before.get(name) === r + REQUEST_COST).map(([name]) => name);
    if (moved.length !== 1) return [];
    return [{ quotaClass: classOf(b.path), policy: moved[0]!, ids: [a.id, b.id] as const }];
  });
}

/** Each named quota the answer reports, by its policy name: what is left of it. */
function remainingByPolicy(o: Observation): Map<string, number> {
  const dialect = o.rateLimit.dialect;
  if (dialect === undefined) return new Map();
  const reading = parseRateLimitFields(dialect.name, dialect.fields);
  return new Map(
    reading.quotas.flatMap((q) => (q.policy === null || q.remaining === null ? [] : [[q.policy, q.remaining]])),
  );
}

function decided(quotaClass: QuotaClass, all: readonly Vote[]): Learned<string> {
  const votes = all.filter((v) => v.quotaClass === quotaClass);
  const names = [...new Set(votes.map((v) => v.policy))];
  const cited = (vs: readonly Vote[]) => vs.slice(0, CITED).flatMap((v) => v.ids);
  if (names.length === 0)
    return undecided(
      `no admitted ${quotaClass} request took exactly one from one reported policy alone, since the answer before it`,
    );
  if (names.length > 1) {
    const firsts = names.map((n) => votes.find((v) => v.policy === n)!);
    return undecided(
      `a ${quotaClass} counted against different policies on different requests (${names.join(', ')})`,
      cited(firsts),
    );
  }
  return learned(
    names[0]!,
    `${votes.length} ${quotaClass} request(s) took exactly one from policy ${names[0]} and from no other reported`,
    cited(votes),
  );
}
