/**
 * The HTTP hook: calls a deployment's own API to provision a key (the new key read from the JSON
 * response at `keyPath`) and to revoke one (`{key}` / `{keyId}` in URL, headers or body). A non-2xx
 * status is a failure; every call has a timeout covering the body too; output in errors is redacted.
 * Non-loopback URLs are refused unless the run allows remote targets. A CA the config names
 * (`target.ca`) is trusted here as by the prober: a deployment's admin API is often behind the same.
 * Before a trial's revoke call, `warm` opens the connection it goes out on: HEAD / at the revoke
 * URL's origin, with no header of the config's (no credential) and nothing that changes anything, on
 * the revoker's own keep-alive dispatcher, which the revoke call then takes.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { trustingConnect } from '../../measure/tls-trust.ts';
import type { HttpCallConfig, HttpProvisionConfig } from '../../config/schema.ts';
import type { ScopeName } from '../../contract/types.ts';
import { messageOf, TiergateError } from '../../util/errors.ts';
import { isLoopbackUrl } from '../../util/loopback.ts';
import { openConnection } from '../../util/open-connection.ts';
import type { KeyHandle, KeyHook, KeyRevoker, OrgHandle } from '../../contract/handles.ts';
import { HookError, redactOutput } from './hook-error.ts';
import {
  assertNoProblems,
  envSecrets,
  fillJson,
  fillTemplate,
  stringsOf,
  templateProblems,
  type Env,
  type KeyPlaceholder,
  type TemplateValues,
} from './template.ts';

export interface HttpHookConfig {
  readonly provision: HttpProvisionConfig;
  readonly revoke: HttpCallConfig;
  /** Per call, ms. */
  readonly timeout: number;
}

export interface HttpHookOptions {
  /** Permit non-loopback hook URLs (a real deployment's admin API). Default false. */
  readonly allowRemote?: boolean;
  /** PEM of the CA(s) to trust besides Node's bundled roots (config `target.ca`); absent: Node's defaults. */
  readonly ca?: string;
}

/**
 * How a hook's calls go out: the loopback rule, and a keep-alive dispatcher of their own (trusting the
 * config's CA, if it names one), whose connection a warm opens for the revoke call to take.
 */
interface HookTransport {
  readonly allowRemote: boolean;
  readonly dispatcher: Dispatcher;
}

function transportOf(options: HttpHookOptions): HookTransport {
  return {
    allowRemote: options.allowRemote ?? false,
    dispatcher: new Agent(options.ca === undefined ? {} : { connect: trustingConnect(options.ca) }),
  };
}

const RESPONSE_KEEP = 64 * 1024;

interface HttpResponse {
  readonly status: number;
  readonly text: string;
}

function templatesOf(call: HttpCallConfig): string[] {
  return [call.url, ...Object.values(call.headers ?? {}), ...stringsOf(call.body)];
}

/** Every problem of one call's templates, by config path. */
export function httpCallProblems(
  call: HttpCallConfig,
  path: string,
  env: Env,
  known: readonly KeyPlaceholder[],
): string[] {
  return [
    ...templateProblems(call.url, `${path}.url`, env, known),
    ...Object.entries(call.headers ?? {}).flatMap(([name, value]) =>
      templateProblems(value, `${path}.headers.${name}`, env, known),
    ),
    ...stringsOf(call.body).flatMap((value) => templateProblems(value, `${path}.body`, env, known)),
  ];
}

/** A hook URL must be on loopback unless the run allows remote targets. */
function assertReachable(url: string, allowRemote: boolean): void {
  if (!allowRemote && !isLoopbackUrl(url)) {
    throw new TiergateError(
      'TG_NOT_LOOPBACK',
      `hook URL ${new URL(url).origin} is not a loopback address; allow remote targets in the config`,
    );
  }
}

async function send(
  call: HttpCallConfig,
  values: TemplateValues,
  env: Env,
  timeoutMs: number,
  transport: HookTransport,
): Promise<HttpResponse> {
  const url = fillTemplate(call.url, values, env);
  assertReachable(url, transport.allowRemote);
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(call.headers ?? {}).map(([name, value]) => [name.toLowerCase(), fillTemplate(value, values, env)]),
  );
  let body: string | undefined;
  if (typeof call.body === 'string') body = fillTemplate(call.body, values, env);
  else if (call.body !== undefined) {
    body = JSON.stringify(fillJson(call.body, values, env));
    headers['content-type'] ??= 'application/json';
  }
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await request(url, {
      method: call.method,
      headers,
      body,
      signal,
      dispatcher: transport.dispatcher,
    });
    let text = '';
    for await (const chunk of response.body) {
      if (text.length < RESPONSE_KEEP) text += (chunk as Buffer).toString('utf8');
    }
    return { status: response.statusCode, text };
  } catch (error) {
    if (signal.aborted)
      throw new HookError(
        'HOOK_TIMEOUT',
        `${call.method} ${new URL(url).pathname} did not answer within ${timeoutMs} ms`,
      );
    throw new HookError('HOOK_FAILED', `${call.method} ${new URL(url).pathname} failed: ${messageOf(error)}`);
  }
}

/** Reads "data.key" or "items.0.id" from parsed JSON. */
export function readPath(json: unknown, path: string): unknown {
  let value: unknown = json;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function failure(what: string, response: HttpResponse, secrets: readonly (string | null)[]): HookError {
  const output = redactOutput(response.text, secrets);
  return new HookError(
    'HOOK_FAILED',
    `${what} answered ${response.status}: ${output === '' ? '(empty body)' : output}`,
  );
}

/** Stands in for a key while the revoke URL's origin is read: an origin holding it depends on the key. */
const NO_KEY = 'tiergate-no-key';

/** The revoke URL's origin, where it is the same for every key (no key placeholder in it); else null. */
function revokeOrigin(call: HttpCallConfig, env: Env): string | null {
  try {
    const origin = new URL(fillTemplate(call.url, { key: NO_KEY, keyId: NO_KEY }, env)).origin;
    return origin.includes(NO_KEY) ? null : origin;
  } catch {
    return null;
  }
}

/** Opens the revoke call's connection (HEAD / at its origin) on the transport, within the hook's timeout. */
async function warmConnection(origin: string, transport: HookTransport, timeoutMs: number): Promise<void> {
  assertReachable(origin, transport.allowRemote);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await openConnection(origin, { dispatcher: transport.dispatcher, signal });
  } catch (error) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : messageOf(error);
    throw new HookError('HOOK_FAILED', `HEAD ${origin}/ to open the revoke call's connection: ${why}`);
  }
}

/**
 * Revokes `key` with an HTTP call, resolving on a 2xx answer; `warm` opens its connection beforehand,
 * where the revoke URL's origin is the same for every key.
 */
export function httpRevoker(
  call: HttpCallConfig,
  timeoutMs: number,
  env: Env,
  path: string,
  options: HttpHookOptions = {},
): KeyRevoker {
  assertNoProblems(httpCallProblems(call, path, env, ['key', 'keyId']));
  const secrets = envSecrets(templatesOf(call), env);
  const transport = transportOf(options);
  const origin = revokeOrigin(call, env);
  return {
    async revokeKey(key) {
      const response = await send(call, { key: key.key, keyId: key.id }, env, timeoutMs, transport);
      if (response.status < 200 || response.status >= 300)
        throw failure('the revoke call', response, [key.key, ...secrets]);
    },
    ...(origin === null ? {} : { warm: () => warmConnection(origin, transport, timeoutMs) }),
  };
}

export function httpHook(
  config: HttpHookConfig,
  env: Env,
  path = 'revocation.hook',
  options: HttpHookOptions = {},
): KeyHook {
  const revokeUses = (name: KeyPlaceholder) => templatesOf(config.revoke).some((t) => t.includes(`{${name}}`));
  assertNoProblems([
    ...httpCallProblems(config.provision, `${path}.provision`, env, []),
    ...httpCallProblems(config.revoke, `${path}.revoke`, env, ['key', 'keyId']),
    ...(revokeUses('keyId') && config.provision.keyIdPath === undefined
      ? [`${path}.provision.keyIdPath: required, since the revoke call uses {keyId}`]
      : []),
  ]);
  const revoker = httpRevoker(config.revoke, config.timeout, env, `${path}.revoke`, options);
  const secrets = envSecrets(templatesOf(config.provision), env);
  const transport = transportOf(options);
  let provisioned = 0;
  return {
    kind: 'http',
    async provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle> {
      const response = await send(config.provision, {}, env, config.timeout, transport);
      if (response.status < 200 || response.status >= 300) throw failure('the provision call', response, secrets);
      let json: unknown;
      try {
        json = JSON.parse(response.text);
      } catch {
        throw new HookError('HOOK_OUTPUT', `the provision call answered ${response.status} without a JSON body`);
      }
      const key = readPath(json, config.provision.keyPath);
      if (typeof key !== 'string' || key === '') {
        throw new HookError(
          'HOOK_OUTPUT',
          `the provision call's response has no string at ${config.provision.keyPath}`,
        );
      }
      const id = config.provision.keyIdPath === undefined ? null : readPath(json, config.provision.keyIdPath);
      provisioned += 1;
      return {
        label: `${org.label}/revocation-${provisioned}`,
        key,
        id: typeof id === 'string' || typeof id === 'number' ? String(id) : null,
        scopes,
      };
    },
    ...revoker,
  };
}
