/**
 * results.json as a zod schema: the one definition from which `loadResults` validates saved runs and
 * `schemas/results.schema.json` is generated (regenerate: `node --import tsx src/results/generate-schema.ts`).
 * Objects accept unknown keys (and drop them on load) so that a reader of `tiergate/results@1` accepts
 * results from a later tiergate that only added optional fields; a breaking change bumps the `@1`.
 */
import { z } from 'zod';
import { TIER_NAMES } from '../contract/types.ts';
import type { AssumptionId } from '../contract/types.ts';
import { CHECK_IDS, VERDICTS } from '../checks/types.ts';
import { RESULTS_SCHEMA, type RunResults } from './types.ts';

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

export const checkResultSchema = z
  .object({
    id: z.enum(CHECK_IDS).describe('Stable check ID (see `tiergate list`).'),
    variant: z.string().describe("Variant within the check, e.g. 'sequential' or 'burst'; '' when none."),
    tier: tierName.nullable().describe('Tier the check ran for; null when it is not tier-specific.'),
    org: z.string().nullable().describe('Organization label within the run.'),
    title: z.string(),
    spec: z.string().describe("Spec sections it enforces, e.g. '§7.1, §8'."),
    requirement: z.string().describe('The requirement, as one sentence.'),
    basis: z.enum(['spec', 'assumption']).describe('Whether the requirement rests on the spec alone or on named assumptions.'),
    assumptions: z.array(assumptionId),
    verdict,
    expected: z.string().describe('What the spec (or assumption) requires, concretely for this case.'),
    actual: z.string().describe('What was observed.'),
    evidence: z.array(z.number().int()).describe('Ids of the observations (observations.ndjson) that decide the verdict.'),
    notes: z.array(z.string()).describe('Why a verdict is inconclusive or skipped, or other caveats.'),
    data: z.record(z.string(), z.unknown()).optional().describe('Check-specific figures for charts and tables.'),
    startedAt: isoTime,
    durationMs: z.number(),
  })
  .meta({ title: 'CheckResult' });

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
      faults: z.array(z.string()).describe('Faults injected into the embedded target.'),
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
    windows: z
      .object({ needed: z.number().int(), used: z.number().int() })
      .describe('Quota windows the plan needed at minimum, and the windows the run took.'),
    interrupted: z.boolean(),
    verdict: z.enum(['pass', 'fail', 'inconclusive']).describe("The run's verdict."),
    counts: z.object({ pass: z.number().int(), fail: z.number().int(), inconclusive: z.number().int(), skipped: z.number().int() }),
    checks: z.array(checkResultSchema),
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
    }),
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

// The schema and the RunResults type must describe the same thing: tsc fails here if they drift.
type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type Parsed = DeepReadonly<z.output<typeof resultsSchema>>;
type Declared = DeepReadonly<RunResults>;
const _schemaCoversType: (value: Declared) => Parsed = (value) => value;
const _typeCoversSchema: (value: Parsed) => Declared = (value) => value;
void _schemaCoversType;
void _typeCoversSchema;
