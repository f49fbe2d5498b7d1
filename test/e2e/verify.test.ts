/**
 * `tiergate verify` on a real run folder (a short run against the reference target, signed with a
 * key made here): it verifies as written, and names what changed when a file is altered, removed or
 * added, when a verdict is edited, and when the signature is checked with another key. Usage
 * mistakes (a bad key in TIERGATE_SIGNING_KEY or --public-key) are one line and exit 2.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectUsageError, runCli } from '../helpers/cli.ts';
import { renderFromResultsFile } from '../../src/report/render.ts';

const work = mkdtempSync(join(tmpdir(), 'tiergate-verify-'));
const pair = () =>
  generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
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
  const run = await runCli(
    [
      'run',
      '--window',
      '2s',
      '--tiers',
      'starter',
      '--checks',
      'AUTH-MISSING,HDR-PRESENT,AUTH-KEY-FORMAT',
      '--out',
      out,
    ],
    { TIERGATE_SIGNING_KEY: signer.privateKey },
  );
  expect(run.code).toBe(0);
  runDir = realpathSync(join(out, 'latest'));
}, 60_000);

describe('tiergate verify', () => {
  it('a run folder as written verifies, signature and all; the manifest names the command and every file', async () => {
    const result = await verify(runDir);
    expect(result.stdout).toContain('✓ signature: manifest.json is signed by the key --public-key names');
    expect(result.stdout).toMatch(/✓ files: the 5 the manifest lists/);
    // AUTH-MISSING and HDR-PRESENT judged again from the observations; AUTH-KEY-FORMAT's input is the keys.
    expect(result.stdout).toContain(
      '✓ verdicts: 2 result(s) judged again from the observations by the same functions, each as results.json has it',
    );
    expect(result.stdout).toContain(
      '- verdicts not judged again (1): AUTH-KEY-FORMAT [starter]: its input is the API keys themselves, which a run never writes down',
    );
    expect(result.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as {
      command: string[];
      files: { name: string }[];
      publicKey: string;
    };
    expect(manifest.command.slice(0, 3)).toEqual(['run', '--window', '2s']);
    expect(manifest.files.map((f) => f.name)).toEqual([
      'index.html',
      'judgements.ndjson.gz',
      'junit.xml',
      'observations.ndjson.gz',
      'results.json',
    ]);
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

  it('one observation edited and its hash rewritten in manifest.json: the check whose verdict no longer follows is named', async () => {
    const copy = copyOfRun();
    const file = join(copy, 'observations.ndjson.gz');
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n');
    // An AUTH-MISSING request answered 401, made to read 200: the key-less request admitted.
    const index = lines.findIndex((l) => l.includes('"check":"AUTH-MISSING"') && l.includes('"status":401'));
    lines[index] = lines[index]!.replace('"status":401', '"status":200');
    const edited = gzipSync(lines.join('\n'));
    writeFileSync(file, edited);
    const manifestFile = join(copy, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
      files: { name: string; bytes: number; sha256: string }[];
    };
    const entry = manifest.files.find((f) => f.name === 'observations.ndjson.gz')!;
    entry.sha256 = createHash('sha256').update(edited).digest('hex');
    entry.bytes = edited.length;
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const result = await runCli(['verify', copy]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✓ files: the 5 the manifest lists/);
    expect(result.stdout).toContain(
      '✗ AUTH-MISSING [starter]: judged again from the observations, its verdict is fail, results.json says pass',
    );
  });

  describe('a folder made consistent again after an edit (hashes rewritten, reports rendered again, unsigned): the verdicts still tell', () => {
    /** Edits the copy, renders its reports again, drops the signature and rewrites every hash in the manifest. */
    async function forged(edit: (copy: string) => void): Promise<string> {
      const copy = copyOfRun();
      edit(copy);
      rmSync(join(copy, 'manifest.sig'));
      if (existsSync(join(copy, 'results.json'))) await renderFromResultsFile(join(copy, 'results.json'));
      const manifestFile = join(copy, 'manifest.json');
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
        files: { name: string; bytes: number; sha256: string }[];
        publicKey: string | null;
      };
      manifest.files = manifest.files
        .filter((f) => existsSync(join(copy, f.name)))
        .map((f) => {
          const bytes = readFileSync(join(copy, f.name));
          return { name: f.name, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
        });
      manifest.publicKey = null;
      writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
      return copy;
    }
    const editResults = (
      copy: string,
      change: (results: { checks: { id: string; verdict: string }[]; counts: Record<string, number> }) => void,
    ) => {
      const file = join(copy, 'results.json');
      const results = JSON.parse(readFileSync(file, 'utf8')) as {
        checks: { id: string; verdict: string }[];
        counts: Record<string, number>;
      };
      change(results);
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    };
    const editJudgements = (copy: string, change: (records: { fn: string; args: unknown }[]) => unknown[]) => {
      const file = join(copy, 'judgements.ndjson.gz');
      const records = gunzipSync(readFileSync(file))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { fn: string; args: unknown });
      writeFileSync(
        file,
        gzipSync(
          change(records)
            .map((r) => JSON.stringify(r))
            .join('\n'),
        ),
      );
    };

    it('a result turned skipped, its counts kept consistent', async () => {
      const copy = await forged((c) =>
        editResults(c, (r) => {
          r.checks.find((x) => x.id === 'AUTH-MISSING')!.verdict = 'skipped';
          r.counts['pass']! -= 1;
          r.counts['skipped']! += 1;
        }),
      );
      const result = await runCli(['verify', copy]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        '✗ AUTH-MISSING [starter]: its judgement recorded another finding than results.json has',
      );
    });

    it("a figure of a result's data edited, its words kept: named, figures compared, not sentences", async () => {
      let edited = '';
      const copy = await forged((c) =>
        editResults(c, (r) => {
          // HDR-PRESENT's count of responses of one status, one more than it was.
          type Edited = { id: string; tier: string; data: { byStatus: Record<string, { total: number }> } };
          const result = (r.checks as unknown as Edited[]).find((x) => x.id === 'HDR-PRESENT')!;
          const [status] = Object.keys(result.data.byStatus);
          result.data.byStatus[status!]!.total += 1;
          edited = `HDR-PRESENT [${result.tier}]`;
        }),
      );
      const result = await runCli(['verify', copy]);
      expect(result.code).toBe(1);
      const named = result.stdout.split('\n').filter((l) => l.startsWith(`✗ ${edited}`));
      expect(named.some((l) => l.endsWith('judged again from the observations, its figures (data) differ'))).toBe(true);
    });

    it('a result removed: its judgement is named as one for a result results.json lacks', async () => {
      const copy = await forged((c) =>
        editResults(c, (r) => {
          r.checks = r.checks.filter((x) => x.id !== 'AUTH-MISSING');
          r.counts['pass']! -= 1;
        }),
      );
      const result = await runCli(['verify', copy]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        '✗ judgements.ndjson.gz: a judgement for AUTH-MISSING [starter], which results.json does not have',
      );
    });

    it('the judgements removed, or one stripped of its input: named', async () => {
      const removed = await runCli(['verify', await forged((c) => rmSync(join(c, 'judgements.ndjson.gz')))]);
      expect(removed.code).toBe(1);
      expect(removed.stdout).toContain('✗ judgements.ndjson.gz: missing (every harness run writes one)');
      const stripped = await runCli([
        'verify',
        await forged((c) =>
          editJudgements(c, (records) => records.map((r) => (r.fn === 'authRejected' ? { ...r, args: null } : r))),
        ),
      ]);
      expect(stripped.code).toBe(1);
      expect(stripped.stdout).toContain(
        '✗ AUTH-MISSING [starter]: its judgement (authRejected) has no input, though a run always writes one',
      );
    });

    it('a verdict claimed for the procedure (no input, so nothing to judge again): refused, the procedure never passes a check', async () => {
      const copy = await forged((c) =>
        editJudgements(c, (records) =>
          records.map((r) => (r.fn === 'authRejected' ? { ...r, fn: 'procedure', args: null } : r)),
        ),
      );
      const result = await runCli(['verify', copy]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        '✗ AUTH-MISSING [starter]: its judgement (procedure) cannot decide a pass AUTH-MISSING',
      );
    });

    it('observations named outside the folder: refused', async () => {
      const copy = await forged((c) => {
        const file = join(c, 'results.json');
        writeFileSync(
          file,
          readFileSync(file, 'utf8').replace('"file": "observations.ndjson.gz"', '"file": "../observations.ndjson.gz"'),
        );
      });
      const result = await runCli(['verify', copy]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(
        '✗ results.json: observations.file "../observations.ndjson.gz" is not a file of this folder',
      );
      expect(result.stderr).toBe('');
    });

    it('the observations removed: named, and no crash', async () => {
      const result = await runCli(['verify', await forged((c) => rmSync(join(c, 'observations.ndjson.gz')))]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('✗ verdicts: not judged again: observations.ndjson.gz is missing');
      expect(result.stderr).toBe('');
    });
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
    expectUsageError(
      await runCli(['verify', runDir, '--public-key', join(work, 'absent.pub')]),
      /--public-key .*absent\.pub: cannot read the file/,
    );
    writeFileSync(join(work, 'not-a-key.pub'), 'hello\n');
    expectUsageError(
      await runCli(['verify', runDir, '--public-key', join(work, 'not-a-key.pub')]),
      /--public-key .*: not a public key in PEM/,
    );
    const rsa = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const bad = await runCli(
      ['run', '--window', '2s', '--tiers', 'starter', '--checks', 'AUTH-MISSING', '--out', join(work, 'bad')],
      { TIERGATE_SIGNING_KEY: rsa.privateKey },
    );
    expectUsageError(bad, /^tiergate: TIERGATE_SIGNING_KEY: a rsa key, not Ed25519/);
    expect(bad.stderr).not.toContain('PRIVATE KEY');
  });
});
