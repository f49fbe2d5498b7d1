/** The manifest's pure parts: the signature over its exact bytes, and what differs between listed and present files. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fileDifferences,
  MANIFEST_SCHEMA,
  manifestSchema,
  manifestText,
  publicKeyPem,
  sha256Of,
  signatureHolds,
  signManifest,
  type Manifest,
} from '../../src/results/manifest.ts';

const file = (name: string, text: string) => ({ name, bytes: Buffer.byteLength(text), sha256: sha256Of(text) });
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');

const manifest: Manifest = {
  schema: MANIFEST_SCHEMA,
  runId: '20261126-231446-ab7f',
  tool: { name: 'tiergate', version: '0.1.0', revision: null },
  node: 'v20.20.2',
  os: 'linux x64',
  command: ['run'],
  configSha256: null,
  startedAt: '2026-11-26T23:14:46.803Z',
  finishedAt: '2026-11-26T23:15:06.886Z',
  files: [file('results.json', '{}\n')],
  publicKey: publicKeyPem(privateKey),
};

describe('manifest', () => {
  it('SHA-256 in hex, as sha256sum prints it', () => {
    // `printf 'abc' | sha256sum` (FIPS 180-2 test vector)
    expect(sha256Of('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('its text parses back under its schema', () => {
    expect(manifestSchema.parse(JSON.parse(manifestText(manifest)))).toEqual(manifest);
  });

  it('a signature holds for its key over the exact bytes, and for no other key or text', () => {
    const text = manifestText(manifest);
    const signature = signManifest(text, privateKey);
    expect(signatureHolds(text, signature, publicKey)).toBe(true);
    expect(signatureHolds(text, signature, other.publicKey)).toBe(false);
    expect(signatureHolds(text.replace('0.1.0', '0.1.1'), signature, publicKey)).toBe(false);
    expect(signatureHolds(text, 'not base64 at all!', publicKey)).toBe(false);
  });

  it('names each file missing, altered or extra; none when they agree', () => {
    const listed = [file('a.json', 'a'), file('b.xml', 'b'), file('c.gz', 'c')];
    expect(fileDifferences(listed, listed)).toEqual([]);
    expect(fileDifferences(listed, [file('a.json', 'a'), file('b.xml', 'B'), file('d.txt', 'd')])).toEqual([
      "b.xml: altered (its SHA-256 is not the manifest's)",
      'c.gz: missing (the manifest lists it)',
      'd.txt: extra (the manifest does not list it)',
    ]);
  });
});
