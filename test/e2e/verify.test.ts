/**
 * `tiergate verify` on a real run folder (a short run against the reference target, signed with a
 * key made here): it verifies as written, and names what changed when a file is altered, removed or
 * added, when a verdict is edited, and when the signature is checked with another key. Usage
 * mistakes (a bad key in TIERGATE_SIGNING_KEY or --public-key) are one line and exit 2.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectUsageError, runCli } from '../helpers/cli.ts';

const work = mkdtempSync(join(tmpdir(), 'tiergate-verify-'));
const pair = () => generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const signer = pair();
const stranger = pair();
writeFileSync(join(work, 'signer.pub'), signer.publicKey);
writeFileSync(join(work, 'stranger.pub'), stranger.publicKey);
let runDir = '';

/** A fresh copy of the run folder to spoil. */
function copyOfRun(): string {
  const copy = mkdtempSync(join(work, 'copy-'));
  cpSync(runDir, copy, { recursive: true });
  return copy;
}

const verify = (dir: string, key = 'signer.pub') => runCli(['verify', dir, '--public-key', join(work, key)]);

beforeAll(async () => {
  const out = join(work, 'reports');
  const run = await runCli(['run', '--window', '2s', '--tiers', 'starter', '--checks', 'AUTH-MISSING,HDR-PRESENT,AUTH-KEY-FORMAT', '--out', out], { TIERGATE_SIGNING_KEY: signer.privateKey });
  expect(run.code).toBe(0);
  runDir = realpathSync(join(out, 'latest'));
}, 60_000);

describe('tiergate verify', () => {
  it('a run folder as written verifies, signature and all; the manifest names the command and every file', async () => {
    const result = await verify(runDir);
    expect(result.stdout).toContain('✓ signature: manifest.json is signed by the key --public-key names');
    expect(result.stdout).toMatch(/✓ files: the 5 the manifest lists/);
    // AUTH-MISSING and HDR-PRESENT judged again from the observations; AUTH-KEY-FORMAT's input is the keys.
    expect(result.stdout).toContain('✓ verdicts: 2 result(s) judged again from the observations by the same functions, each as results.json has it');
    expect(result.stdout).toContain('- verdicts whose input is not written down (1): AUTH-KEY-FORMAT [starter] (its input is the API keys themselves, which a run never writes down)');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as { command: string[]; files: { name: string }[]; publicKey: string };
    expect(manifest.command.slice(0, 3)).toEqual(['run', '--window', '2s']);
    expect(manifest.files.map((f) => f.name)).toEqual(['index.html', 'judgements.ndjson.gz', 'junit.xml', 'observations.ndjson.gz', 'results.json']);
    expect(manifest.publicKey).toBe(signer.publicKey);
  });

  it("another key's public half: the signature fails", async () => {
    const result = await verify(runDir, 'stranger.pub');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ manifest.sig: not a signature of manifest.json by the key --public-key names');
  });

  it('one observation edited: that file is named as altered', async () => {
    const copy = copyOfRun();
    const file = join(copy, 'observations.ndjson.gz');
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
    lines[0] = lines[0]!.replace(/"status":\d+/, '"status":500');
    writeFileSync(file, gzipSync(lines.join('\n')));
    const result = await verify(copy);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ observations.ndjson.gz: altered');
  });

  it("one observation edited and its hash rewritten in manifest.json: the check whose verdict no longer follows is named", async () => {
    const copy = copyOfRun();
    const file = join(copy, 'observations.ndjson.gz');
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
    // An AUTH-MISSING request answered 401, made to read 200: the key-less request admitted.
    const index = lines.findIndex((l) => l.includes('"check":"AUTH-MISSING"') && l.includes('"status":401'));
    lines[index] = lines[index]!.replace('"status":401', '"status":200');
    const edited = gzipSync(lines.join('\n'));
    writeFileSync(file, edited);
    const manifestFile = join(copy, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: { name: string; bytes: number; sha256: string }[] };
    const entry = manifest.files.find((f) => f.name === 'observations.ndjson.gz')!;
    entry.sha256 = createHash('sha256').update(edited).digest('hex');
    entry.bytes = edited.length;
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const result = await runCli(['verify', copy]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✓ files: the 5 the manifest lists/);
    expect(result.stdout).toContain('✗ AUTH-MISSING [starter]: judged again from the observations, its verdict is fail, results.json says pass');
  });

  it('one verdict edited in results.json: named as altered, and its summary no longer follows', async () => {
    const copy = copyOfRun();
    const file = join(copy, 'results.json');
    const results = JSON.parse(readFileSync(file, 'utf8')) as { checks: { verdict: string }[] };
    results.checks[0]!.verdict = 'fail';
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    const result = await verify(copy);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ results.json: altered');
    expect(result.stdout).toContain('✗ results.json: verdict is pass, but its checks make it fail');
    expect(result.stdout).toContain('✗ index.html: not what results.json and the observations render');
  });

  it('a file deleted, or one added: named', async () => {
    const copy = copyOfRun();
    rmSync(join(copy, 'junit.xml'));
    writeFileSync(join(copy, 'notes.txt'), 'added later\n');
    const result = await verify(copy);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ junit.xml: missing (the manifest lists it)');
    expect(result.stdout).toContain('✗ notes.txt: extra (the manifest does not list it)');
  });

  it('usage mistakes: one line, exit 2', async () => {
    expectUsageError(await runCli(['verify', join(work, 'nowhere')]), /nowhere: not a run folder/);
    expectUsageError(await runCli(['verify', runDir, '--public-key', join(work, 'absent.pub')]), /--public-key .*absent\.pub: cannot read the file/);
    writeFileSync(join(work, 'not-a-key.pub'), 'hello\n');
    expectUsageError(await runCli(['verify', runDir, '--public-key', join(work, 'not-a-key.pub')]), /--public-key .*: not a public key in PEM/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const bad = await runCli(['run', '--window', '2s', '--tiers', 'starter', '--checks', 'AUTH-MISSING', '--out', join(work, 'bad')], { TIERGATE_SIGNING_KEY: rsa.privateKey });
    expectUsageError(bad, /^tiergate: TIERGATE_SIGNING_KEY: a rsa key, not Ed25519/);
    expect(bad.stderr).not.toContain('PRIVATE KEY');
  });
});
