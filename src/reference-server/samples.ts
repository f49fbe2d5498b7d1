/**
 * Plausible sample records the target serves. The spec shows no fields for jobs, candidates,
 * transcripts or scorecards (§2: "not shown"), so these shapes are the target's own.
 * Ids `demo-1`.. match the contract's default path id (`resolvePath`), so callers can reach them.
 */

export const JOB_STATUSES = ['draft', 'active', 'archived'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface Stage {
  readonly id: string;
  readonly name: string;
  readonly order: number;
}

export interface Criterion {
  readonly id: string;
  readonly name: string;
  readonly weight: number;
}

export interface Job {
  readonly id: string;
  readonly title: string;
  readonly status: JobStatus;
  readonly department: string | null;
  readonly location: string | null;
  readonly stages: readonly Stage[];
  readonly criteria: readonly Criterion[];
  readonly created_at: string;
  readonly updated_at: string;
}

export const DEFAULT_STAGES: readonly Stage[] = [
  { id: 'stage-screen', name: 'Resume screen', order: 1 },
  { id: 'stage-phone', name: 'Phone interview', order: 2 },
  { id: 'stage-onsite', name: 'Onsite interview', order: 3 },
  { id: 'stage-offer', name: 'Offer', order: 4 },
];

const EPOCH = '2024-01-15T09:00:00.000Z';

export const SAMPLE_JOBS: readonly Job[] = [
  {
    id: 'demo-1',
    title: 'Senior Backend Engineer',
    status: 'active',
    department: 'Engineering',
    location: 'Remote (EU)',
    stages: DEFAULT_STAGES,
    criteria: [
      { id: 'crit-go', name: 'Distributed systems in Go or Rust', weight: 0.4 },
      { id: 'crit-sql', name: 'PostgreSQL at scale', weight: 0.3 },
      { id: 'crit-comm', name: 'Written communication', weight: 0.3 },
    ],
    created_at: EPOCH,
    updated_at: EPOCH,
  },
  {
    id: 'demo-2',
    title: 'Product Designer',
    status: 'draft',
    department: 'Design',
    location: 'Berlin',
    stages: DEFAULT_STAGES.slice(0, 3),
    criteria: [
      { id: 'crit-portfolio', name: 'Portfolio of shipped work', weight: 0.6 },
      { id: 'crit-research', name: 'User research', weight: 0.4 },
    ],
    created_at: EPOCH,
    updated_at: EPOCH,
  },
  {
    id: 'demo-3',
    title: 'Data Analyst',
    status: 'archived',
    department: 'Finance',
    location: 'London',
    stages: DEFAULT_STAGES,
    criteria: [{ id: 'crit-sql2', name: 'SQL and dashboards', weight: 1 }],
    created_at: EPOCH,
    updated_at: EPOCH,
  },
];

export interface Candidate {
  readonly id: string;
  readonly name: string;
  readonly job_id: string;
  readonly stage_id: string;
  readonly transcripts: readonly {
    readonly id: string;
    readonly stage_id: string;
    readonly recorded_at: string;
    readonly duration_seconds: number;
    readonly turns: readonly { readonly speaker: 'interviewer' | 'candidate'; readonly text: string }[];
  }[];
  readonly scorecards: readonly {
    readonly id: string;
    readonly stage_id: string;
    readonly interviewer: string;
    readonly recommendation: 'strong-yes' | 'yes' | 'no' | 'strong-no';
    readonly ratings: readonly { readonly criterion_id: string; readonly score: number }[];
    readonly notes: string;
  }[];
}

/** A candidate record: the sample ones, and those the admin API gives an organization. */
export function candidate(
  id: string,
  name: string,
  recommendation: 'strong-yes' | 'yes' | 'no',
  score: number,
): Candidate {
  return {
    id,
    name,
    job_id: 'demo-1',
    stage_id: 'stage-phone',
    transcripts: [
      {
        id: `tr-${id}`,
        stage_id: 'stage-phone',
        recorded_at: '2024-02-01T14:00:00.000Z',
        duration_seconds: 1860,
        turns: [
          { speaker: 'interviewer', text: 'Tell me about a system you scaled.' },
          { speaker: 'candidate', text: 'We sharded our job queue by tenant and cut p99 latency by half.' },
        ],
      },
    ],
    scorecards: [
      {
        id: `sc-${id}`,
        stage_id: 'stage-phone',
        interviewer: 'Alex Kim',
        recommendation,
        ratings: [
          { criterion_id: 'crit-go', score },
          { criterion_id: 'crit-comm', score: Math.min(5, score + 1) },
        ],
        notes: 'Clear reasoning about trade-offs.',
      },
    ],
  };
}

export const SAMPLE_CANDIDATES: ReadonlyMap<string, Candidate> = new Map(
  [
    candidate('demo-1', 'Jane Doe', 'strong-yes', 4),
    candidate('demo-2', 'Sam Rivera', 'yes', 3),
    candidate('demo-3', 'Lee Chen', 'no', 2),
  ].map((c) => [c.id, c]),
);
