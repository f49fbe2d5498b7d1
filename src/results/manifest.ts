/**
 * A run folder's manifest (manifest.json): the SHA-256 of every file in it, and what made them (the
 * tool, its version and revision, Node, the OS, the command line, the config's hash, start and end).
 * On its own it catches accidents, since anyone can rewrite a hash; signed (manifest.sig: Ed25519 over
 * the manifest's exact bytes, by `node:crypto`) it shows the files are the ones the key's holder
 * published. `tiergate verify` checks both.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

export const MANIFEST_SCHEMA = 'tiergate/manifest@1';
export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex');

export const manifestSchema = z.strictObject({
  schema: z.literal(MANIFEST_SCHEMA),
  runId: z.string(),
  tool: z.strictObject({ name: z.string(), version: z.string(), revision: z.string().nullable() }),
  node: z.string(),
  os: z.string(),
  /** The arguments tiergate was given (keys redacted), or null where a library call made the run. */
  command: z.array(z.string()).nullable(),
  /** SHA-256 of the validated config (its canonical JSON), or null for the embedded target. */
  configSha256: sha256Hex.nullable(),
  startedAt: z.string(),
  finishedAt: z.string(),
  files: z.array(z.strictObject({ name: z.string(), bytes: z.number().int().nonnegative(), sha256: sha256Hex })),
  /** The signing key's public half (SPKI, PEM), where the manifest is signed: which key to ask the publisher about. */
  publicKey: z.string().nullable(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = Manifest['files'][number];

export const sha256Of = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** The manifest as written: two-space JSON and a final newline; the signature covers exactly these bytes. */
export const manifestText = (manifest: Manifest): string => `${JSON.stringify(manifest, null, 2)}\n`;

/** An Ed25519 signature of the manifest's bytes, base64 (manifest.sig's content, with a final newline). */
export function signManifest(text: string, privateKey: KeyObject): string {
  return `${sign(null, Buffer.from(text, 'utf8'), privateKey).toString('base64')}\n`;
}

export function signatureHolds(text: string, signature: string, publicKey: KeyObject): boolean {
  const bytes = Buffer.from(signature.trim(), 'base64');
  try {
    return verify(null, Buffer.from(text, 'utf8'), publicKey, bytes);
  } catch {
    return false;
  }
}

export const publicKeyPem = (privateKey: KeyObject): string =>
  createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();

/** What differs between the files the manifest lists and the files there are (each by name): none when they agree. */
export function fileDifferences(listed: readonly ManifestFile[], present: readonly ManifestFile[]): string[] {
  const problems: string[] = [];
  const there = new Map(present.map((f) => [f.name, f]));
  for (const file of listed) {
    const found = there.get(file.name);
    if (!found) problems.push(`${file.name}: missing (the manifest lists it)`);
    else if (found.sha256 !== file.sha256) problems.push(`${file.name}: altered (its SHA-256 is not the manifest's)`);
  }
  const names = new Set(listed.map((f) => f.name));
  for (const file of present)
    if (!names.has(file.name)) problems.push(`${file.name}: extra (the manifest does not list it)`);
  return problems;
}
