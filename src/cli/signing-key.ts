/**
 * TIERGATE_SIGNING_KEY: the Ed25519 private key a run signs its manifest with, as PEM text or the
 * path of a PEM file (`openssl genpkey -algorithm ed25519 -out signing.pem`). Read once, at the
 * boundary; a mistake is one line naming the variable, and the key itself is never shown.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../util/errors.ts';
import type { Io } from '../util/io.ts';

export const SIGNING_KEY_VARIABLE = 'TIERGATE_SIGNING_KEY';

const FIX =
  'give an Ed25519 private key in PEM, or the path of one (openssl genpkey -algorithm ed25519 -out signing.pem)';

export async function signingKeyFrom(io: Pick<Io, 'env' | 'cwd'>): Promise<KeyObject | null> {
  const value = io.env[SIGNING_KEY_VARIABLE];
  if (value === undefined || value.trim() === '') return null;
  let pem = value;
  if (!value.trimStart().startsWith('-----BEGIN')) {
    try {
      pem = await readFile(resolve(io.cwd, value.trim()), 'utf8');
    } catch (error) {
      throw new UsageError(
        `${SIGNING_KEY_VARIABLE}: not PEM text, and no file can be read at that path (${(error as NodeJS.ErrnoException).code ?? 'error'}); ${FIX}`,
      );
    }
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new UsageError(`${SIGNING_KEY_VARIABLE}: not a private key node:crypto can read; ${FIX}`);
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`${SIGNING_KEY_VARIABLE}: a ${key.asymmetricKeyType ?? 'symmetric'} key, not Ed25519; ${FIX}`);
  return key;
}
