/**
 * tiergate.config.json: a real deployment to test. Keys are never in the file, only the names of
 * environment variables holding them. Unknown keys are refused (strict), so typos surface.
 */
import { z } from 'zod';
import { TIER_NAMES, SCOPE_NAMES } from '../contract/types.ts';
import { parseDurationMs } from '../util/duration.ts';

export const duration = (what: string) =>
  z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `${what}: expected a duration like "300ms", "3s" or "1m"` });
        return z.NEVER;
      }
      return ms;
    });

/** A secret by reference: `{"env": "XH_STARTER_KEY_A"}`. */
export const envRef = z.strictObject({
  env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name like XH_STARTER_KEY_A'),
});
export type EnvRef = z.infer<typeof envRef>;

const keyRef = z.union([envRef, z.string()]).superRefine((value, ctx) => {
  if (typeof value === 'string') {
    ctx.addIssue({
      code: 'custom',
      message: 'keys never go in the config file: write {"env": "VARIABLE"} and export the key in that variable',
    });
  }
});

const orgSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes'),
  tier: z.enum(TIER_NAMES),
  keys: z.strictObject({
    /** A key holding every scope. */
    primary: keyRef,
    /** A second key of the same org (ORG-SHARED). */
    secondary: keyRef.optional(),
    /** A key holding no scope (SCOPE-ENFORCED). */
    unscoped: keyRef.optional(),
  }),
});

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  target: z.strictObject({
    /** Base URLs of the edge nodes; the first is used for quota checks. */
    edges: z.array(z.url({ protocol: /^https?$/ })).min(1),
    /** Response header naming the node that answered. */
    edgeHeader: z.string().default('x-edge-node'),
    /** Traffic goes only to loopback unless this is set. */
    allowNonLoopback: z.boolean().default(false),
  }),
  /** Length of the quota window; the spec's figures are per minute. */
  window: duration('window').default(60_000),
  /** Per-request timeout. */
  timeout: duration('timeout').default(5_000),
  orgs: z.array(orgSchema).min(1),
  revocation: z
    .strictObject({
      /** Name of the org (from `orgs`) whose keys the hook provisions and revokes. */
      org: z.string(),
      trials: z.number().int().min(1).max(1000).default(20),
      interval: duration('revocation.interval').default(10),
      settle: duration('revocation.settle').default(2000),
      hook: z.unknown(),
    })
    .optional(),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
export type OrgConfig = z.output<typeof orgSchema>;
export const SCOPES = SCOPE_NAMES;
