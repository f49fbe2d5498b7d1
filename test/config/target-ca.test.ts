/**
 * `target.ca`: the PEM file is read relative to the config file's folder (not the working directory),
 * keeps only its certificates, and a file that cannot be read or holds none is one line naming
 * target.ca and the fix, exit 2, as `tiergate run --config` reports it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.ts';
import { loadTargetCa } from '../../src/config/target-ca.ts';
import { makeCertificates } from '../../src/reference-server/certificates.ts';
import { UsageError } from '../../src/util/errors.ts';
import { expectUsageError, runCli } from '../helpers/cli.ts';

const config = (ca?: string) =>
  parseConfig(
    {
      target: { edges: ['https://127.0.0.1:8443'], ...(ca === undefined ? {} : { ca }) },
      orgs: [{ name: 'starter-a', tier: 'starter', keys: { primary: { env: 'KEY_A' } } }],
    },
    'c.json',
  );

/** A folder holding `conf/` (the config file's folder); returns both. */
function folders() {
  const dir = mkdtempSync(join(tmpdir(), 'tiergate-ca-'));
  mkdirSync(join(dir, 'conf'));
  return { dir, conf: join(dir, 'conf') };
}

async function rejection(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('loadTargetCa', () => {
  it('reads the file beside the config file, whatever the working directory, keeping only certificates', async () => {
    const { dir, conf } = folders();
    const { caPem, keyPem } = await makeCertificates('valid');
    // A key in the same file goes nowhere: only certificates are trusted.
    writeFileSync(join(conf, 'ca.pem'), `${keyPem}${caPem}`);
    const ca = await loadTargetCa(config('ca.pem'), 'conf/tiergate.config.json', dir);
    expect(ca).toEqual({ path: join(conf, 'ca.pem'), pem: `${caPem.trim()}\n` });
  });

  it('is null where the config names no CA', async () => {
    expect(await loadTargetCa(config(), 'c.json', tmpdir())).toBeNull();
  });

  it('a file that cannot be read: names target.ca, the path it looked at and the fix', async () => {
    const { dir, conf } = folders();
    const error = await rejection(loadTargetCa(config('missing.pem'), 'conf/c.json', dir));
    expect(error.code).toBe('TG_CONFIG');
    expect(error.message).toBe(
      `conf/c.json: target.ca missing.pem: cannot read ${join(conf, 'missing.pem')} (ENOENT); write the path of the CA's PEM file, relative to the config file's folder`,
    );
  });

  it('a file holding no PEM certificate, or a damaged one: names target.ca and the fix', async () => {
    const { dir, conf } = folders();
    writeFileSync(join(conf, 'key.pem'), (await makeCertificates('valid')).keyPem);
    expect((await rejection(loadTargetCa(config('key.pem'), 'conf/c.json', dir))).message).toMatch(
      /^conf\/c\.json: target\.ca key\.pem: .*key\.pem holds no PEM certificate; name the CA's certificate in PEM/,
    );
    writeFileSync(
      join(conf, 'bad.pem'),
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n',
    );
    expect((await rejection(loadTargetCa(config('bad.pem'), 'conf/c.json', dir))).message).toMatch(
      /^conf\/c\.json: target\.ca bad\.pem: certificate 1 in .*bad\.pem cannot be read \(.+\); name the CA's certificate in PEM$/,
    );
  });

  it('tiergate run --config: a missing CA file is one line, exit 2, before anything runs', async () => {
    const { dir, conf } = folders();
    writeFileSync(
      join(conf, 'tiergate.config.json'),
      JSON.stringify({
        target: { edges: ['https://127.0.0.1:9'], ca: 'nowhere.pem' },
        orgs: [{ name: 'starter-a', tier: 'starter', keys: { primary: { env: 'KEY_A' } } }],
      }),
    );
    const result = await runCli(['run', '--config', 'conf/tiergate.config.json'], { KEY_A: 'unused' }, dir);
    expectUsageError(
      result,
      /^tiergate: conf\/tiergate\.config\.json: target\.ca nowhere\.pem: cannot read .*nowhere\.pem \(ENOENT\)/,
    );
  });
});
