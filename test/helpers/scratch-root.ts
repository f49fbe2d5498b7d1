/**
 * vitest globalSetup: every temporary directory a test makes (under os.tmpdir()) goes into one
 * directory of this run, removed when the run ends, so the reports, configs and scratch files of
 * hundreds of runs do not pile up in the machine's temp dir. Workers and the CLIs tests spawn inherit
 * TMPDIR. TIERGATE_KEEP_TEST_TMP=1 keeps it (the path is printed), to read a failed run's reports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'tiergate-tests-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.TIERGATE_KEEP_TEST_TMP === '1') process.stderr.write(`test scratch kept: ${root}\n`);
    else rmSync(root, { recursive: true, force: true });
  };
}
