/**
 * Test helpers for the reference target: start one on loopback (port 0), on the real clock or a
 * ManualClock (manual-clock.ts), and close it after the test or file; provision orgs and keys
 * through the admin API; send requests and read the answers' headers.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { SCOPE_NAMES, type OrgLimits, type ScopeName, type TierName } from '../../src/contract/types.ts';
import { AdminClient } from '../../src/reference-server/admin-client.ts';
import { startTarget, type InProcessTargetOptions, type RunningTarget } from '../../src/reference-server/server.ts';

export { sleep };

export interface TestTarget {
  readonly target: RunningTarget;
  readonly admin: AdminClient;
  /** Base URL of edge `i` (default 0). */
  edge(i?: number): string;
  readonly windowMs: number;
}

function wrap(target: RunningTarget): TestTarget {
  return {
    target,
    admin: new AdminClient(target.adminUrl),
    edge: (i = 0) => target.edges[i]!,
    windowMs: target.options.windowMs,
  };
}

/** A target for the current test only, closed when it finishes. */
export async function startTestTarget(options: InProcessTargetOptions = {}): Promise<TestTarget> {
  const target = await startTarget({ edges: 1, windowMs: 2000, parseMs: 0, ...options });
  onTestFinished(() => target.close());
  return wrap(target);
}

/** A target shared by the tests of a file: started before them, closed after. */
export function useTarget(options: InProcessTargetOptions = {}): () => TestTarget {
  let current: TestTarget | null = null;
  beforeAll(async () => {
    current = wrap(await startTarget({ edges: 1, windowMs: 2000, parseMs: 0, ...options }));
  });
  afterAll(async () => {
    await current?.target.close();
  });
  return () => {
    if (!current) throw new Error('the target is not started yet');
    return current;
  };
}

export interface OrgKey {
  readonly orgId: string;
  readonly keyId: string;
  readonly key: string;
}

/** A fresh organization with one key (every scope unless told otherwise). */
export async function orgWithKey(
  admin: AdminClient,
  tier: TierName = 'starter',
  scopes: readonly ScopeName[] = SCOPE_NAMES,
  limits?: Partial<OrgLimits>,
): Promise<OrgKey> {
  const org = await admin.createOrg(tier, `test-${tier}`, limits);
  const created = await admin.createKey(org.id, scopes, 'test');
  return { orgId: org.id, keyId: created.id, key: created.key };
}

/** Another key of an existing organization. */
export async function keyOf(
  admin: AdminClient,
  orgId: string,
  scopes: readonly ScopeName[] = SCOPE_NAMES,
): Promise<OrgKey> {
  const created = await admin.createKey(orgId, scopes, 'test');
  return { orgId, keyId: created.id, key: created.key };
}

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** Parsed JSON body (null when empty or not JSON). */
  readonly json: any;
  /** X-RateLimit-* as numbers (NaN when absent). */
  readonly limit: number;
  readonly remaining: number;
  readonly reset: number;
  /** The Date header, epoch ms (NaN when absent): the server's clock, to the second. */
  readonly date: number;
}

export interface CallOptions {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly key?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Aborting it closes the connection mid-request (a client that goes away). */
  readonly signal?: AbortSignal;
  /** The client's connections: an Agent trusting a target's CA for its HTTPS edges. Default undici's global one. */
  readonly dispatcher?: Dispatcher;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

export async function call(base: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  const res = await request(`${base}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body ?? null,
    signal: options.signal ?? null,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    const v = headerText(value);
    if (v !== undefined) flat[name] = v;
  }
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  const num = (name: string) => (flat[name] === undefined ? NaN : Number(flat[name]));
  return {
    status: res.statusCode,
    headers: flat,
    text,
    json,
    limit: num('x-ratelimit-limit'),
    remaining: num('x-ratelimit-remaining'),
    reset: num('x-ratelimit-reset'),
    date: flat['date'] === undefined ? NaN : Date.parse(flat['date']),
  };
}

/** `n` sequential requests (bounded by `n`). */
export async function sequential(n: number, send: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < n; i++) answers.push(await send(i));
  return answers;
}

/** One resume, as the single-upload endpoint takes it. */
export const resumeUpload = {
  method: 'POST',
  headers: { 'content-type': 'text/plain' },
  body: 'Jane Doe\nTypeScript\n',
} as const;

/** A bulk upload of `n` resumes. */
export const bulkUpload = (n: number) =>
  ({
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resumes: Array.from({ length: n }, (_, i) => ({ name: `r${i}.txt`, content_base64: 'SmFuZSBEb2U=' })),
    }),
  }) as const;

export const statuses = (answers: readonly Answer[]) => answers.map((a) => a.status);
export const count = (answers: readonly Answer[], status: number) => answers.filter((a) => a.status === status).length;

/** A multipart/form-data body with file parts, built by hand so tests control every byte. */
export function multipart(files: readonly { field: string; name: string; type: string; content: Buffer }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----tiergate-test-${files.length}-boundary`;
  const parts = files.flatMap((f) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.name}"\r\nContent-Type: ${f.type}\r\n\r\n`,
    ),
    f.content,
    Buffer.from('\r\n'),
  ]);
  return {
    body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export interface Tracked {
  readonly answer: Promise<Answer>;
  /** Whether the answer has arrived. */
  readonly done: () => boolean;
}

/** A request whose completion can be checked without awaiting it. */
export function track(pending: Promise<Answer>): Tracked {
  let done = false;
  const answer = pending.then((a) => {
    done = true;
    return a;
  });
  return { answer, done: () => done };
}

/** Raw bytes to an edge, the whole answer back (for requests undici would not send). */
export function raw(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.write(bytes);
  });
}
