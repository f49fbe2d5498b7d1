/**
 * results.json as a zod schema: the one definition from which `loadResults` validates saved runs and
 * `schemas/results.schema.json` is generated (regenerate: `npm run generate`).
 * Objects accept unknown keys (and drop them on load) so that a reader of `tiergate/results@2` accepts
 * results from a later tiergate that only added optional fields; a breaking change bumps the `@2`
 * (@2: every check result carries `reasons`, codes with their figures; added since, optional: `headers`,
 * the rate-limit header dialect judged, declared or §8's). docs/evidence.md describes it.
 * A check's `data` is checked where the report reads it (its charts), against its verdict's type.
 */
import { z } from 'zod';
import { QUOTA_CLASSES, TIER_NAMES } from '../contract/types.ts';
import { RATE_LIMIT_DIALECT_NAMES } from '../contract/rate-limit-names.ts';
import { WRITE_POLICIES } from '../contract/writes.ts';
import type { AssumptionId } from '../contract/types.ts';
import { reportOf } from '../checks/catalogue.ts';
import type { ChartKind } from '../checks/define.ts';
import { CHECK_IDS, CHECK_VARIANTS, VERDICTS, type CheckResult } from '../catalogue/types.ts';
import { REASON_CODES, type Reason, type ReasonCode } from '../catalogue/reasons/index.ts';
import { DIALECT_AGREEMENTS, RESET_FORMATS, WINDOW_ALGORITHMS } from '../profile/types.ts';
import { FAULT_NAMES } from '../reference-server/faults.ts';
import { VARIANT_NAMES } from '../reference-server/variants.ts';
import type { SeriesPoint } from '../verdicts/hdr-remaining.ts';
import {
  FOOTPRINT_KINDS,
  RESULTS_SCHEMA,
  type ChartData,
  type HeldTimeline,
  type QuotaSeries,
  type RemainingSeries,
  type RevocationBrackets,
  type ValidResults,
} from './types.ts';

/**
 * A reason: its code and its figures (numbers, strings, booleans, lists). Which figures a code carries
 * is the code's type (catalogue/reasons); the file holds them as written.
 */
const reasonSchema = z
  .object({ code: z.enum(REASON_CODES as [ReasonCode, ...ReasonCode[]]).describe('The reason code.') })
  .catchall(z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number()]))]))
  .meta({ title: 'Reason' }) as unknown as z.ZodType<Reason>;

type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Same<A, B> = [DeepReadonly<A>] extends [DeepReadonly<B>]
  ? [DeepReadonly<B>] extends [DeepReadonly<A>]
    ? true
    : false
  : false;

/** `schema`, which tsc accepts only when it parses exactly T ("Expected 2 arguments": they drifted apart). */
const exactly =
  <T>() =>
  <S extends z.ZodType>(schema: S, ..._same: Same<z.output<S>, T> extends true ? [] : [never]): S =>
    schema;

const ASSUMPTION_IDS = [
  'auth-status',
  'scope-status',
  'concurrency-status',
  'quota-classes',
  'bulk-counts-per-resume',
  'head-bootstrap-free',
  'bootstrap-any-scope',
  'fixed-windows',
  'window-length',
  'counted-requests',
  'limit-header-class',
] as const satisfies readonly AssumptionId[];
// Every AssumptionId is listed (the reverse of the `satisfies` above): tsc fails here if one is missing.
type UnlistedAssumption = Exclude<AssumptionId, (typeof ASSUMPTION_IDS)[number]>;
const _allAssumptionsListed: [UnlistedAssumption] extends [never] ? true : UnlistedAssumption = true;
void _allAssumptionsListed;

const tierName = z.enum(TIER_NAMES).describe('Plan tier.');
const verdict = z.enum(VERDICTS);
const assumptionId = z.enum(ASSUMPTION_IDS);
const isoTime = z.string().describe('Wall clock, ISO 8601.');

const seriesPoint = exactly<SeriesPoint>()(
  z.object({
    n: z.number(),
    status: z.number().nullable(),
    remaining: z.number().nullable(),
    limit: z.number().nullable(),
  }),
);
const series = z.array(seriesPoint);
const quotaSeries = exactly<QuotaSeries>()(
  z.object({ series, limit: z.number().nullable(), first429: z.number().nullable() }),
);

/** The part of a check's data the report reads, by what it draws (the check module's `report.draws`), as its verdict types it. */
const CHART_DATA: { readonly [K in ChartKind]: z.ZodType<ChartData[K]> } = {
  'quota-series': quotaSeries,
  'remaining-series': exactly<RemainingSeries>()(z.object({ series })),
  'revocation-brackets': exactly<RevocationBrackets>()(
    z.object({
      slaMs: z.number(),
      trials: z.array(
        z.object({
          trial: z.number(),
          edge: z.string(),
          lowerMs: z.number().nullable(),
          upperMs: z.number().nullable(),
        }),
      ),
    }),
  ),
  'held-timeline': exactly<HeldTimeline>()(
    z.object({
      timeline: z.array(
        z.object({
          role: z.enum(['held', 'control', 'extra']),
          sentMs: z.number(),
          answeredMs: z.number().nullable(),
          status: z.number().nullable(),
        }),
      ),
      extraWindow: z.object({ fromMs: z.number(), toMs: z.number() }).nullable().optional(),
    }),
  ),
};

export const checkResultSchema = z
  .object({
    id: z.enum(CHECK_IDS).describe('Stable check ID (see `tiergate list`).'),
    variant: z.enum(CHECK_VARIANTS).describe("Variant within the check, e.g. 'sequential' or 'burst'; '' when none."),
    tier: tierName.nullable().describe('Tier the check ran for; null when it is not tier-specific.'),
    org: z.string().nullable().describe('Organization label within the run.'),
    title: z.string(),
    spec: z.string().describe("Spec sections it enforces, e.g. '§7.1, §8'."),
    requirement: z.string().describe('The requirement, as one sentence.'),
    basis: z
      .enum(['spec', 'assumption'])
      .describe('Whether the requirement rests on the spec alone or on named assumptions.'),
    assumptions: z.array(assumptionId),
    verdict,
    expected: z.string().describe('What the spec (or assumption) requires, concretely for this case.'),
    actual: z.string().describe('What was observed.'),
    evidence: z
      .array(z.number().int())
      .describe('Ids of the observations (the observations file) that decide the verdict.'),
    notes: z.array(z.string()).describe('Caveats a reader needs beside the reasons.'),
    reasons: z
      .array(reasonSchema)
      .describe(
        'Why the result is not a plain pass (fail, inconclusive, skipped), or what a pass rests on: stable codes (`tiergate explain CODE`) with the figures behind them. Empty for a plain pass.',
      ),
    data: z.record(z.string(), z.unknown()).optional().describe('Check-specific figures for charts and tables.'),
    startedAt: isoTime,
    durationMs: z.number(),
  })
  .meta({ title: 'CheckResult' })
  // Checked, not parsed: the data is kept as written, its other fields included.
  .superRefine((result, ctx) => {
    const draws = reportOf(result.id).draws;
    const parsed =
      result.data === undefined || draws === undefined ? undefined : CHART_DATA[draws].safeParse(result.data);
    for (const issue of parsed?.error?.issues ?? [])
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['data', ...issue.path] });
  })
  // What superRefine just checked, said to the type system.
  .transform((result) => result as CheckResult);

/** One answer of the limiter profile (`Learned<T>`): the value with its evidence, or null with the reason. */
const learned = <T extends z.ZodType>(value: T, question: string) =>
  z
    .object({
      value: value.nullable().describe('The answer; null when the discovery could not decide it.'),
      how: z.string().describe('One sentence: what was seen, or what was missing to decide.'),
      evidence: z.array(z.number().int()).describe('Ids of the observations (the observations file) that decide it.'),
    })
    .describe(question);

const classProfileSchema = (quotaClass: string) =>
  z
    .object({
      quotaClass: z.enum(QUOTA_CLASSES).describe('Quota class this part of the profile is about.'),
      limit: z.number().nullable().describe('X-RateLimit-Limit announced for the class; null when none was.'),
      resetFormat: learned(
        z.enum(RESET_FORMATS),
        "How X-RateLimit-Reset is written: 'epoch-seconds' (what §8 specifies), 'epoch-millis', 'seconds-until', 'absent' or 'unreadable'.",
      ),
      resetSteady: learned(
        z.boolean(),
        'Whether X-RateLimit-Reset holds still within a window (false: it moves while Remaining counts down).',
      ),
      phase: learned(
        z.object({
          ms: z.number(),
          doubtMs: z.number(),
          clockOffsetMs: z
            .number()
            .default(0)
            .describe(
              "The server clock's offset from the harness's (ms) as estimated when the phase was placed; boundaries are found again through this figure.",
            ),
        }),
        "Where window boundaries fall on the server's clock: ms past each multiple of the window length, with its doubt.",
      ).default({ value: null, how: 'not recorded (results from before the phase was learned)', evidence: [] }),
      algorithm: learned(
        z.enum(WINDOW_ALGORITHMS),
        "How windows start: 'fixed-aligned' (on multiples of the window by the server clock), 'fixed-first-request' (at the first counted request after the last window ended), 'refilling' (no windows: quota comes back during the window) or 'unknown'.",
      ),
    })
    .describe(`How the ${quotaClass} class is limited.`);

const dialectProfileSchema = z.object({
  sent: learned(
    z.array(z.enum(RATE_LIMIT_DIALECT_NAMES)),
    'The rate-limit header dialects whose fields the responses carried, whatever the run declares; [] for none.',
  ),
  fields: z.array(z.string()).describe('Every rate-limit field received, lower case, in the order first seen.'),
  policies: z
    .array(
      z.object({
        name: z.string().nullable().describe('The policy name; null where the dialect names none (drafts 6 and 7).'),
        quota: z.number().int().describe('q, or the unnamed policy item.'),
        windowS: z.number().int().nullable().describe('w, seconds; null where not given.'),
        unit: z.string().describe('qu: "requests" where not given.'),
      }),
    )
    .describe('The policies RateLimit-Policy announced, each once, in the order first seen.'),
  agreement: learned(
    z.enum(DIALECT_AGREEMENTS),
    "Where X-RateLimit-* is sent beside another dialect: 'agrees' (the same limit, remaining and reset, within a second, on every answer that carried both), 'differs', or 'not-both' (no answer carried both).",
  ),
  classes: z
    .object({
      read: learned(z.string(), 'The policy a read is counted against.'),
      ingest: learned(z.string(), 'The policy an upload is counted against.'),
    })
    .optional()
    .describe(
      'Where one response reports several quotas: per quota class, the policy name whose remaining went down by exactly one when a request of the class was counted, and no other did; absent where the run declared no dialect naming policies.',
    ),
});

export const limiterProfileSchema = z
  .object({
    tier: tierName,
    org: z.string().describe('Organization (run label) the profile was learned on.'),
    windowMs: z.number().describe('Window length the run was told the server uses, ms.'),
    headers: learned(z.boolean(), 'Whether responses carry X-RateLimit-Limit, -Remaining and -Reset at all.'),
    dialects: dialectProfileSchema
      .optional()
      .describe('Which rate-limit dialects the responses carried (absent in files from before it was learned).'),
    read: classProfileSchema('read'),
    ingest: classProfileSchema('ingest'),
    counts: z
      .object({
        head: learned(z.boolean(), 'Whether HEAD /recruiter/bootstrap consumes a read request.'),
        'not-found': learned(z.boolean(), 'Whether a 404 answer consumes a read request.'),
        forbidden: learned(z.boolean(), 'Whether a 403 answer (scope refused) consumes a read request.'),
        unauthenticated: learned(z.boolean(), 'Whether a 401 answer consumes a read request.'),
        rejected: learned(z.boolean(), 'Whether a 429 answer consumes a read request.'),
      })
      .describe('Which answers consume a read request.'),
    readSharedAcrossRoutes: learned(
      z.boolean(),
      'Whether the read endpoints draw on one counter (true) or count per route (false).',
    ),
    classesIndependent: learned(z.boolean(), 'Whether read and ingest have counters and windows of their own.'),
    concurrency: learned(
      z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('refuses'), status: z.number().int().describe('The status of the refusal.') }),
        z.object({ kind: z.literal('queues') }),
        z.object({ kind: z.literal('no-cap') }),
      ]),
      "How the server answers one request beyond the concurrency cap while the cap is held: 'refuses' (with a status), 'queues' (until a request in flight finishes) or 'no-cap' (admitted). Learned by the CONCURRENCY-CAP check, not by the discovery.",
    ).default({
      value: null,
      how: 'not recorded (results from before the concurrency answer was learned)',
      evidence: [],
    }),
    observations: z.number().int().describe('How many observations the discovery sent.'),
    durationMs: z.number().describe('How long the discovery took, ms.'),
  })
  .meta({
    title: 'LimiterProfile',
    description: 'How a server limits, learned from its own answers before it is judged.',
  });

export const resultsSchema = z
  .object({
    schema: z.literal(RESULTS_SCHEMA).describe('Format and major version of this file.'),
    runId: z.string(),
    tool: z.object({
      name: z.literal('tiergate'),
      version: z.string(),
      revision: z.string().nullable().describe('Git revision of tiergate, when known.'),
    }),
    contract: z.object({ name: z.string(), version: z.string() }),
    target: z.object({
      kind: z.enum(['embedded', 'external']),
      edges: z.array(z.string()).describe('Edge base URLs, in edge order.'),
      faults: z.array(z.enum(FAULT_NAMES)).describe('Faults injected into the embedded target.'),
      variants: z
        .array(z.enum(VARIANT_NAMES))
        .optional()
        .describe(
          'Conformant variants the embedded target showed (absent in files from before variants: read as none).',
        ),
    }),
    startedAt: isoTime,
    finishedAt: isoTime,
    durationMs: z.number(),
    windowSeconds: z.number(),
    tiers: z.array(tierName),
    clock: z
      .object({
        offsetMs: z.number().describe('Server clock minus client clock, ms.'),
        uncertaintyMs: z.number().describe("Half-width of the estimate's error bound, ms."),
        samples: z.number().int(),
      })
      .nullable(),
    network: z
      .object({
        figures: z
          .object({
            samples: z.number().int().describe('Round trips measured (requests sent into a quiet edge).'),
            minMs: z.number(),
            medianMs: z.number(),
            p90Ms: z.number(),
            maxMs: z.number(),
            spreadMs: z.number().describe('p90 less the fastest: how far round trips stray above the path.'),
            timerLateMs: z.number().describe("How late this machine's timers fired (event loop delay, p99)."),
          })
          .describe('The round trips to the deployment, as the run measured them.'),
        margins: z
          .object({
            windowEndMs: z.number(),
            openerLeadMs: z.number(),
            lastReadClearanceMs: z.number(),
            slotFreedMs: z.number(),
            waitOutMs: z.number(),
            retimeAfterMs: z.number(),
            beforeBoundaryMs: z.number(),
          })
          .catchall(z.number())
          .describe(
            'Every margin that depends on the network, as those figures call for (docs/how-it-measures.md "At a distance").',
          ),
      })
      .optional()
      .describe('The network and the margins in force (absent in files from before it, and in k6 runs).'),
    windows: z
      .object({ needed: z.number().int(), used: z.number().int() })
      .describe('Quota windows the plan needed at minimum, and the windows the run took.'),
    interrupted: z.boolean(),
    verdict: z.enum(['pass', 'fail', 'inconclusive']).describe("The run's verdict."),
    counts: z.object({
      pass: z.number().int(),
      fail: z.number().int(),
      inconclusive: z.number().int(),
      skipped: z.number().int(),
    }),
    checks: z.array(checkResultSchema),
    profiles: z
      .array(limiterProfileSchema)
      .default([])
      .describe(
        'How the server limits, one profile per tier, learned before the checks judged it (absent in files from before profiles: read as none).',
      ),
    declaredLimits: z
      .array(
        z.object({
          org: z.string().describe('Organization label within the run (its name in the config).'),
          tier: tierName,
          limits: z
            .object({
              read: z.number().int().optional(),
              ingest: z.number().int().optional(),
              concurrency: z.number().int().optional(),
            })
            .describe('The figures the config declared for it (orgs[].limits), each judged exactly.'),
        }),
      )
      .default([])
      .describe(
        'Organizations whose own figures the config declared: their contract, judged exactly (absent in files from before declared limits: read as none).',
      ),
    headers: z
      .object({
        declared: z
          .enum(RATE_LIMIT_DIALECT_NAMES)
          .nullable()
          .describe(
            "The dialect declared (config `headers`, `run --declare-headers`), which the run judged: the owner's explicit acceptance of that departure from §8; null: none declared, §8's was judged.",
          ),
        spec: z.literal('x-ratelimit').describe('The dialect §8 specifies: X-RateLimit-Limit, -Remaining and -Reset.'),
        policies: z
          .object({
            read: z.string().optional(),
            ingest: z.string().optional(),
            concurrency: z.string().optional(),
          })
          .describe('The policy each quota class goes by, by name, where the declaration names one.'),
      })
      .optional()
      .describe(
        "The rate-limit header dialect the run judged, declared or §8's (absent in files from before it, in k6 ingests and merged vantage points).",
      ),
    assumptions: z.array(
      z.object({
        id: assumptionId,
        statement: z.string(),
        gap: z.string().describe("The spec's own words that leave the gap."),
      }),
    ),
    methodology: z.array(z.object({ topic: z.string(), text: z.string() })),
    observations: z.object({
      file: z.string().describe('The NDJSON file of observations, relative to this file.'),
      count: z.number().int(),
      bodies: z
        .enum(['shape', 'kept'])
        .optional()
        .describe(
          "What observations keep of data reads' bodies: their shape only (top-level keys and types), or, with --keep-bodies, the bodies. Error bodies and the scope list are kept whole either way.",
        ),
    }),
    k6: z
      .object({ version: z.string().describe('As `k6 version` printed it, without the leading v: "2.2.0".') })
      .optional()
      .describe('The k6 that drove the load (`run --engine k6`); absent when the harness drove it.'),
    footprint: z
      .object({
        writes: z
          .enum(WRITE_POLICIES)
          .describe("The config's writes policy: own (what the checks need, named tiergate) or none."),
        written: z.array(
          z.object({
            tier: z.enum(TIER_NAMES).nullable(),
            endpoint: z.string().describe('METHOD and path as the spec writes it, e.g. "PUT /recruiter/jobs/:id".'),
            sent: z.number().int(),
            admitted: z.number().int().describe('Answered 2xx.'),
          }),
        ),
        announced: z
          .array(
            z.object({
              tier: z.enum(TIER_NAMES),
              org: z.string(),
              kind: z
                .enum(FOOTPRINT_KINDS)
                .describe(
                  'resumes: accepted, single and bulk; jobs-changed: updates and archives of the jobs the run created.',
                ),
              planned: z.number().int().describe('What the plan announced: exactly, or at most (bound).'),
              bound: z.enum(['exact', 'at-most']),
              quota: z
                .object({
                  windows: z.number().int(),
                  figure: z.number().int(),
                  maxFactor: z.number(),
                  resumesPerUnit: z.number().int(),
                })
                .optional()
                .describe(
                  "The part of the bound that is the ingest quota's: windows of the Limit the deployment announced (the figure at least, at most maxFactor times it), in resumes per unit counted.",
                ),
              done: z
                .number()
                .int()
                .describe('Admitted (2xx), from the observations; resumes by what each upload carried.'),
            }),
          )
          .default([])
          .describe('Per organization and kind, what the plan announced beside what was done.'),
        created: z.array(
          z.object({
            kind: z.enum(['job', 'webhook']),
            tier: z.enum(TIER_NAMES),
            org: z.string(),
            id: z.string().nullable(),
            cleanedUp: z
              .boolean()
              .describe(
                'Archived by the run (a job), or removed by the cleanup hook (a webhook subscription); false: left behind.',
              ),
          }),
        ),
        keys: z
          .object({ provisioned: z.number().int(), revoked: z.number().int() })
          .describe('Keys the revocation trials had the hook provision, and revoke.'),
      })
      .optional()
      .describe(
        'What the run wrote to the deployment, from its observations, and what it created and cleaned up; absent for k6 runs and older results.',
      ),
  })
  .meta({
    title: 'tiergate results',
    description: "A tiergate run's record (results.json), from which every report is rendered.",
  });

/** The JSON Schema of results.json, as committed in `schemas/results.schema.json`. */
export function resultsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(resultsSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}

/** `JSON.stringify` of the schema as the committed file holds it (two-space indent, final newline). */
export function resultsJsonSchemaText(): string {
  return `${JSON.stringify(resultsJsonSchema(), null, 2)}\n`;
}

// The schema and the ValidResults type must describe the same thing: tsc fails here if they drift.
type Parsed = DeepReadonly<z.output<typeof resultsSchema>>;
type Declared = DeepReadonly<ValidResults>;
const _schemaCoversType: (value: Declared) => Parsed = (value) => value;
const _typeCoversSchema: (value: Parsed) => Declared = (value) => value;
void _schemaCoversType;
void _typeCoversSchema;
