/**
 * `target.ca`: the CA a config names for its edges' certificates, read and checked once where the
 * config is loaded. Its path is relative to the config file's folder (a CI job runs tiergate from
 * anywhere); a file that cannot be read, or holds no certificate, is the user's mistake.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { messageOf, UsageError } from '../util/errors.ts';
import type { Config } from './schema.ts';

export interface TargetCa {
  /** Absolute path of the file (what a k6 vantage's SSL_CERT_FILE names). */
  readonly path: string;
  /** Its certificates, PEM: only those (a private key in the same file goes nowhere). */
  readonly pem: string;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The CA `config` names, read from beside `configFile`; null where it names none. */
export async function loadTargetCa(config: Config, configFile: string, cwd: string): Promise<TargetCa | null> {
  const written = config.target.ca;
  if (written === undefined) return null;
  const path = resolve(dirname(resolve(cwd, configFile)), written);
  const input = `${configFile}: target.ca ${written}`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      `${input}: cannot read ${path} (${code}); write the path of the CA's PEM file, relative to the config file's folder`,
      'TG_CONFIG',
    );
  }
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0)
    throw new UsageError(
      `${input}: ${path} holds no PEM certificate; name the CA's certificate in PEM (-----BEGIN CERTIFICATE-----)`,
      'TG_CONFIG',
    );
  certificates.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (error) {
      throw new UsageError(
        `${input}: certificate ${i + 1} in ${path} cannot be read (${messageOf(error)}); name the CA's certificate in PEM`,
        'TG_CONFIG',
      );
    }
  });
  return { path, pem: `${certificates.join('\n')}\n` };
}
