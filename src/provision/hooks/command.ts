/**
 * The command hook: shell commands that provision and revoke keys on a real deployment (§5.8, §5.9).
 * The provision command prints the new key on stdout (optionally followed by its id, or as JSON
 * `{"key": ..., "id": ...}`); the revoke command gets `{key}` / `{keyId}` substituted and exits 0 once
 * the key is revoked. The values are also in TIERGATE_KEY / TIERGATE_KEY_ID. Every call has a
 * timeout that kills the whole process group, so a hanging command never hangs the run; output in
 * errors is redacted.
 */
import { spawn } from 'node:child_process';
import type { ScopeName } from '../../contract/types.ts';
import type { KeyHandle, KeyHook, OrgHandle } from '../../contract/handles.ts';
import { HookError, redactOutput } from './hook-error.ts';
import {
  assertNoProblems,
  envSecrets,
  fillTemplate,
  shellQuote,
  templateProblems,
  type Env,
  type TemplateValues,
} from './template.ts';

export interface CommandHookConfig {
  readonly provision: string;
  readonly revoke: string;
  /** Per call, ms. */
  readonly timeout: number;
}

export interface CommandResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

const OUTPUT_KEEP = 64 * 1024;
const EXIT_GRACE_MS = 200;

/** Runs `command` with `sh -c` in its own process group; on timeout the group is killed and the call resolves at once. */
export function runCommand(
  command: string,
  env: Env,
  timeoutMs: number,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (result: Omit<CommandResult, 'stdout' | 'stderr'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, stdout, stderr });
    };
    const keep = (current: string, chunk: Buffer) =>
      current.length < OUTPUT_KEEP ? current + chunk.toString('utf8') : current;
    child.stdout.on('data', (chunk: Buffer) => (stdout = keep(stdout, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = keep(stderr, chunk)));
    const timer = setTimeout(() => {
      killGroup(child.pid);
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ code: null, signal: 'SIGKILL', timedOut: true });
    }, timeoutMs);
    child.on('error', (error) => {
      stderr += error.message;
      finish({ code: null, signal: null, timedOut: false });
    });
    child.on('close', (code, signal) => finish({ code, signal, timedOut: false }));
    // A background grandchild may hold the pipes open after the shell exits: take the exit status
    // after a short grace for the output, and kill what is left.
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        if (settled) return;
        killGroup(child.pid);
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ code, signal, timedOut: false });
      }, EXIT_GRACE_MS).unref();
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A failed or timed-out command as a HookError with its redacted output. */
export function commandError(
  what: string,
  result: CommandResult,
  timeoutMs: number,
  secrets: readonly (string | null)[],
): HookError {
  const output = redactOutput(`${result.stderr} ${result.stdout}`, secrets);
  const shown = output === '' ? '(no output)' : output;
  if (result.timedOut) return new HookError('HOOK_TIMEOUT', `${what} timed out after ${timeoutMs} ms: ${shown}`);
  const how =
    result.code !== null ? `exited with status ${result.code}` : `was killed by ${result.signal ?? 'a signal'}`;
  return new HookError('HOOK_FAILED', `${what} ${how}: ${shown}`);
}

/** The key (and id) a provision command printed: JSON {key, id} or "KEY [ID]" on the first non-empty line. */
export function parseProvisionOutput(stdout: string): { key: string; id: string | null } | null {
  const text = stdout.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as { key?: unknown; id?: unknown };
      if (typeof json.key === 'string' && json.key !== '') {
        return {
          key: json.key,
          id: typeof json.id === 'string' || typeof json.id === 'number' ? String(json.id) : null,
        };
      }
    } catch {
      // not JSON: read it as a line
    }
  }
  const line = text.split('\n').find((l) => l.trim() !== '');
  if (!line) return null;
  const [key, id] = line.trim().split(/\s+/);
  return key ? { key, id: id ?? null } : null;
}

/** Revokes `key` with a command template; resolves when it exits 0. */
export function commandRevoker(
  template: string,
  timeoutMs: number,
  env: Env,
  path: string,
): (key: KeyHandle) => Promise<void> {
  assertNoProblems(templateProblems(template, path, env, ['key', 'keyId']));
  const secrets = envSecrets([template], env);
  return async (key) => {
    const values: TemplateValues = { key: key.key, keyId: key.id };
    const command = fillTemplate(template, values, env, shellQuote);
    const result = await runCommand(command, env, timeoutMs, keyEnv(key.key, key.id));
    if (result.timedOut || result.code !== 0)
      throw commandError('the revoke command', result, timeoutMs, [key.key, ...secrets]);
  };
}

function keyEnv(key: string, id: string | null): Record<string, string> {
  return id === null ? { TIERGATE_KEY: key } : { TIERGATE_KEY: key, TIERGATE_KEY_ID: id };
}

export function commandHook(config: CommandHookConfig, env: Env, path = 'revocation.hook'): KeyHook {
  assertNoProblems([
    ...templateProblems(config.provision, `${path}.provision`, env, []),
    ...templateProblems(config.revoke, `${path}.revoke`, env, ['key', 'keyId']),
  ]);
  const revoke = commandRevoker(config.revoke, config.timeout, env, `${path}.revoke`);
  const secrets = envSecrets([config.provision], env);
  let provisioned = 0;
  return {
    kind: 'command',
    async provisionKey(org: OrgHandle, scopes: readonly ScopeName[] | 'all'): Promise<KeyHandle> {
      const command = fillTemplate(config.provision, {}, env, shellQuote);
      const result = await runCommand(command, env, config.timeout, {
        TIERGATE_ORG: org.id ?? org.label,
        TIERGATE_SCOPES: scopes === 'all' ? 'all' : scopes.join(','),
      });
      if (result.timedOut || result.code !== 0)
        throw commandError('the provision command', result, config.timeout, secrets);
      const parsed = parseProvisionOutput(result.stdout);
      if (!parsed) throw new HookError('HOOK_OUTPUT', 'the provision command printed no key on stdout');
      provisioned += 1;
      return { label: `${org.label}/revocation-${provisioned}`, key: parsed.key, id: parsed.id, scopes };
    },
    revokeKey: revoke,
  };
}
