/**
 * The admin API, on its own loopback listener: create organizations and keys, revoke keys, list.
 * The one place a full key is ever returned is the key-creation response.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { z } from 'zod';
import { SCOPE_NAMES, TIER_NAMES, type OrgLimits } from '../contract/types.ts';
import { isLoopbackHost } from '../util/loopback.ts';
import {
  errorReply,
  httpDate,
  issueDetails,
  parseJson,
  readBody,
  requestPath,
  sendReply,
  tooLargeReply,
  validationReply,
  type Reply,
} from './http-util.ts';
import { scheduleRevocation } from './revocation.ts';
import type { TargetRuntime } from './runtime.ts';
import { resolveOrgLimits, type ApiKeyRecord, type Org } from './state.ts';
import { messageOf } from '../util/errors.ts';

const MAX_ADMIN_BODY = 64 * 1024;

const limit = z.number().int().positive().max(1e9);
const orgInput = z.strictObject({
  tier: z.enum(TIER_NAMES),
  name: z.string().trim().min(1).max(100),
  limits: z
    .strictObject({ read: limit.optional(), ingest: limit.optional(), concurrency: limit.optional() })
    .optional() satisfies z.ZodType<Partial<OrgLimits> | undefined>,
});
const candidateInput = z.strictObject({ name: z.string().trim().min(1).max(200) });
const keyInput = z.strictObject({
  scopes: z.array(z.enum(SCOPE_NAMES)).max(SCOPE_NAMES.length),
  env: z.enum(['test', 'live']).default('test'),
});

type RouteName = 'orgs' | 'org-keys' | 'org-data' | 'org-candidates' | 'revoke';

const ROUTES: readonly { readonly pattern: RegExp; readonly name: RouteName; readonly allow: readonly string[] }[] = [
  { pattern: /^\/admin\/orgs\/?$/, name: 'orgs', allow: ['GET', 'POST'] },
  { pattern: /^\/admin\/orgs\/([^/]+)\/keys\/?$/, name: 'org-keys', allow: ['POST'] },
  { pattern: /^\/admin\/orgs\/([^/]+)\/data\/?$/, name: 'org-data', allow: ['GET'] },
  { pattern: /^\/admin\/orgs\/([^/]+)\/candidates\/?$/, name: 'org-candidates', allow: ['POST'] },
  { pattern: /^\/admin\/keys\/([^/]+)\/revoke\/?$/, name: 'revoke', allow: ['POST'] },
];

function decoded(segment: string | undefined): string {
  try {
    return segment === undefined ? '' : decodeURIComponent(segment);
  } catch {
    return segment ?? '';
  }
}

function matchAdmin(path: string): { name: RouteName; id: string; allow: readonly string[] } | null {
  for (const { pattern, name, allow } of ROUTES) {
    const match = pattern.exec(path);
    if (match) return { name, id: decoded(match[1]), allow };
  }
  return null;
}

const orgJson = (org: Org) => ({ id: org.id, tier: org.tier, name: org.name, limits: org.limits });

function keyJson(key: ApiKeyRecord) {
  return {
    id: key.id,
    redacted: key.redacted,
    scopes: [...key.scopes],
    env: key.env,
    createdAt: key.createdAt,
    revokedAt: key.revocation?.at ?? null,
  };
}

function parsed<S extends z.ZodType>(
  schema: S,
  body: Buffer,
): { ok: true; value: z.infer<S> } | { ok: false; reply: Reply } {
  const json = parseJson(body);
  if (!json.ok) return json;
  const result = schema.safeParse(json.value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, reply: validationReply(issueDetails(result.error.issues)) };
}

function createOrg(rt: TargetRuntime, body: Buffer): Reply {
  const input = parsed(orgInput, body);
  if (!input.ok) return input.reply;
  const { tier, name, limits } = input.value;
  const resolved = resolveOrgLimits(rt.contract, tier, limits);
  if (!resolved.ok) return validationReply(resolved.problems);
  return { status: 201, body: orgJson(rt.state.createOrg(tier, name, resolved.limits, rt.clock.now())) };
}

function createKey(rt: TargetRuntime, orgId: string, body: Buffer): Reply {
  if (!rt.state.org(orgId)) return errorReply(404, 'NOT_FOUND', `no organization with id "${orgId}"`);
  const input = parsed(keyInput, body);
  if (!input.ok) return input.reply;
  const created = rt.state.createKey(orgId, input.value.scopes, input.value.env, rt.clock.now());
  if (!created) return errorReply(404, 'NOT_FOUND', `no organization with id "${orgId}"`);
  const { record, key } = created;
  return {
    status: 201,
    body: { id: record.id, key, redacted: record.redacted, scopes: [...record.scopes], env: record.env },
  };
}

/** A candidate of the organization's own: a customer's record, as a deployment would hold one. */
function createCandidate(rt: TargetRuntime, orgId: string, body: Buffer): Reply {
  if (!rt.state.org(orgId)) return errorReply(404, 'NOT_FOUND', `no organization with id "${orgId}"`);
  const input = parsed(candidateInput, body);
  if (!input.ok) return input.reply;
  return { status: 201, body: rt.data.addCandidate(orgId, input.value.name) };
}

/** §5.9: schedule the revocation per edge; revoking again reports the first revocation. */
function revoke(rt: TargetRuntime, keyId: string): Reply {
  const existing = rt.state.key(keyId);
  if (!existing) return errorReply(404, 'NOT_FOUND', `no key with id "${keyId}"`);
  const { edges, revocationDelayMs, revocationJitterMs } = rt.options;
  const revocation =
    existing.revocation ??
    scheduleRevocation(
      rt.clock.now(),
      { edges, delayMs: revocationDelayMs, jitterMs: revocationJitterMs, faults: rt.faults },
      rt.random,
    );
  const record = rt.state.revokeKey(keyId, revocation) ?? existing;
  const applied = record.revocation ?? revocation;
  return {
    status: 200,
    body: {
      id: record.id,
      revokedAt: applied.at,
      edges: applied.edges.map((e, i) => ({ edge: `edge-${i}`, effectiveAt: e.effectiveAt })),
    },
  };
}

function listOrgs(rt: TargetRuntime): Reply {
  return {
    status: 200,
    body: { orgs: rt.state.orgs().map((org) => ({ ...orgJson(org), keys: rt.state.keysOf(org.id).map(keyJson) })) },
  };
}

async function route(rt: TargetRuntime, req: IncomingMessage): Promise<Reply> {
  if (!isLoopbackHost(req.socket.remoteAddress ?? ''))
    return errorReply(403, 'FORBIDDEN', 'the admin API answers loopback clients only');
  const method = req.method ?? 'GET';
  const path = requestPath(req.url);
  const found = matchAdmin(path);
  if (!found) return errorReply(404, 'NOT_FOUND', `no admin endpoint ${method} ${path}`);
  if (!found.allow.includes(method)) {
    const allow = found.allow.join(', ');
    return errorReply(405, 'METHOD_NOT_ALLOWED', `${path} accepts ${allow}, not ${method}`, { headers: { allow } });
  }
  if (found.name === 'orgs' && method === 'GET') return listOrgs(rt);
  if (found.name === 'org-data')
    return rt.state.org(found.id)
      ? { status: 200, body: rt.data.snapshot(found.id) }
      : errorReply(404, 'NOT_FOUND', `no organization with id "${found.id}"`);
  const read = await readBody(req, MAX_ADMIN_BODY);
  if (!read.ok)
    return read.reason === 'too-large'
      ? tooLargeReply(MAX_ADMIN_BODY, read.drained)
      : errorReply(400, 'ABORTED', 'request aborted');
  if (found.name === 'orgs') return createOrg(rt, read.data);
  if (found.name === 'org-keys') return createKey(rt, found.id, read.data);
  if (found.name === 'org-candidates') return createCandidate(rt, found.id, read.data);
  return revoke(rt, found.id);
}

export function adminListener(rt: TargetRuntime): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Date', httpDate(rt.clock.now()));
    route(rt, req).then(
      (reply) => sendReply(res, reply),
      (error: unknown) => sendReply(res, errorReply(500, 'INTERNAL_ERROR', messageOf(error))),
    );
  };
}
