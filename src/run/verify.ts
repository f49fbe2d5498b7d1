/**
 * `tiergate verify <run-dir>`: checks a run folder without the network or the target. What it checks
 * today, each as a line of its report:
 * - the manifest: every file it lists is there with its SHA-256, and nothing else is (by name);
 * - the signature (manifest.sig), against the public key the reader trusts (`--public-key`);
 * - results.json against its schema, and its summary (overall verdict, counts) against its checks;
 * - the derived reports: index.html and junit.xml rendered again from results.json and the
 *   observations, compared byte for byte.
 * Re-deriving each verdict from the observations (README "Evidence that can be re-checked") is not
 * built yet, and the report says so: hashes anyone can rewrite are no proof on their own.
 */
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countVerdicts, overallVerdict } from '../catalogue/types.ts';
import { fileDifferences, MANIFEST_FILE, manifestSchema, SIGNATURE_FILE, signatureHolds, type Manifest } from '../results/manifest.ts';
import { loadResults } from '../results/load.ts';
import type { ValidResults } from '../results/types.ts';
import { REPORT_FILES, renderedReports } from '../report/render.ts';
import { messageOf } from '../util/errors.ts';
import { folderFiles } from './seal.ts';

export interface VerifyReport {
  /** What was checked and held, a line each. */
  readonly held: readonly string[];
  /** What did not hold, a line each naming the file or check: empty when the folder verifies. */
  readonly problems: readonly string[];
  /** What was not checked, and why. */
  readonly unchecked: readonly string[];
}

export interface VerifyOptions {
  /** The public key the reader trusts; null: a signature is reported, not checked. */
  readonly publicKey: KeyObject | null;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

function parsedManifest(text: string): { manifest: Manifest } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { problem: `${MANIFEST_FILE}: not JSON (${messageOf(error)})` };
  }
  const parsed = manifestSchema.safeParse(json);
  return parsed.success ? { manifest: parsed.data } : { problem: `${MANIFEST_FILE}: not a tiergate manifest (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})` };
}

async function checkSignature(runDir: string, text: string, options: VerifyOptions, report: Lines): Promise<void> {
  const signature = await readText(join(runDir, SIGNATURE_FILE));
  if (options.publicKey === null) {
    report.unchecked.push(signature === null ? 'signature: the run was not signed (no manifest.sig)' : 'signature: manifest.sig is there; give --public-key to check it');
    return;
  }
  if (signature === null) report.problems.push(`${SIGNATURE_FILE}: missing, and --public-key asks for a signed run`);
  else if (!signatureHolds(text, signature, options.publicKey)) report.problems.push(`${SIGNATURE_FILE}: not a signature of manifest.json by the key --public-key names`);
  else report.held.push('signature: manifest.json is signed by the key --public-key names');
}

interface Lines {
  held: string[];
  problems: string[];
  unchecked: string[];
}

/** The run's summary against its own checks: an edited verdict that left the summary alone shows here. */
function checkSummary(results: ValidResults, report: Lines): void {
  const verdicts = results.checks.map((c) => c.verdict);
  const counts = countVerdicts(verdicts);
  const overall = overallVerdict(verdicts);
  const countsDiffer = (Object.keys(counts) as (keyof typeof counts)[]).filter((k) => counts[k] !== results.counts[k]);
  if (overall !== results.verdict) report.problems.push(`results.json: verdict is ${results.verdict}, but its checks make it ${overall}`);
  if (countsDiffer.length > 0) report.problems.push(`results.json: counts of ${countsDiffer.join(', ')} are not its checks' counts`);
  if (overall === results.verdict && countsDiffer.length === 0) report.held.push(`results.json: valid, and its verdict (${overall}) and counts follow from its ${results.checks.length} checks`);
}

async function checkDerived(runDir: string, results: ValidResults, report: Lines): Promise<void> {
  const rendered = await renderedReports(results, runDir);
  for (const [name, text] of [[REPORT_FILES.html, rendered.html], [REPORT_FILES.junit, rendered.junit]] as const) {
    const there = await readText(join(runDir, name));
    if (there === null) continue; // a missing file is the manifest's to name
    if (there === text) report.held.push(`${name}: exactly what results.json and the observations render`);
    else report.problems.push(`${name}: not what results.json and the observations render (edited, or rendered by another tiergate version)`);
  }
}

export async function verifyRun(runDir: string, options: VerifyOptions): Promise<VerifyReport> {
  const report: Lines = { held: [], problems: [], unchecked: [] };
  const text = await readText(join(runDir, MANIFEST_FILE));
  if (text === null) report.problems.push(`${MANIFEST_FILE}: missing (a run folder written by tiergate 0.1 or later has one)`);
  else {
    const parsed = parsedManifest(text);
    if ('problem' in parsed) report.problems.push(parsed.problem);
    else {
      const differences = fileDifferences(parsed.manifest.files, await folderFiles(runDir));
      report.problems.push(...differences);
      if (differences.length === 0) report.held.push(`files: the ${parsed.manifest.files.length} the manifest lists, each with its SHA-256, and no other`);
      await checkSignature(runDir, text, options, report);
    }
  }
  let results: ValidResults | null = null;
  try {
    results = await loadResults(join(runDir, REPORT_FILES.results));
  } catch (error) {
    report.problems.push(messageOf(error));
  }
  if (results) {
    checkSummary(results, report);
    await checkDerived(runDir, results, report);
  }
  report.unchecked.push('verdicts: not yet re-derived from the observations (this version checks the files, the signature, the summary and the rendered reports)');
  return report;
}
