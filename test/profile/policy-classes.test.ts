import { beforeEach, describe, expect, it } from 'vitest';
import { recruitingApi } from '../../src/contract/recruiting-api.ts';
import { quotaClassOfPath } from '../../src/contract/lookup.ts';
import { renderRateLimitFields, type PolicyFigures } from '../../src/contract/rate-limit-dialects.ts';
import type { Observation } from '../../src/measure/observation.ts';
import { rateLimitHeadersOf } from '../../src/measure/rate-limit-reading.ts';
import { learnedPolicyClasses, policyClassesOf } from '../../src/profile/policy-classes.ts';
import { inferProfile } from '../../src/profile/infer.ts';
import { record } from '../helpers/discovery-records.ts';
import { obs, resetObservations } from '../helpers/observations.ts';

const READ = '/recruiter/jobs';
const UPLOAD = '/recruiter/jobs/vendor/resume-analysis';
const NOW = Date.UTC(2026, 0, 1);
const classOf = (path: string) => quotaClassOfPath(recruitingApi, path);

/** One quota's state as RateLimit reports it. */
type State = readonly [policy: string, remaining: number];

/**
 * The ietf fields of one answer reporting every quota in `states`, in that order: each rendered by
 * the contract's renderer, their RateLimit items joined into one List.
 */
function ietfFields(policies: readonly PolicyFigures[], states: readonly State[]): Record<string, string> {
  const rendered = states.map(([policy, remaining]) => {
    const limit = policies.find((p) => p.name === policy)!.quota;
    return Object.fromEntries(
      renderRateLimitFields('ietf', { now: NOW, quota: { policy, limit, remaining, resetMs: NOW + 30_000 }, policies }),
    );
  });
  return {
    'ratelimit-policy': rendered[0]!['ratelimit-policy']!,
    ratelimit: rendered.map((f) => f.ratelimit).join(', '),
  };
}

/** An answer to `path` on `org` carrying `states`, as a run declaring ietf records it. */
function answer(
  path: string,
  policies: readonly PolicyFigures[],
  states: readonly State[],
  init: { readonly org?: string; readonly status?: number } = {},
): Observation {
  const headers = ietfFields(policies, states);
  const o = obs({ path, org: init.org ?? 'starter-a', ...(init.status ? { status: init.status } : {}) });
  return { ...o, rateLimit: rateLimitHeadersOf(headers, recruitingApi.headers, { dialect: 'ietf', policies: {} }) };
}

const TWO: readonly PolicyFigures[] = [
  { name: 'reads', quota: 60, windowS: 60 },
  { name: 'uploads', quota: 20, windowS: 60 },
];

beforeEach(() => resetObservations());

describe('policyClassesOf', () => {
  it('learns each class from the policy that moves, whatever order the answer reports them in', () => {
    const series = [
      answer(READ, TWO, [
        ['uploads', 20],
        ['reads', 59],
      ]),
      answer(READ, TWO, [
        ['uploads', 20],
        ['reads', 58],
      ]),
      answer(UPLOAD, TWO, [
        ['uploads', 19],
        ['reads', 58],
      ]),
      answer(UPLOAD, TWO, [
        ['reads', 58],
        ['uploads', 18],
      ]),
    ];
    const classes = policyClassesOf(series, classOf);
    expect(classes.read.value).toBe('reads');
    expect(classes.read.evidence).toEqual([1, 2]);
    expect(classes.ingest.value).toBe('uploads');
    expect(classes.ingest.evidence).toEqual([2, 3, 3, 4]);
    // Without it, the first quota reported is read: the uploads' on these reads.
    expect(series[1]!.rateLimit.remaining.value).toBe(20);
  });

  it('relies on no name: Cloudflare-like names that say nothing of the class', () => {
    const cf: PolicyFigures[] = [
      { name: 'default', quota: 100, windowS: 60 },
      { name: 'burst', quota: 10, windowS: 10 },
    ];
    const series = [
      answer(UPLOAD, cf, [
        ['default', 100],
        ['burst', 9],
      ]),
      answer(UPLOAD, cf, [
        ['default', 100],
        ['burst', 8],
      ]),
      answer(READ, cf, [
        ['burst', 8],
        ['default', 99],
      ]),
    ];
    const classes = policyClassesOf(series, classOf);
    expect(classes.ingest.value).toBe('burst');
    expect(classes.read.value).toBe('default');
  });

  it('stays open where two policies move together, or the votes disagree', () => {
    const together = [
      answer(READ, TWO, [
        ['reads', 59],
        ['uploads', 19],
      ]),
      answer(READ, TWO, [
        ['reads', 58],
        ['uploads', 18],
      ]),
    ];
    expect(policyClassesOf(together, classOf).read.value).toBeNull();
    resetObservations();
    const disagree = [
      answer(READ, TWO, [
        ['reads', 59],
        ['uploads', 19],
      ]),
      answer(READ, TWO, [
        ['reads', 58],
        ['uploads', 19],
      ]),
      answer(READ, TWO, [
        ['reads', 58],
        ['uploads', 18],
      ]),
    ];
    const read = policyClassesOf(disagree, classOf).read;
    expect(read.value).toBeNull();
    expect(read.evidence).toEqual([1, 2, 2, 3]);
    expect(policyClassesOf(together, classOf).ingest.value).toBeNull();
  });

  it('compares only consecutive admitted answers of one organization', () => {
    const series = [
      answer(
        READ,
        TWO,
        [
          ['reads', 59],
          ['uploads', 20],
        ],
        { org: 'starter-a' },
      ),
      answer(
        READ,
        TWO,
        [
          ['reads', 30],
          ['uploads', 19],
        ],
        { org: 'starter-b' },
      ),
      answer(
        READ,
        TWO,
        [
          ['reads', 58],
          ['uploads', 20],
        ],
        { org: 'starter-a' },
      ),
      answer(
        READ,
        TWO,
        [
          ['reads', 0],
          ['uploads', 20],
        ],
        { org: 'starter-a', status: 429 },
      ),
      answer(
        READ,
        TWO,
        [
          ['reads', 0],
          ['uploads', 19],
        ],
        { org: 'starter-a' },
      ),
    ];
    const read = policyClassesOf(series, classOf).read;
    expect(read.value).toBe('reads');
    expect(read.evidence).toEqual([1, 3]);
  });
});

describe('the profile', () => {
  it("records what the discovery's answers taught, under a dialect that names policies only", () => {
    const exhaustion = [
      answer(READ, TWO, [
        ['uploads', 20],
        ['reads', 59],
      ]),
      answer(READ, TWO, [
        ['uploads', 20],
        ['reads', 58],
      ]),
    ];
    const profile = inferProfile(record({ exhaustion, dialects: [] }));
    expect(profile.dialects?.classes?.read.value).toBe('reads');
    expect(profile.dialects?.classes?.ingest.value).toBeNull();
    // §8's fields name no policy: nothing to learn, nothing recorded.
    expect(learnedPolicyClasses([obs({ path: READ }), obs({ path: READ })], classOf)).toBeNull();
    expect(inferProfile(record({ exhaustion: [obs({ path: READ })], dialects: [] })).dialects?.classes).toBeUndefined();
  });
});
