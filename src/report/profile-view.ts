/**
 * The report's "How this server limits" section: one card per limiter profile, each answer in a
 * row with its value, the sentence saying how it was decided (or why not) and the deciding
 * observations, shown the way a check's evidence is (details.ts). Wording from profile-text.ts.
 */
import type { LimiterProfile } from '../profile/types.ts';
import { formatMs } from './charts/svg.ts';
import { evidenceView, shownEvidence, type EvidenceView } from './details.ts';
import type { ObservationDigest } from './observation-digest.ts';
import { profileFindings } from './profile-text.ts';

export interface ProfileFindingView extends EvidenceView {
  readonly label: string;
  readonly value: string;
  readonly decided: boolean;
  readonly how: string;
  /** `#453, #454`: the deciding observations' ids, for the evidence's summary line. */
  readonly ids: string;
}

export interface ProfileCardView {
  readonly anchor: string;
  readonly tier: string;
  readonly org: string;
  readonly duration: string;
  readonly requests: string;
  readonly window: string;
  /** Answers left undecided. */
  readonly unknown: number;
  readonly findings: readonly ProfileFindingView[];
}

/** Ids listed in an answer's evidence summary before the rest are counted. */
const IDS_LISTED = 8;

function idList(evidence: readonly number[]): string {
  const listed = evidence
    .slice(0, IDS_LISTED)
    .map((id) => `#${id}`)
    .join(', ');
  return evidence.length > IDS_LISTED ? `${listed} and ${evidence.length - IDS_LISTED} more` : listed;
}

const anchorOf = (profile: LimiterProfile): string =>
  `profile-${profile.tier}-${profile.org}`.replace(/[^A-Za-z0-9_-]/g, '_');

export function profileCards(profiles: readonly LimiterProfile[], digest: ObservationDigest): ProfileCardView[] {
  return profiles.map((profile) => {
    const findings = profileFindings(profile);
    return {
      anchor: anchorOf(profile),
      tier: profile.tier,
      org: profile.org,
      duration: formatMs(profile.durationMs),
      requests: `${profile.observations} request${profile.observations === 1 ? '' : 's'}`,
      window: `${profile.windowMs / 1000} s`,
      unknown: findings.filter((f) => !f.decided).length,
      findings: findings.map((f) => ({
        label: f.label,
        value: f.value,
        decided: f.decided,
        how: f.how,
        ids: idList(f.evidence),
        ...evidenceView(f.evidence, digest),
      })),
    };
  });
}

/** The observation ids the section shows (for the digest to keep). */
export function profileEvidence(profiles: readonly LimiterProfile[]): number[] {
  return profiles.flatMap((profile) => profileFindings(profile).flatMap((f) => shownEvidence(f.evidence)));
}
