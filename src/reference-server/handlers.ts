/**
 * The §4 endpoints. Each handler first `prepare`s its input (body errors answer 400/415 and consume
 * nothing), then, once admitted, `run`s. Payload shapes beyond §2 are the target's own (spec: "not shown").
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { EndpointId } from '../contract/types.ts';
import { errorReply, issueDetails, parseJson, validationReply, type Reply } from './http-util.ts';
import { randomId } from './key-material.ts';
import { analyzeResume } from './resume-analysis.ts';
import type { TargetRuntime } from './runtime.ts';
import { JOB_STATUSES } from './samples.ts';
import type { ApiKeyRecord, Org } from './state.ts';
import { bulkResumes, singleResume } from './uploads.ts';

export interface RequestInput {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The `:id` path segment, decoded, when the endpoint has one. */
  readonly id: string | null;
}

export interface RunContext {
  readonly rt: TargetRuntime;
  readonly org: Org;
  readonly key: ApiKeyRecord;
  readonly edge: string;
}

export type Prepared =
  | {
      readonly ok: true;
      /** Units the request carries where the contract counts items (bulk: one per resume). */
      readonly items: number;
      readonly run: (ctx: RunContext) => Reply | Promise<Reply>;
    }
  | { readonly ok: false; readonly reply: Reply };

export interface EndpointHandler {
  readonly readsBody: boolean;
  prepare(input: RequestInput): Prepared | Promise<Prepared>;
}

const success = (status: number, data: unknown): Reply => ({ status, body: { status: 'success', data } });
const ready = (run: (ctx: RunContext) => Reply | Promise<Reply>, items = 1): Prepared => ({ ok: true, items, run });
const notFound = (what: string, id: string | null) => errorReply(404, 'NOT_FOUND', `no ${what} with id "${id ?? ''}"`);

/** Parse a JSON body (empty allowed when `emptyAs` is given) against a schema. */
function jsonInput<S extends z.ZodType>(
  schema: S,
  body: Buffer,
  emptyAs?: unknown,
): { ok: true; value: z.infer<S> } | { ok: false; reply: Reply } {
  const json = parseJson(body, emptyAs);
  if (!json.ok) return json;
  const result = schema.safeParse(json.value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reply: validationReply(issueDetails(result.error.issues)) };
}

const text = (max: number) => z.string().trim().min(1).max(max);
const jobFields = {
  title: text(200),
  status: z.enum(JOB_STATUSES).optional(),
  department: text(100).nullable().optional(),
  location: text(100).nullable().optional(),
  stages: z.array(text(100)).min(1).max(20).optional(),
  criteria: z
    .array(z.object({ name: text(200), weight: z.number().min(0).max(1).optional() }))
    .max(50)
    .optional(),
};
const jobCreate = z.object(jobFields);
const jobUpdate = z.object(jobFields).partial();

const webhookBody = z.object({
  action: z.enum(['subscribe', 'update', 'inspect']).optional(),
  id: text(100).optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
  events: z.array(text(100)).min(1).max(50).optional(),
  active: z.boolean().optional(),
});

function webhooks(input: RequestInput): Prepared {
  const parsed = jsonInput(webhookBody, input.body, {});
  if (!parsed.ok) return parsed;
  const body = parsed.value;
  const action = body.action ?? (body.id ? 'update' : body.url ? 'subscribe' : 'inspect');
  if (action === 'subscribe' && !body.url)
    return { ok: false, reply: validationReply([{ path: 'url', message: 'required to subscribe' }]) };
  if (action === 'update' && !body.id)
    return { ok: false, reply: validationReply([{ path: 'id', message: 'required to update' }]) };
  return ready(({ rt, org }) => {
    const now = rt.clock.now();
    if (action === 'subscribe') return success(201, rt.data.subscribe(org.id, body.url!, body.events ?? ['*'], now));
    if (action === 'update') {
      const hook = rt.data.updateWebhook(org.id, body.id!, body);
      return hook ? success(200, hook) : notFound('webhook', body.id!);
    }
    return success(200, rt.data.webhooks(org.id));
  });
}

export const handlers: Readonly<Record<EndpointId, EndpointHandler>> = {
  'scope-list': {
    readsBody: false,
    // §2, §5.7: the scopes this organization may grant: all seven.
    prepare: () =>
      ready(({ rt }) =>
        success(
          200,
          rt.contract.scopes.map(({ scope, description }) => ({ scope, description })),
        ),
      ),
  },
  'bootstrap-head': {
    readsBody: false,
    prepare: () => ready(() => ({ status: 200 })),
  },
  'bootstrap-get': {
    readsBody: false,
    prepare: () =>
      ready(({ rt, org, key, edge }) =>
        success(200, {
          organization: { id: org.id, name: org.name, tier: org.tier },
          key: { id: key.id, env: key.env, scopes: [...key.scopes] },
          limits: org.limits,
          window_seconds: rt.options.windowMs / 1000,
          edge,
        }),
      ),
  },
  'jobs-list': {
    readsBody: false,
    prepare: () => ready(({ rt, org }) => ({ status: 200, json: rt.data.jobsJson(org.id) })),
  },
  'jobs-create': {
    readsBody: true,
    prepare: (input) => {
      const parsed = jsonInput(jobCreate, input.body);
      if (!parsed.ok) return parsed;
      return ready(({ rt, org }) => success(201, rt.data.createJob(org.id, parsed.value, rt.clock.now())));
    },
  },
  'jobs-update': {
    readsBody: true,
    prepare: (input) => {
      const parsed = jsonInput(jobUpdate, input.body, {});
      if (!parsed.ok) return parsed;
      return ready(({ rt, org }) => {
        const job = rt.data.updateJob(org.id, input.id ?? '', parsed.value, rt.clock.now());
        return job ? success(200, job) : notFound('job', input.id);
      });
    },
  },
  'candidate-read': {
    readsBody: false,
    prepare: (input) =>
      ready(({ rt, org }) => {
        const candidate = rt.data.candidate(org.id, input.id ?? '');
        return candidate ? success(200, candidate) : notFound('candidate', input.id);
      }),
  },
  webhooks: { readsBody: true, prepare: webhooks },
  'resume-analysis': {
    readsBody: true,
    prepare: async (input) => {
      const upload = await singleResume(input.headers, input.body);
      if (!upload.ok) return upload;
      return ready(async ({ rt }) => {
        // Simulated parse time: holds the connection (and its concurrency slot).
        if (rt.options.parseMs > 0) await rt.clock.delay(rt.options.parseMs, rt.closing);
        return success(200, analyzeResume(upload.value));
      });
    },
  },
  'resume-analysis-bulk': {
    readsBody: true,
    prepare: async (input) => {
      const upload = await bulkResumes(input.headers, input.body);
      if (!upload.ok) return upload;
      const count = upload.value.length;
      return ready(async ({ rt }) => {
        // §4 leaves open whether a batch is parsed before the answer: `synchronous-bulk` takes a parse time too.
        if (rt.variants.has('synchronous-bulk') && rt.options.parseMs > 0)
          await rt.clock.delay(rt.options.parseMs, rt.closing);
        return success(202, {
          batch_id: randomId('batch'),
          resumes: count,
          status: rt.variants.has('synchronous-bulk') ? 'parsed' : 'queued',
        });
      }, count);
    },
  },
};
