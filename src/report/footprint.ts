/**
 * The report's "What the run wrote": the writes per tier and endpoint the observations show, and
 * each resource the run created, archived or left behind (README "What a run sends, writes and keeps").
 */
import type { Footprint, FootprintKind, PlannedAndDone } from '../results/types.ts';

/** One organization's planned write beside what was done, and whether it kept to the announcement. */
export interface AnnouncedRow {
  readonly tier: string;
  readonly org: string;
  readonly what: string;
  readonly announced: string;
  readonly done: number;
  readonly within: boolean;
  readonly judgement: string;
}

export interface FootprintView {
  readonly policy: string;
  readonly announced: readonly AnnouncedRow[];
  readonly written: readonly {
    readonly tier: string;
    readonly endpoint: string;
    readonly sent: number;
    readonly admitted: number;
  }[];
  readonly created: readonly { readonly text: string }[];
  readonly keys: string;
}

const POLICY: Readonly<Record<Footprint['writes'], string>> = {
  own: 'writes: own. The run wrote what its checks need, named tiergate and the run id, and archived the jobs it created.',
  none: 'writes: none. The run created and changed nothing; the checks that need an upload were skipped, and writes carried a body refused after the scope check.',
};

const WHAT: Readonly<Record<FootprintKind, string>> = {
  resumes: 'resumes accepted (single and bulk)',
  'jobs-created': 'jobs created',
  'jobs-changed': "updates of the run's own jobs (the update, the archive)",
  webhooks: 'webhook subscriptions',
};

/** Whether what was done kept to what was announced: equal to an exact figure, at most a bound. */
export const keptToAnnouncement = (row: Pick<PlannedAndDone, 'planned' | 'bound' | 'done'>): boolean =>
  row.bound === 'exact' ? row.done === row.planned : row.done <= row.planned;

function announcedRow(row: PlannedAndDone): AnnouncedRow {
  const within = keptToAnnouncement(row);
  const judgement = within
    ? 'as announced'
    : row.planned === 0
      ? 'not announced'
      : row.done > row.planned
        ? 'more than announced'
        : 'fewer than announced';
  return {
    tier: row.tier,
    org: row.org,
    what: WHAT[row.kind],
    announced: `${row.bound === 'at-most' ? 'at most ' : ''}${row.planned}`,
    done: row.done,
    within,
    judgement,
  };
}

export function footprintView(footprint: Footprint | undefined): FootprintView | null {
  if (!footprint) return null;
  return {
    policy: POLICY[footprint.writes],
    announced: footprint.announced.map(announcedRow),
    keys: `Keys the revocation trials had the hook provision: ${footprint.keys.provisioned}; revoke: ${footprint.keys.revoked}.`,
    written: footprint.written.map((r) => ({
      tier: r.tier ?? '—',
      endpoint: r.endpoint,
      sent: r.sent,
      admitted: r.admitted,
    })),
    created: footprint.created.map((c) => {
      const what = `${c.kind === 'job' ? 'a job' : 'a webhook subscription'}${c.id ? ` (${c.id})` : ''} of ${c.org}`;
      const fate = c.cleanedUp
        ? c.kind === 'job'
          ? 'archived by the run'
          : 'removed by the cleanup hook'
        : c.kind === 'webhook'
          ? 'left behind: the spec gives no call to remove a subscription (config cleanup.webhook can)'
          : 'left behind: the archive was not admitted';
      return { text: `${what}: ${fate}` };
    }),
  };
}
