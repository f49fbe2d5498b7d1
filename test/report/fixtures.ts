/** A sample run written to a fresh temporary directory, with a full key hidden in one result. */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countVerdicts, overallVerdict, type CheckId } from '../../src/catalogue/types.ts';
import { checkDefinition } from '../../src/checks/catalogue.ts';
import { checkResult } from '../../src/checks/result.ts';
import { redactKey } from '../../src/contract/keys.ts';
import { figuresOf, networkMargins } from '../../src/measure/network.ts';
import { writeReports, type ReportFiles } from '../../src/report/render.ts';
import { assertValidResults } from '../../src/results/load.ts';
import type { ValidResults } from '../../src/results/types.ts';
import { REVOCATION_CHECKS, TIER_CHECKS } from '../helpers/check-lists.ts';
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

export interface SampleRunOptions {
  /** Write the sample's observations file beside the results; default true. */
  readonly observations?: boolean;
  /** The results to report; default the sample's, with LEAKED_KEY in one result. */
  readonly results?: ValidResults;
}

export async function writeSampleRun(options: SampleRunOptions = {}): Promise<SampleRun> {
  const root = await mkdtemp(join(tmpdir(), 'tiergate-report-'));
  const results = options.results ?? sampleResults({ leakKey: LEAKED_KEY });
  const runDir = join(root, 'reports', results.runId);
  if (options.observations ?? true) {
    await mkdir(runDir, { recursive: true });
    await writeSampleObservations(runDir);
  }
  const files = await writeReports(results, runDir);
  return { root, runDir, results, files, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Round trips to the sample's loopback edges, ms: the network a full run measures and reports. */
const LOOPBACK_ROUND_TRIPS = [0.6, 0.7, 0.7, 0.8, 0.8, 0.9, 0.9, 1, 1.2, 1.6, 2.4];

/**
 * A full three-tier run, as fixed as the sample: the sample's results, a pass for every check the
 * sample leaves out (each tier's own checks on every tier, revocation's on the tier revocation ran
 * on), so the requirement matrix has a row for every check in the catalogue, and the network the
 * run measured.
 */
export function fullRunResults(): ValidResults {
  const sample = sampleResults();
  const ran = (id: CheckId, tier: string | null) => sample.checks.some((r) => r.id === id && r.tier === tier);
  const revocationTiers = [...new Set(sample.checks.filter((r) => r.id === 'REVOKE-LATENCY').map((r) => r.tier))];
  const missing = [
    ...sample.tiers.flatMap((tier) => TIER_CHECKS.map((id) => ({ id, tier }))),
    ...revocationTiers.flatMap((tier) => REVOCATION_CHECKS.map((id) => ({ id, tier }))),
  ].filter(({ id, tier }) => !ran(id, tier) && !ran(id, null));
  const startedWall = Date.parse(sample.startedAt);
  const added = missing.map(({ id, tier }, i) =>
    checkResult(
      id,
      { verdict: 'pass', expected: checkDefinition(id).requirement, actual: 'as expected', evidence: [], notes: [] },
      { tier, org: tier && `${tier}-a`, startedWall: startedWall + i * 1000, durationMs: 200 },
    ),
  );
  const checks = [...sample.checks, ...added];
  const verdicts = checks.map((c) => c.verdict);
  const figures = figuresOf(LOOPBACK_ROUND_TRIPS, 1.1);
  return assertValidResults({
    ...sample,
    checks,
    verdict: overallVerdict(verdicts),
    counts: countVerdicts(verdicts),
    network: { figures, margins: networkMargins(figures) },
  });
}
