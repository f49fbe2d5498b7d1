/** §5.3 key formats, and the one way keys are ever shown: prefix and last four characters. */
import { randomInt } from 'node:crypto';
import type { Contract, KeyFormat } from './types.ts';
import { redactKey } from './redact.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A well-formed key that was never issued (AUTH-UNKNOWN, discovery's 401 question), made fresh each time. */
export function unissuedKey(prefix: string): string {
  return prefix + Array.from({ length: 32 }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('');
}

export function keyFormatOf(contract: Contract, key: string): KeyFormat | null {
  for (const format of contract.keyFormats) {
    if (key.startsWith(format.prefix) && format.pattern.test(key.slice(format.prefix.length))) return format;
  }
  return null;
}

export { redactKey } from './redact.ts';

/**
 * §5.3 key shapes anywhere in a text: live keys are 32 alphanumerics, test keys "32 characters"
 * (taken as any 32 that are not space, quote or separator).
 */
const FULL_KEY = /xh_live_[A-Za-z0-9]{32}|xh_test_[^\s"'<>&,;]{32}/g;

/** Whether `text` holds a full key anywhere (config files must name variables instead). */
export function containsFullKey(text: string): boolean {
  FULL_KEY.lastIndex = 0;
  return FULL_KEY.test(text);
}

/**
 * The last line of defence for keys: every report file, observation line and terminal line passes
 * through here before it is written, so one slip cannot leak a key.
 */
export function redactKeys(text: string): string {
  return text.replace(FULL_KEY, (key) => redactKey(key));
}
