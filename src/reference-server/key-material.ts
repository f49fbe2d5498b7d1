/**
 * §5.3 API keys: generated from a CSPRNG, stored only as SHA-256 hashes and found by the presented
 * key's hash (a lookup's timing tells nothing of a key, only of a digest). The full key exists once, in
 * the admin API's creation response.
 */
import { hash, randomBytes } from 'node:crypto';
import type { KeyFormat } from '../contract/types.ts';

const ALPHANUMERICS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Largest multiple of 62 that fits a byte: bytes at or above it are dropped, so every character is equally likely. */
const UNBIASED_BELOW = 256 - (256 % ALPHANUMERICS.length);
/** §5.3: "followed by 32 cryptographic alphanumeric characters". Checked against the contract's pattern below. */
export const KEY_BODY_LENGTH = 32;

/** `length` characters drawn uniformly from the 62 alphanumerics (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_BELOW) continue;
      out += ALPHANUMERICS[byte % ALPHANUMERICS.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(format: KeyFormat): string {
  const body = randomAlphanumeric(KEY_BODY_LENGTH);
  if (!format.pattern.test(body)) {
    throw new Error(`the contract's ${format.env} key pattern does not accept ${KEY_BODY_LENGTH} alphanumerics`);
  }
  return format.prefix + body;
}

/** SHA-256 of a key, in hex: one-shot and straight to a string (a Buffer digest costs several times more). */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Opaque identifiers for orgs, keys, jobs: a prefix and random hex. */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}
