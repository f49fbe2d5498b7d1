/**
 * Failures of a key hook, with stable codes, and the one way hook output is ever shown: every key
 * and every secret the hook was given replaced by a redacted form, clipped.
 */
import { redactKey } from '../../contract/keys.ts';
import { bounded } from '../../util/bounded.ts';
import { redactKeys } from '../../contract/keys.ts';

export type HookErrorCode =
  /** The call ran and reported failure (non-zero exit, non-2xx status). */
  | 'HOOK_FAILED'
  /** The call did not finish within its timeout. */
  | 'HOOK_TIMEOUT'
  /** The call succeeded but its output could not be used (no key in it). */
  | 'HOOK_OUTPUT'
  /** No keys are left (disposable list). */
  | 'HOOK_EXHAUSTED';

export class HookError extends Error {
  readonly code: HookErrorCode;
  constructor(code: HookErrorCode, message: string) {
    super(message);
    this.name = 'HookError';
    this.code = code;
  }
}

const OUTPUT_CHARS = 400;

/** Hook output fit to show: secrets and keys redacted, whitespace collapsed, clipped. */
export function redactOutput(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text;
  const sorted = secrets
    .filter((s): s is string => typeof s === 'string' && s.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join(redactKey(secret));
  out = redactKeys(out).replace(/\s+/g, ' ').trim();
  return out.length <= OUTPUT_CHARS ? out : `${out.slice(0, OUTPUT_CHARS - 1)}…`;
}

/** A hook call bounded in time: its value, or a HOOK_TIMEOUT once `ms` have passed. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return bounded(promise, ms, () => new HookError('HOOK_TIMEOUT', `${what} did not finish within ${ms} ms`));
}
