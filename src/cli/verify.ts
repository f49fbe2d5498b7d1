/**
 * `tiergate verify <run-dir> [--public-key FILE]`: checks a run folder offline, every verdict judged again (run/verify.ts).
 * Exit 0: everything checked held; 1: something did not, each named; 2: the inputs are wrong.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EXIT, UsageError } from '../util/errors.ts';
import type { CliCommand } from './command.ts';
import { stringFlag, type FlagValues } from './flags.ts';

const VERIFY_FLAGS = {
  'public-key': stringFlag("the signer's Ed25519 public key (PEM): the manifest's signature must hold for it"),
} as const;

type VerifyArgs = FlagValues<typeof VERIFY_FLAGS> & { readonly runDir: string };

async function publicKeyFrom(file: string, cwd: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(
      `--public-key ${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`,
    );
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new UsageError(
      `--public-key ${file}: not a public key in PEM (openssl pkey -in signing.pem -pubout makes one)`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519')
    throw new UsageError(`--public-key ${file}: a ${key.asymmetricKeyType ?? 'symmetric'} key, not Ed25519`);
  return key;
}

export const verifyCommand: CliCommand<VerifyArgs> = {
  name: 'verify <runDir>',
  describe:
    'Check a run folder offline: its files against manifest.json, the signature, the reports, and every verdict judged again from the observations',
  builder: (argv) =>
    argv
      .positional('runDir', { type: 'string', demandOption: true, describe: 'a run folder, e.g. reports/latest' })
      .options(VERIFY_FLAGS),
  run: async (args, io) => {
    const runDir = resolve(io.cwd, args.runDir);
    const isDir = await stat(runDir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir)
      throw new UsageError(`${args.runDir}: not a run folder (no such directory); name one, e.g. reports/latest`);
    const publicKey = args['public-key'] === undefined ? null : await publicKeyFrom(args['public-key'], io.cwd);
    const { verifyRun } = await import('../run/verify.ts');
    const report = await verifyRun(runDir, { publicKey });
    for (const line of report.held) io.stdout.write(`✓ ${line}\n`);
    for (const line of report.unchecked) io.stdout.write(`- ${line}\n`);
    for (const line of report.problems) io.stdout.write(`✗ ${line}\n`);
    const open = report.unchecked.length > 0 ? ' (the lines marked - were not checked)' : '';
    io.stdout.write(
      report.problems.length === 0
        ? `Verified: every check above held${open}.\n`
        : `Not verified: ${report.problems.length} problem(s).\n`,
    );
    return report.problems.length === 0 ? EXIT.pass : EXIT.fail;
  },
};
