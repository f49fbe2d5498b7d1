/** Small HTTP helpers shared by the edge and admin listeners: replies, bodies, paths. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageOf } from '../util/errors.ts';

export interface Reply {
  readonly status: number;
  /** JSON-serialisable body; undefined sends none. */
  readonly body?: unknown;
  /** A body serialised ahead of time (hot paths); wins over `body`. */
  readonly json?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/** The JSON error body of every non-429 error: `{status:"error", code, message}` plus details. */
export function errorReply(
  status: number,
  code: string,
  message: string,
  extra?: { readonly headers?: Readonly<Record<string, string>>; readonly fields?: Readonly<Record<string, unknown>> },
): Reply {
  return { status, body: { status: 'error', code, message, ...extra?.fields }, headers: extra?.headers ?? {} };
}

export function validationReply(errors: readonly ErrorDetail[]): Reply {
  const message = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return errorReply(400, 'VALIDATION_FAILED', message, { fields: { errors } });
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Write a reply. `headers` (a flat name, value list, appended to here) go first, then the reply's
 * own, then Content-Type and Content-Length: all in one `writeHead`, the cheapest way through node:http.
 * HEAD gets the status and headers only (Content-Length as GET would have it, so keep-alive holds).
 */
export function sendReply(res: ServerResponse, reply: Reply, head = false, headers: string[] = []): void {
  if (res.headersSent || res.destroyed) return;
  const own = reply.headers;
  if (own !== undefined) for (const name in own) headers.push(name, own[name]!);
  const payload = reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
  if (payload === undefined) headers.push('content-length', '0');
  else headers.push('content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(payload)));
  res.writeHead(reply.status, headers);
  if (head || payload === undefined) res.end();
  else res.end(payload);
}

/** The second `httpDate` last formatted, and its text: a server answers many times a second. */
let dateSecond = Number.NaN;
let dateText = '';

/** A Date header value for `ms` (epoch): answers carry the target's clock, not Node's own. */
export function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== dateSecond) {
    dateText = new Date(second * 1000).toUTCString();
    dateSecond = second;
  }
  return dateText;
}

/** The path of a request target, without query string or fragment. */
export function requestPath(url: string | undefined): string {
  const raw = url ?? '/';
  const cut = raw.search(/[?#]/);
  return cut >= 0 ? raw.slice(0, cut) : raw;
}

/** Bytes of an oversize body still read (and discarded) so the 413 goes back on a clean connection. */
const DRAIN_ALLOWANCE = 1024 * 1024;

export type BodyResult =
  | { readonly ok: true; readonly data: Buffer }
  | { readonly ok: false; readonly reason: 'too-large'; readonly drained: boolean }
  | { readonly ok: false; readonly reason: 'aborted' };

/** Read a request body up to `limit` bytes. Beyond it, discard and report `too-large` (never buffer it). */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit + DRAIN_ALLOWANCE) {
    return Promise.resolve({ ok: false, reason: 'too-large', drained: false });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) chunks.push(chunk);
      else if (total > limit + DRAIN_ALLOWANCE) {
        req.pause();
        settle({ ok: false, reason: 'too-large', drained: false });
      }
    });
    req.on('end', () =>
      settle(
        total > limit
          ? { ok: false, reason: 'too-large', drained: true }
          : { ok: true, data: Buffer.concat(chunks, total) },
      ),
    );
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}

export function tooLargeReply(limit: number, drained: boolean): Reply {
  return errorReply(413, 'PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${limit} bytes`, {
    headers: drained ? {} : { connection: 'close' },
    fields: { limit_bytes: limit },
  });
}

export type JsonResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reply: Reply };

/** Parse a JSON body; an empty body is `emptyAs` (or an error when undefined). */
export function parseJson(data: Buffer, emptyAs?: unknown): JsonResult {
  if (data.length === 0 || data.toString('utf8').trim() === '') {
    if (emptyAs !== undefined) return { ok: true, value: emptyAs };
    return { ok: false, reply: errorReply(400, 'INVALID_JSON', 'request body is empty; expected a JSON object') };
  }
  try {
    return { ok: true, value: JSON.parse(data.toString('utf8')) as unknown };
  } catch (error) {
    const detail = messageOf(error);
    return { ok: false, reply: errorReply(400, 'INVALID_JSON', `request body is not valid JSON: ${detail}`) };
  }
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** zod issues as `{path, message}` details. */
export function issueDetails(issues: readonly { path: readonly PropertyKey[]; message: string }[]): ErrorDetail[] {
  return issues.map((i) => ({ path: i.path.length > 0 ? i.path.map(String).join('.') : '(body)', message: i.message }));
}
