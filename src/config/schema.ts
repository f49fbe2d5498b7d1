/**
 * tiergate.config.json: a real deployment to test. Keys are never in the file, only the names of
 * environment variables holding them. Unknown keys are refused (strict), so typos surface.
 */
import { z } from 'zod';
import { TIER_NAMES } from '../contract/types.ts';
import { parseDurationMs } from '../util/duration.ts';
import { containsFullKey } from '../contract/keys.ts';

export interface DurationRule {
  /** Smallest value accepted, ms (default 0). */
  readonly minMs?: number;
  /** Largest value accepted, ms (default a day: past 2^31 ms Node's timers fire at once). */
  readonly maxMs?: number;
  /** Only multiples of a second (quota windows: X-RateLimit-Reset has second resolution). */
  readonly wholeSeconds?: boolean;
}

/** A duration field: "300ms", "3s", "1m" or a number of ms. `what` names it in the issue (the path already locates it). */
export const duration = (what: string, rule: DurationRule = {}) =>
  z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const ms = parseDurationMs(value);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `expected a duration like "300ms", "3s" or "1m" (${what})` });
        return z.NEVER;
      }
      if (rule.wholeSeconds && (ms < 1000 || ms % 1000 !== 0)) {
        ctx.addIssue({ code: 'custom', message: `expected whole seconds, like "3s" or "60s" (${what} ${JSON.stringify(value)})` });
        return z.NEVER;
      }
      if (ms > (rule.maxMs ?? 86_400_000)) {
        ctx.addIssue({ code: 'custom', message: `expected at most ${rule.maxMs ?? 86_400_000} ms (${what} ${JSON.stringify(value)})` });
        return z.NEVER;
      }
      if (ms < (rule.minMs ?? 0)) {
        ctx.addIssue({ code: 'custom', message: `expected at least ${rule.minMs} ms (${what} ${JSON.stringify(value)})` });
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

/**
 * Revocation hooks (§5.8, §5.9): how the harness provisions and revokes keys on a real deployment.
 * Templates may hold `{key}`, `{keyId}` and `{env:NAME}` placeholders; secrets come only from the
 * environment. Every hook call has a timeout.
 */
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const hookTimeout = duration('hook timeout', { minMs: 1, maxMs: 600_000 }).default(10_000);

/** One HTTP call: method, URL, headers and body, each a template. */
const httpCall = {
  method: z.enum(HTTP_METHODS).default('POST'),
  url: z.string().min(1),
  headers: z.record(z.string(), z.string()).optional(),
  /** A string template, or JSON whose string values are templates. */
  body: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
};
export const httpCallSchema = z.strictObject(httpCall);
export type HttpCallConfig = z.output<typeof httpCallSchema>;

const httpProvision = z.strictObject({
  ...httpCall,
  /** Dotted path to the new key in the JSON response, e.g. "data.key". */
  keyPath: z.string().min(1),
  /** Dotted path to the new key's id, when the revoke call needs `{keyId}`. */
  keyIdPath: z.string().min(1).optional(),
});
export type HttpProvisionConfig = z.output<typeof httpProvision>;

const httpHook = z.strictObject({
  type: z.literal('http'),
  provision: httpProvision,
  revoke: httpCallSchema,
  timeout: hookTimeout,
});

const commandHook = z.strictObject({
  type: z.literal('command'),
  /** A shell command printing the new key (and optionally its id, after whitespace) on stdout. */
  provision: z.string().min(1),
  /** A shell command revoking `{key}` / `{keyId}`; exit status 0 means revoked. */
  revoke: z.string().min(1),
  timeout: hookTimeout,
});

/** A disposable key: the variable holding it, and the provider's id for `{keyId}`, when needed. */
const disposableKey = z.strictObject({
  env: envRef.shape.env,
  id: z.string().min(1).optional(),
});

const disposableHook = z.strictObject({
  type: z.literal('disposable'),
  /** Keys the trials may revoke, used in order: trials + 1 are needed (each trial's successor, ROTATION, is the next trial's key). */
  keys: z.array(disposableKey).min(1),
  revoke: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('http'), ...httpCall }),
    z.strictObject({ type: z.literal('command'), command: z.string().min(1) }),
  ]),
  timeout: hookTimeout,
});

/** Every string in a hook's config, with its path, to refuse keys written into the file. */
function stringsIn(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...path, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => stringsIn(v, [...path, k]));
  return [];
}

export const revocationHookSchema = z
  .discriminatedUnion('type', [httpHook, commandHook, disposableHook])
  .superRefine((hook, ctx) => {
    for (const { path, text } of stringsIn(hook)) {
      if (containsFullKey(text)) {
        ctx.addIssue({ code: 'custom', path, message: 'keys never go in the config file: use {env:NAME} in the template and export the key in that variable' });
      }
    }
  });
export type RevocationHookConfig = z.output<typeof revocationHookSchema>;

/**
 * What the deployment intends where the spec is silent. Declared false, an assumption's behaviour is
 * intended and judged as such (HEAD-BOOTSTRAP takes one read per HEAD as declared; QUOTA-INGEST's
 * bulk variant counts one unit per upload). Declared true, it is required (a HEAD that counts fails
 * HEAD-BOOTSTRAP). Undeclared, the harness learns it and reports it. Only the assumptions the checks
 * can honour are accepted.
 */
const assumptionsSchema = z.strictObject({
  'head-bootstrap-free': z.boolean().optional(),
  'bulk-counts-per-resume': z.boolean().optional(),
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
  window: duration('window', { wholeSeconds: true }).default(60_000),
  /** Per-request timeout. */
  timeout: duration('timeout', { minMs: 1, maxMs: 600_000 }).default(5_000),
  orgs: z.array(orgSchema).min(1),
  assumptions: assumptionsSchema.optional(),
  revocation: z
    .strictObject({
      /** Name of the org (from `orgs`) whose keys the hook provisions and revokes. */
      org: z.string(),
      trials: z.number().int().min(1).max(1000).default(20),
      interval: duration('revocation.interval', { minMs: 1 }).default(10),
      settle: duration('revocation.settle').default(2000),
      hook: revocationHookSchema,
    })
    .optional(),
});

export type Config = z.output<typeof configSchema>;
export type OrgConfig = z.output<typeof orgSchema>;
