/** A sample run written to a fresh temporary directory, with a full key hidden in one result. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactKey } from '../../src/contract/keys.ts';
import { writeReports, type ReportFiles } from '../../src/report/render.ts';
import type { ValidResults } from '../../src/results/types.ts';
import { sampleResults, writeSampleObservations } from '../helpers/sample-results.ts';

/** Matches the §5.3 shape: a key like this must never reach a file or a terminal. */
export const LEAKED_KEY = `xh_live_${'Zq7Lk2Pw9Rt4Vb8N'.repeat(2)}`;
export const LEAKED_KEY_REDACTED = redactKey(LEAKED_KEY);

export interface SampleRun {
  readonly root: string;
  readonly runDir: string;
  readonly results: ValidResults;
  readonly files: ReportFiles;
  cleanup(): Promise<void>;
}

export async function writeSampleRun(options: { observations?: boolean } = {}): Promise<SampleRun> {
  const root = await mkdtemp(join(tmpdir(), 'tiergate-report-'));
  const runDir = join(root, 'reports', '20260302-100000-5a1e');
  const results = sampleResults({ leakKey: LEAKED_KEY });
  if (options.observations ?? true) {
    await mkdir(runDir, { recursive: true });
    await writeSampleObservations(runDir);
  }
  const files = await writeReports(results, runDir);
  return { root, runDir, results, files, cleanup: () => rm(root, { recursive: true, force: true }) };
}
