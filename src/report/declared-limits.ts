/**
 * Figures the config declared for organizations (`orgs[].limits`), beside what the server announced:
 * per tier, organization and figure, the declared value and the X-RateLimit-Limit values the
 * organization's answers carried for that class (from the observations file, else the limiter profile
 * when it was learned on that organization). HDR-LIMIT judges the difference; this shows it.
 */
import { LIMIT_FIELDS, TIER_NAMES, type LimitField, type QuotaClass } from '../contract/types.ts';
import type { RunResults } from '../results/types.ts';
import type { ObservationDigest } from './observation-digest.ts';

export interface DeclaredLimitRow {
  readonly tier: string;
  readonly org: string;
  readonly figure: LimitField;
  readonly declared: number;
  /** The Limits the server announced for the class, in words. */
  readonly announced: string;
  /** Every announced Limit equals the declared figure; null: nothing to compare (none announced, or concurrency). */
  readonly agrees: boolean | null;
}

const ANSWERS = new Intl.NumberFormat('en-US');

function announcedFor(
  org: string,
  quotaClass: QuotaClass,
  results: Pick<RunResults, 'profiles'>,
  digest: ObservationDigest,
): { readonly values: readonly number[]; readonly text: string } {
  const seen = digest.announced
    .filter((a) => a.org === org && a.quotaClass === quotaClass)
    .sort((a, b) => b.count - a.count);
  if (seen.length > 0) {
    return {
      values: seen.map((a) => a.limit),
      text: seen.map((a) => `${a.limit} (${ANSWERS.format(a.count)} answer${a.count === 1 ? '' : 's'})`).join(', '),
    };
  }
  const learned = results.profiles.find((p) => p.org === org)?.[quotaClass].limit ?? null;
  if (learned !== null) return { values: [learned], text: `${learned} (limiter profile)` };
  return { values: [], text: digest.available ? 'none seen' : 'not known (the observations file was not available)' };
}

export function declaredLimitRows(
  results: Pick<RunResults, 'declaredLimits' | 'profiles'>,
  digest: ObservationDigest,
): DeclaredLimitRow[] {
  const byTier = [...results.declaredLimits].sort((a, b) => TIER_NAMES.indexOf(a.tier) - TIER_NAMES.indexOf(b.tier));
  return byTier.flatMap(({ org, tier, limits }) =>
    LIMIT_FIELDS.flatMap((figure): DeclaredLimitRow[] => {
      const declared = limits[figure];
      if (declared === undefined) return [];
      if (figure === 'concurrency') {
        return [
          {
            tier,
            org,
            figure,
            declared,
            announced: 'no header announces it (CONCURRENCY-CAP measures it)',
            agrees: null,
          },
        ];
      }
      const { values, text } = announcedFor(org, figure, results, digest);
      return [
        {
          tier,
          org,
          figure,
          declared,
          announced: text,
          agrees: values.length === 0 ? null : values.every((v) => v === declared),
        },
      ];
    }),
  );
}

/** One line for the terminal and the job summary: `enterprise-a read 10000, ingest 2000; enterprise-b read 5000`; null when none was declared. */
export function declaredLimitsText(declared: RunResults['declaredLimits']): string | null {
  if (declared.length === 0) return null;
  return declared
    .map(
      ({ org, limits }) =>
        `${org} ${LIMIT_FIELDS.flatMap((field) => (limits[field] === undefined ? [] : [`${field} ${limits[field]}`])).join(', ')}`,
    )
    .join('; ');
}
