/**
 * Seals a run folder once its files are written: manifest.json (results/manifest.ts) with every file's
 * SHA-256, and manifest.sig where a signing key was given. Also lists a folder's files as the
 * manifest would, for `tiergate verify`.
 */
import { createReadStream } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { createHash, type KeyObject } from 'node:crypto';
import { arch, platform, release } from 'node:os';
import { join, relative, sep } from 'node:path';
import { redactKeys } from '../contract/keys.ts';
import type { RunResults } from '../results/types.ts';
import {
  MANIFEST_FILE,
  MANIFEST_SCHEMA,
  manifestText,
  publicKeyPem,
  sha256Of,
  SIGNATURE_FILE,
  signManifest,
  type Manifest,
  type ManifestFile,
} from '../results/manifest.ts';

/** What the run knows of how it was made, beyond its results. */
export interface SealInput {
  /** The arguments tiergate was given; null for a library call. */
  readonly command: readonly string[] | null;
  /** The validated config, hashed as canonical JSON; null for the embedded target. */
  readonly config: unknown;
  /** Ed25519 private key (TIERGATE_SIGNING_KEY): the manifest is signed when one is given. */
  readonly signingKey: KeyObject | null;
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every file under `dir` but the manifest and its signature, by its path inside `dir` (with `/`), in name order. */
export async function folderFiles(dir: string): Promise<ManifestFile[]> {
  const names = (await readdir(dir, { recursive: true })).map(String).sort();
  const files: ManifestFile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path);
    const posix = relative(dir, path).split(sep).join('/');
    if (!info.isFile() || posix === MANIFEST_FILE || posix === SIGNATURE_FILE) continue;
    files.push({ name: posix, bytes: info.size, sha256: await fileSha256(path) });
  }
  return files;
}

/** Canonical JSON: keys sorted at every depth, so the same config hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function sealRun(runDir: string, results: RunResults, input: SealInput): Promise<Manifest> {
  const manifest: Manifest = {
    schema: MANIFEST_SCHEMA,
    runId: results.runId,
    tool: results.tool,
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    command: input.command === null ? null : input.command.map(redactKeys),
    configSha256: input.config === null || input.config === undefined ? null : sha256Of(canonical(input.config)),
    startedAt: results.startedAt,
    finishedAt: results.finishedAt,
    files: await folderFiles(runDir),
    publicKey: input.signingKey ? publicKeyPem(input.signingKey) : null,
  };
  const text = manifestText(manifest);
  await writeFile(join(runDir, MANIFEST_FILE), text);
  if (input.signingKey) await writeFile(join(runDir, SIGNATURE_FILE), signManifest(text, input.signingKey));
  return manifest;
}
