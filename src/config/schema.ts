/**
 * tiergate.config.json: a real deployment to test. Keys are never in the file, only the names of
 * environment variables holding them. Unknown keys are refused (strict), so typos surface. Every
 * field's description goes into the editor schema (schemas/config.schema.json), so an editor
 * explains the field where it is written.
 */
import { WRITE_POLICIES } from '../contract/writes.ts';
import { z } from 'zod';
import { LIMIT_FIELDS, TIER_NAMES, type LimitField, type OrgLimits, type TierName } from '../contract/types.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import {
  RATE_LIMIT_DIALECTS,
  RATE_LIMIT_DIALECT_NAMES,
  isRateLimitDialectName,
  type RateLimitDialectName,
} from '../contract/rate-limit-names.ts';
import { parseDurationMs } from '../util/duration.ts';
import { containsFullKey } from '../contract/keys.ts';
import { parseConfidenceTarget } from './confidence-target.ts';
import { REVOCATION_LIMITS } from './defaults.ts';

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
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = parseDurationMs(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: `expected a duration like "300ms", "3s" or "1m" (${what})` });
      return z.NEVER;
    }
    if (rule.wholeSeconds && (ms < 1000 || ms % 1000 !== 0)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected whole seconds, like "3s" or "60s" (${what} ${JSON.stringify(value)})`,
      });
      return z.NEVER;
    }
    if (ms > (rule.maxMs ?? 86_400_000)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected at most ${rule.maxMs ?? 86_400_000} ms (${what} ${JSON.stringify(value)})`,
      });
      return z.NEVER;
    }
    if (ms < (rule.minMs ?? 0)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected at least ${rule.minMs} ms (${what} ${JSON.stringify(value)})`,
      });
      return z.NEVER;
    }
    return ms;
  });

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name like XH_STARTER_KEY_A')
  .describe('Name of the environment variable holding the key, e.g. XH_STARTER_A_KEY');

/** A secret by reference: `{"env": "XH_STARTER_KEY_A"}`. */
export const envRef = z.strictObject({ env: envName });
export type EnvRef = z.infer<typeof envRef>;

const keyRef = z.union([envRef, z.string()]).superRefine((value, ctx) => {
  if (typeof value === 'string') {
    ctx.addIssue({
      code: 'custom',
      message: 'keys never go in the config file: write {"env": "VARIABLE"} and export the key in that variable',
    });
  }
});

/** The keys an organization may name, each for its checks: every scope; a second of the same org; none. */
export const KEY_ROLES = ['primary', 'secondary', 'unscoped'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

/** `figures` of a tier as the schema's descriptions state them: "60 / 10 / 5". */
const figuresText = (tier: TierName) => LIMIT_FIELDS.map((field) => recruitingApi.tiers[tier][field].value).join(' / ');

const limitFigure = (what: string) => z.number().int().positive().max(1_000_000_000).optional().describe(what);

/** An organization's own figures (§8 sells Enterprise "2,500 or more"; its contract says how much more). */
const orgLimitsSchema = z
  .strictObject({
    read: limitFigure('Read requests per window its contract sets, e.g. 10000'),
    ingest: limitFigure('Resumes ingested per window its contract sets, e.g. 2000'),
    concurrency: limitFigure('Requests in flight at once its contract sets, e.g. 250'),
  } satisfies Record<LimitField, unknown>)
  .describe(
    `This organization's own figures, each optional: judged exactly (an X-RateLimit-Limit other than the figure fails HDR-LIMIT; without one, the quota checks count to it). Enterprise: at least the published minimums (read / ingest / concurrency ${figuresText('enterprise')}); Starter and Professional: only their published figures (${figuresText('starter')}, ${figuresText('professional')})`,
  ) satisfies z.ZodType<Partial<OrgLimits> | undefined>;

const orgSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes')
      .describe(
        'Label of the organization in results and reports: lower-case letters, digits and dashes, unique in the file',
      ),
    tier: z.enum(TIER_NAMES).describe('The plan tier the organization is on: its quotas are the ones judged'),
    keys: z
      .strictObject({
        primary: keyRef.describe('A key of this organization holding every scope: {"env": "VARIABLE"}'),
        secondary: keyRef
          .optional()
          .describe(
            'A second key of the same organization, holding every scope (ORG-SHARED: both keys share one quota)',
          ),
        unscoped: keyRef
          .optional()
          .describe(
            'A key of this organization holding no scope (SCOPE-ENFORCED: refused with 403 on every scoped endpoint)',
          ),
      } satisfies Record<KeyRole, unknown>)
      .describe('API keys of this organization, by environment variable name only: a key written here is refused'),
    limits: orgLimitsSchema.optional(),
  })
  .describe('An organization of the deployment the run may spend quota on');

/**
 * Revocation hooks (§5.8, §5.9): how the harness provisions and revokes keys on a real deployment.
 * Templates may hold `{key}`, `{keyId}` and `{env:NAME}` placeholders; secrets come only from the
 * environment. Every hook call has a timeout.
 */
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const hookTimeout = duration('hook timeout', { minMs: 1, maxMs: 600_000 })
  .default(10_000)
  .describe('How long one hook call may take: "10s", "500ms" or ms (default 10 s)');

/** One HTTP call: method, URL, headers and body, each a template. */
const httpCall = {
  method: z.enum(HTTP_METHODS).default('POST').describe('HTTP method (default POST)'),
  url: z.string().min(1).describe('URL template: {key}, {keyId} and {env:NAME} are filled in'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe('Header templates, e.g. {"authorization": "Bearer {env:ADMIN_TOKEN}"}'),
  body: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .optional()
    .describe('A string template, or JSON whose string values are templates'),
};
export const httpCallSchema = z.strictObject(httpCall);
export type HttpCallConfig = z.output<typeof httpCallSchema>;

const httpProvision = z
  .strictObject({
    ...httpCall,
    keyPath: z.string().min(1).describe('Dotted path to the new key in the JSON response, e.g. "data.key"'),
    keyIdPath: z
      .string()
      .min(1)
      .optional()
      .describe("Dotted path to the new key's id in the JSON response, when the revoke call needs {keyId}"),
  })
  .describe('The HTTP call creating a key with every scope in the revocation organization');
export type HttpProvisionConfig = z.output<typeof httpProvision>;

const revokeCall = httpCallSchema.describe('The HTTP call revoking {key} / {keyId}; a 2xx answer means revoked');

const httpHook = z.strictObject({
  type: z.literal('http').describe('Provision and revoke keys with HTTP calls'),
  provision: httpProvision,
  revoke: revokeCall,
  timeout: hookTimeout,
});

const commandHook = z.strictObject({
  type: z.literal('command').describe('Provision and revoke keys with shell commands'),
  provision: z
    .string()
    .min(1)
    .describe('A shell command printing the new key (and optionally its id, after whitespace) on stdout'),
  revoke: z.string().min(1).describe('A shell command revoking {key} / {keyId}; exit status 0 means revoked'),
  timeout: hookTimeout,
});

const disposableKey = z
  .strictObject({
    env: envName,
    id: z.string().min(1).optional().describe("The provider's id for the key, when the revoke call needs {keyId}"),
  })
  .describe('A key the trials may revoke: the variable holding it, and its id');

const disposableHook = z.strictObject({
  type: z.literal('disposable').describe('Revoke keys made beforehand, listed here by environment variable'),
  keys: z
    .array(disposableKey)
    .min(1)
    .describe(
      "Keys the trials may revoke, used in order: trials + 1 are needed (each trial's successor, ROTATION, is the next trial's key)",
    ),
  revoke: z
    .discriminatedUnion('type', [
      z.strictObject({ type: z.literal('http').describe('Revoke with an HTTP call'), ...httpCall }),
      z.strictObject({
        type: z.literal('command').describe('Revoke with a shell command'),
        command: z.string().min(1).describe('A shell command revoking {key} / {keyId}; exit status 0 means revoked'),
      }),
    ])
    .describe(
      'How to revoke a listed key: an HTTP call ({"type": "http", ...}) or a command ({"type": "command", "command": ...})',
    ),
  timeout: hookTimeout,
});

/** Every string in a hook's config, with its path, to refuse keys written into the file. */
function stringsIn(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, [...path, i]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => stringsIn(v, [...path, k]));
  return [];
}

export const revocationHookSchema = z
  .discriminatedUnion('type', [httpHook, commandHook, disposableHook])
  .describe('How the harness provisions and revokes keys: "http", "command" or "disposable"; every call has a timeout')
  .superRefine((hook, ctx) => {
    for (const { path, text } of stringsIn(hook)) {
      if (containsFullKey(text)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message:
            'keys never go in the config file: use {env:NAME} in the template and export the key in that variable',
        });
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
const assumptionsSchema = z
  .strictObject({
    'head-bootstrap-free': z
      .boolean()
      .optional()
      .describe(
        'true: HEAD /recruiter/bootstrap must consume no quota (HEAD-BOOTSTRAP fails if it does); false: it is meant to count one read',
      ),
    'bulk-counts-per-resume': z
      .boolean()
      .optional()
      .describe(
        'false: a bulk upload is meant to count one ingest unit per upload, not per resume (QUOTA-INGEST judges it so)',
      ),
  })
  .describe('What the deployment intends where the spec is silent; undeclared, the harness learns it and reports it');

/**
 * The rate-limit header dialect the deployment speaks, declared: the owner's explicit acceptance of a
 * departure from §8's X-RateLimit-* (absent, §8 is the judge). Where several policies are announced,
 * which one each quota class goes by, by its name (names differ between deployments, so none is
 * assumed); a class named none goes by the first quota a response reports.
 */
export interface HeaderDeclaration {
  readonly dialect: RateLimitDialectName;
  readonly policies: Readonly<Partial<Record<LimitField, string>>>;
}

const DIALECT_CHOICES = `expected one of ${RATE_LIMIT_DIALECT_NAMES.join(', ')}`;

/**
 * A dialect's name. A refinement rather than an enum: its issue does not abort the union around it,
 * so that a bad name inside `{"dialect": ...}` is reported at `headers.dialect` with the choices.
 */
const dialectName = z
  .string()
  .refine(isRateLimitDialectName, DIALECT_CHOICES)
  .meta({ enum: [...RATE_LIMIT_DIALECT_NAMES] });

/** A policy's name as RateLimit-Policy writes it (a String or a Token: visible ASCII and spaces). */
const policyName = (quotaClass: LimitField, example: string) =>
  z
    .string()
    .regex(/^[\x20-\x7e]{1,64}$/, 'a policy name as RateLimit-Policy writes it: 1 to 64 visible ASCII characters')
    .optional()
    .describe(`The name of the policy that is the ${quotaClass} quota, e.g. "${example}"`);

const headersSchema = z
  .union(
    [
      dialectName.describe('A dialect, its policies undeclared'),
      z.strictObject({
        dialect: dialectName.describe(
          `The dialect: ${RATE_LIMIT_DIALECT_NAMES.map((n) => `"${n}" (${RATE_LIMIT_DIALECTS[n].summary})`).join('; ')}`,
        ),
        policies: z
          .strictObject({
            read: policyName('read', 'read'),
            ingest: policyName('ingest', 'ingest'),
            concurrency: policyName('concurrency', 'inflight'),
          } satisfies Record<LimitField, unknown>)
          .optional()
          .describe(
            'Which announced policy is which quota, by name, each optional (ietf only: the other dialects name no policy); a class named none goes by the first quota a response reports',
          ),
      }),
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? `${DIALECT_CHOICES}, or {"dialect": ..., "policies": {"read": ..., "ingest": ..., "concurrency": ...}}`
          : undefined,
    },
  )
  .superRefine((value, ctx) => {
    if (typeof value === 'string' || value.policies === undefined) return;
    const dialect = value.dialect as RateLimitDialectName;
    if (!RATE_LIMIT_DIALECTS[dialect].namesPolicies)
      ctx.addIssue({
        code: 'custom',
        path: ['policies'],
        message: `${dialect} names no policy in its fields; drop policies, or declare ietf`,
      });
  })
  .transform(
    (value): HeaderDeclaration =>
      typeof value === 'string'
        ? { dialect: value as RateLimitDialectName, policies: {} }
        : { dialect: value.dialect as RateLimitDialectName, policies: value.policies ?? {} },
  )
  .describe(
    'The rate-limit header dialect the deployment speaks, declared: "ietf", or {"dialect": "ietf", "policies": {...}}. Absent, §8\'s X-RateLimit-Limit, -Remaining and -Reset are the judge; declared, the owner accepts that departure from §8: the header checks judge the dialect, quota windows are placed by its fields, and results and the report say so',
  );

export const configSchema = z.strictObject({
  $schema: z.string().optional().describe('The editor schema of this file (schemas/config.schema.json of tiergate)'),
  target: z
    .strictObject({
      edges: z
        .array(
          z
            .url({ protocol: /^https?$/ })
            // The API's paths go from the root: a path or query here would make every request's URL unusable.
            .refine(
              (url) => /^https?:\/\/[^/?#]+\/?$/.test(url),
              'expected an origin like "http://127.0.0.1:8080": no path, query or fragment (tiergate sends the API\'s paths, /recruiter/..., from the root)',
            ),
        )
        .min(1)
        .describe(
          'Base URLs of the edge nodes, e.g. "http://127.0.0.1:8080"; the first is used for quota checks, revocation is probed on every one',
        ),
      edgeHeader: z
        .string()
        .default(recruitingApi.headers.edgeNode)
        .describe(`Response header naming the node that answered (default ${recruitingApi.headers.edgeNode})`),
      allowNonLoopback: z
        .boolean()
        .default(false)
        .describe(
          'Allow edges that are not loopback addresses; without it tiergate sends traffic to 127.0.0.1, ::1 and localhost only',
        ),
      ca: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Path of a PEM file holding the certificate of the CA (or CAs) that signed the edges\' certificates, relative to this file\'s folder, e.g. "private-ca.pem": trusted besides the public roots by every request tiergate sends the deployment (the edges, the HTTP key hooks)',
        ),
    })
    .describe('Where the deployment answers'),
  window: duration('window', { wholeSeconds: true })
    .default(60_000)
    .describe('Length of the quota window, whole seconds: "60s" (the default: the spec\'s figures are per minute)'),
  timeout: duration('timeout', { minMs: 1, maxMs: 600_000 })
    .default(5_000)
    .describe('Per-request timeout: "5s" (the default), "500ms" or ms'),
  orgs: z
    .array(orgSchema)
    .min(1)
    .describe(
      "The organizations to test, each with its tier and keys; ORG-ISOLATED needs two of a tier, and more spread a tier's quota checks",
    ),
  assumptions: assumptionsSchema.optional(),
  headers: headersSchema.optional(),
  writes: z
    .enum(WRITE_POLICIES)
    .default('own')
    .describe(
      'What the run may write to the deployment. "own" (the default): it uploads sample resumes for the ingest and concurrency checks, creates one job (which it updates, then archives) and one webhook subscription per organization, each named tiergate and the run id. "none": it creates and changes nothing; the checks that need an upload are skipped, and scopes are judged with bodies the deployment refuses after its scope check',
    ),
  cleanup: z
    .strictObject({
      webhook: z
        .string()
        .min(1)
        .describe(
          'A shell command removing a webhook subscription the run created (the spec has no call for it): it gets TIERGATE_WEBHOOK_URL, TIERGATE_WEBHOOK_ID (empty where the deployment named none) and TIERGATE_ORG; exit status 0 means removed',
        ),
      timeout: hookTimeout,
    })
    .optional()
    .describe(
      'How the run removes what it created and the API cannot remove; without it, those are listed in the report as left behind',
    ),
  revocation: z
    .strictObject({
      org: z
        .string()
        .describe(
          'Name of the organization (from orgs) whose keys the hook provisions and revokes; it gets no quota checks',
        ),
      trials: z
        .number()
        .int()
        .min(1)
        .max(REVOCATION_LIMITS.trials)
        .default(20)
        .describe('Revocation trials (default 20); --revocation-trials wins over it'),
      interval: duration('revocation.interval', { minMs: 1 })
        .default(10)
        .describe('Time between probes of each edge during a trial: "10ms" (the default)'),
      settle: duration('revocation.settle')
        .default(2000)
        .describe(
          'How long every edge is still probed once all have rejected the key (a key admitted again shows here): "2s" (the default)',
        ),
      parallel: z
        .number()
        .int()
        .min(1)
        .max(REVOCATION_LIMITS.parallel)
        .optional()
        .describe(
          "Trials at most at once, each on a rotation chain of its own (default: the scenario's, 7); fewer where the organization's concurrency cap or a list of disposable keys allows fewer; --revocation-parallel wins over it",
        ),
      confidence: z
        .string()
        .transform((text, ctx) => {
          const parsed = parseConfidenceTarget(text);
          if (parsed.ok) return parsed.target;
          ctx.addIssue({ code: 'custom', message: parsed.problem });
          return z.NEVER;
        })
        .optional()
        .describe(
          'What the trials are to prove: "99%@95%" is 99 % of revocations in effect on every edge within 3 s, at 95 % confidence (Clopper–Pearson); the trials rise to what that takes, none slower (299 here), and REVOKE-LATENCY passes only once it is proven; --revocation-confidence wins over it',
        ),
      hook: revocationHookSchema,
    })
    .optional()
    .describe(
      'Key revocation checks (REVOKE-LATENCY, REVOKE-STICKY, ROTATION, AUTH-REVOKED); without it they are skipped',
    ),
});

export type Config = z.output<typeof configSchema>;
export type OrgConfig = z.output<typeof orgSchema>;
