/**
 * The request pipeline of one edge node. Every edge shares one runtime (state, limiters, in-flight).
 * Order: route → authenticate → scope → body → prepare → concurrency cap → quota → run.
 * Nothing before the quota step consumes quota (assumption counted-requests; the variant
 * counts-errors counts 403 and 404 as read requests), and every response, errors and HEAD included,
 * carries the §8 rate-limit headers and X-Edge-Node.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Endpoint, QuotaClass } from '../contract/types.ts';
import { admit, anonymousView, peekView, type Holder, type Meter } from './admission.ts';
import { authenticate, authFailureMessage } from './auth.ts';
import { handlers } from './handlers.ts';
import { errorReply, httpDate, readBody, requestPath, sendReply, tooLargeReply, type Reply } from './http-util.ts';
import { secondsUntil } from './limiter.ts';
import {
  addRateLimitHeaders,
  rateLimitedReply,
  rateLimitFields,
  sendsRateHeaders,
  type QuotaView,
} from './rate-headers.ts';
import { matchRoute } from './routes.ts';
import type { TargetRuntime } from './runtime.ts';
import { messageOf } from '../util/errors.ts';

const EMPTY = Buffer.alloc(0);
/** A concurrency slot frees as soon as any request of the org finishes: one second is an honest wait. */
const CONCURRENCY_RETRY_S = 1;
/** `cap-queues`: how much longer than one upload's parse time a request waits for a slot. */
const CAP_QUEUE_EXTRA_MS = 1000;

interface Exchange {
  readonly rt: TargetRuntime;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly index: number;
  /** `edge-<index>`: the X-Edge-Node value. */
  readonly edge: string;
}

function respond(x: Exchange, reply: Reply, view: QuotaView): void {
  const now = x.rt.clock.now();
  // Reset and Date from one reading, so a client judges Reset against the instant it was computed at.
  const headers = [x.rt.contract.headers.edgeNode, x.edge, 'Date', httpDate(now)];
  addRateLimitHeaders(headers, x.rt, view, reply.status, now);
  sendReply(x.res, reply, x.req.method === 'HEAD', headers);
}

/** HEAD /recruiter/bootstrap reports the read quota; under the variant `head-counts` it also counts. */
function meterOf(rt: TargetRuntime, endpoint: Endpoint): Meter & { readonly counts: boolean } {
  if (endpoint.quotaClass !== null) return { quotaClass: endpoint.quotaClass, route: endpoint.id, counts: true };
  return {
    quotaClass: 'read',
    route: endpoint.id,
    counts: endpoint.method === 'HEAD' && rt.variants.has('head-counts'),
  };
}

/** A limiter in front of routing and scope checks counts what they refuse against the org's reads. */
const BEFORE_ROUTING: Meter = { quotaClass: 'read', route: null };

/** The 429 of §7 for a refused admission: Retry-After from the limiter's own answer. */
function refusedReply(x: Exchange, quotaClass: QuotaClass, limit: number, retryAtMs: number): Reply {
  const { rt } = x;
  const message = `${quotaClass} quota of ${limit} per ${rt.options.windowMs / 1000} s exceeded for this organization`;
  return rateLimitedReply(rt, rt.contract.statuses.rateLimited, secondsUntil(retryAtMs, rt.clock.now()), message);
}

/**
 * An error answer to an authenticated organization: it consumes nothing, unless the variant
 * `counts-errors` counts it as a read request (and answers 429 in its place once the reads are used up).
 */
async function respondError(x: Exchange, holder: Holder, reply: Reply, meter: Meter): Promise<void> {
  const { rt } = x;
  if (!rt.variants.has('counts-errors')) {
    respond(x, reply, peekView(rt, holder, meter, rt.clock.now()));
    return;
  }
  const outcome = await admit(rt, holder, BEFORE_ROUTING, 1, rt.clock.now());
  if (outcome.admitted) respond(x, reply, outcome.view);
  else respond(x, refusedReply(x, 'read', outcome.view.limit, outcome.retryAtMs), outcome.view);
}

/**
 * Hold an in-flight slot until the response is finished or the connection is gone. At the cap the
 * request is refused (null), or under `cap-queues` waits for a slot, at most one upload's parse time
 * and a second (a slot frees within a parse time), then is refused.
 */
async function holdSlot(x: Exchange, holder: Holder): Promise<(() => void) | null> {
  const { rt, req, res } = x;
  const { id } = holder.org;
  const cap = holder.org.limits.concurrency;
  let release: (() => void) | null;
  if (rt.faults.has('no-concurrency-cap')) release = rt.inFlight.hold(id);
  else if (!rt.variants.has('cap-queues')) release = rt.inFlight.acquire(id, cap);
  else
    release = await rt.inFlight.queue(id, cap, (granted) =>
      rt.clock.delay(rt.options.parseMs + CAP_QUEUE_EXTRA_MS, AbortSignal.any([granted, rt.closing])),
    );
  if (!release) return null;
  // 'close' comes a tick after 'finish', and also when the connection goes first: one listener is enough.
  res.once('close', release);
  if (res.writableEnded || req.socket.destroyed) release();
  return release;
}

async function handle(x: Exchange): Promise<void> {
  const { rt, req } = x;
  const now = rt.clock.now();
  const method = req.method ?? 'GET';
  const path = requestPath(req.url);
  const route = matchRoute(rt.routes, method, path);
  const auth = authenticate(rt, req.headers, x.index, now);

  if (route.kind !== 'found') {
    const reply =
      route.kind === 'not-found'
        ? errorReply(404, 'NOT_FOUND', `no endpoint ${method} ${path}`)
        : errorReply(405, 'METHOD_NOT_ALLOWED', `${path} accepts ${route.allow.join(', ')}, not ${method}`, {
            headers: { allow: route.allow.join(', ') },
          });
    if (!auth.ok) respond(x, reply, anonymousView(rt, req.socket.remoteAddress, now));
    else if (route.kind === 'not-found') await respondError(x, auth, reply, BEFORE_ROUTING);
    else respond(x, reply, peekView(rt, auth, BEFORE_ROUTING, now));
    return;
  }

  const { endpoint } = route;
  if (!auth.ok) {
    const reply = errorReply(rt.contract.statuses.unauthenticated, 'UNAUTHENTICATED', authFailureMessage(auth.reason), {
      fields: { reason: auth.reason },
    });
    respond(x, reply, anonymousView(rt, req.socket.remoteAddress, now));
    return;
  }

  const meter = meterOf(rt, endpoint);
  const peek = () => peekView(rt, auth, meter, rt.clock.now());
  if (endpoint.scope !== null && !auth.key.scopes.has(endpoint.scope) && !rt.faults.has('scope-unenforced')) {
    const message = `this key lacks the scope "${endpoint.scope}" that ${endpoint.method} ${endpoint.path} requires`;
    const reply = errorReply(rt.contract.statuses.forbidden, 'INSUFFICIENT_SCOPE', message, {
      fields: { required_scope: endpoint.scope },
    });
    await respondError(x, auth, reply, meter);
    return;
  }

  const handler = handlers[endpoint.id];
  let body: Buffer = EMPTY;
  if (handler.readsBody) {
    const read = await readBody(req, rt.options.maxUploadBytes);
    if (!read.ok) {
      if (read.reason === 'too-large') respond(x, tooLargeReply(rt.options.maxUploadBytes, read.drained), peek());
      return;
    }
    body = read.data;
  }
  // Input errors answer 400/415 here and consume nothing.
  const prepared = await handler.prepare({ headers: req.headers, body, id: route.id });
  if (!prepared.ok) {
    respond(x, prepared.reply, peek());
    return;
  }

  if (!(await holdSlot(x, auth))) {
    const message = `concurrency cap of ${auth.org.limits.concurrency} requests in flight reached for this organization`;
    respond(x, rateLimitedReply(rt, rt.contract.statuses.concurrencyCapped, CONCURRENCY_RETRY_S, message), peek());
    return;
  }

  let view: QuotaView;
  if (meter.counts) {
    const units = endpoint.counts === 'item' ? prepared.items : 1;
    const outcome = await admit(rt, auth, meter, units, rt.clock.now());
    if (!outcome.admitted) {
      respond(x, refusedReply(x, meter.quotaClass, outcome.view.limit, outcome.retryAtMs), outcome.view);
      return;
    }
    view = outcome.view;
  } else {
    view = peek();
  }
  const reply = await prepared.run({ rt, org: auth.org, key: auth.key, edge: x.edge });
  respond(x, reply, view);
}

/** Anything unexpected: a JSON 500, or just drop the connection when the target is closing. */
function fail(x: Exchange, error: unknown): void {
  const { rt, req, res } = x;
  if (rt.closing.aborted || res.headersSent) {
    res.destroy();
    return;
  }
  const detail = messageOf(error);
  respond(
    x,
    errorReply(500, 'INTERNAL_ERROR', `the target failed: ${detail}`),
    anonymousView(rt, req.socket.remoteAddress, rt.clock.now()),
  );
}

export function edgeListener(rt: TargetRuntime, index: number): RequestListener {
  const edge = `edge-${index}`;
  return (req, res) => {
    const x: Exchange = { rt, req, res, index, edge };
    handle(x).catch((error: unknown) => fail(x, error));
  };
}

/** A request Node could not parse: a raw 400 with a JSON error, still with the headers of §8. */
export function edgeClientError(rt: TargetRuntime, index: number): (error: Error, socket: Duplex) => void {
  return (_error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const now = rt.clock.now();
    const names = rt.contract.headers;
    const lines = [`${names.edgeNode}: edge-${index}`, `date: ${httpDate(now)}`];
    if (sendsRateHeaders(rt.faults, 400)) {
      const view = anonymousView(rt, (socket as Duplex & { remoteAddress?: string }).remoteAddress, now);
      lines.push(...rateLimitFields(view, now, rt).map(([name, value]) => `${name}: ${value}`));
    }
    const body = JSON.stringify({ status: 'error', code: 'BAD_REQUEST', message: 'malformed HTTP request' });
    const head = [
      'HTTP/1.1 400 Bad Request',
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
      ...lines,
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  };
}
