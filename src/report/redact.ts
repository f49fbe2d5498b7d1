/**
 * The last line of defence for keys: results never hold a full key, but every report file and
 * terminal line passes through here before it is written, so one slip cannot leak a key.
 */
import { redactKey } from '../contract/keys.ts';

/** §5.3 key shape, anywhere in a text. */
const FULL_KEY = /xh_(?:live|test)_[A-Za-z0-9]{32}/g;

/** Replaces every full key in `text` by its redacted form (prefix + last four). */
export function redactKeys(text: string): string {
  return text.replace(FULL_KEY, (key) => redactKey(key));
}
