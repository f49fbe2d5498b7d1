/** §5.3 key formats, and the one way keys are ever shown: prefix and last four characters. */
import type { Contract, KeyFormat } from './types.ts';

export function keyFormatOf(contract: Contract, key: string): KeyFormat | null {
  for (const format of contract.keyFormats) {
    if (key.startsWith(format.prefix) && format.pattern.test(key.slice(format.prefix.length))) return format;
  }
  return null;
}

/** Never print or write a full key: `xh_live_…a1B2`. Anything too short to redact safely is fully masked. */
export function redactKey(key: string): string {
  const underscore = key.lastIndexOf('_');
  const prefix = underscore >= 0 && underscore < 12 ? key.slice(0, underscore + 1) : '';
  const rest = key.slice(prefix.length);
  if (rest.length < 12) return `${prefix}…(${rest.length} chars)`;
  return `${prefix}…${rest.slice(-4)}`;
}
