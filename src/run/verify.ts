/**
 * `tiergate verify <run-dir>`: checks a run folder without the network or the target. What it checks
 * today, each as a line of its report:
 * - the manifest: every file it lists is there with its SHA-256, and nothing else is (by name);
 * - the signature (manifest.sig), against the public key the reader trusts (`--public-key`);
 * - results.json against its schema, and its summary (overall verdict, counts) against its checks;
 * - the derived reports: index.html and junit.xml rendered again from results.json and the
 *   observations, compared byte for byte.
 * - every verdict judged again: each result's judgement (judgements.ndjson.gz: the verdict function
 *   and its input, observations by reference) replayed on the observations as the file holds them,
 *   by the same pure function, and compared with results.json. An observation edited and its hash
 *   rewritten shows here, named by the check whose verdict no longer follows from it.
 */
import type { KeyObject } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countVerdicts, overallVerdict, type CheckResult } from '../catalogue/types.ts';
import { fileDifferences, MANIFEST_FILE, manifestSchema, SIGNATURE_FILE, signatureHolds, type Manifest } from '../results/manifest.ts';
import { loadResults } from '../results/load.ts';
import type { ValidResults } from '../results/types.ts';
import { REPORT_FILES, renderedReports } from '../report/render.ts';
import { messageOf } from '../util/errors.ts';
import { folderFiles } from './seal.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import type { Observation } from '../measure/observation.ts';
import { observationLines } from '../measure/observation-file.ts';
import { JUDGEMENTS_FILE, type JudgementRecord } from '../procedures/judgements.ts';
import { decodeArgs, findingText, isReplayable, replay, type FindingText, type ObservationSource } from '../verdicts/replay.ts';

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

const exists = (file: string) => access(file).then(() => true, () => false);

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

async function readObservations(file: string): Promise<ObservationSource & { readonly malformed: number }> {
  const byId = new Map<number, Observation>();
  const inOrder: Observation[] = [];
  let malformed = 0;
  for await (const line of observationLines(file)) {
    if (line === '') continue;
    try {
      const o = JSON.parse(line) as Observation;
      byId.set(o.id, o);
      inOrder.push(o);
    } catch {
      malformed += 1;
    }
  }
  return { byId, inOrder, malformed };
}

async function readJudgements(file: string): Promise<JudgementRecord[] | null> {
  if (!(await exists(file))) return null;
  const records: JudgementRecord[] = [];
  for await (const line of observationLines(file)) if (line !== '') records.push(JSON.parse(line) as JudgementRecord);
  return records;
}

const resultName = (r: Pick<CheckResult, 'id' | 'tier' | 'variant'>) => `${r.id}${r.variant ? `/${r.variant}` : ''} [${r.tier ?? 'all'}]`;

const INTERRUPTED = 'the run was interrupted while this check ran; it would otherwise have been ';

/** What results.json says the verdict would have been, judged alone: an interrupted run's result says so in a note. */
function judgedVerdict(result: CheckResult): string {
  const note = result.notes.find((n) => n.startsWith(INTERRUPTED));
  return note ? note.slice(INTERRUPTED.length) : result.verdict;
}

/** Judges every linked result again from the observations, by the same function, and compares. */
async function checkVerdicts(runDir: string, results: ValidResults, report: Lines): Promise<void> {
  const records = await readJudgements(join(runDir, JUDGEMENTS_FILE));
  if (records === null) {
    report.unchecked.push(`verdicts: not judged again: the folder has no ${JUDGEMENTS_FILE} (a k6 ingest, or a run by an earlier tiergate)`);
    return;
  }
  const source = await readObservations(join(runDir, results.observations.file));
  if (source.malformed > 0) report.problems.push(`${results.observations.file}: ${source.malformed} line(s) are not JSON`);
  const byLink = new Map(records.flatMap((r) => (r.link ? [[`${r.link.check}|${r.link.tier}|${r.link.variant}|${r.link.org}`, r] as const] : [])));
  let held = 0;
  const unjudged: string[] = [];
  const unwritten: string[] = [];
  for (const result of results.checks) {
    if (result.verdict === 'skipped') continue;
    const record = byLink.get(`${result.id}|${result.tier}|${result.variant}|${result.org}`);
    if (!record) {
      unjudged.push(resultName(result));
      continue;
    }
    if (record.args === null) {
      unwritten.push(`${resultName(result)} (${record.why ?? 'its input was not written'})`);
      continue;
    }
    let again: FindingText;
    try {
      if (!isReplayable(record.fn)) throw new Error(`${record.fn} is not a verdict function this tiergate has`);
      again = findingText(replay(record.fn, decodeArgs(record.args, source, recruitingApi)));
    } catch (error) {
      report.problems.push(`${resultName(result)}: cannot be judged again: ${messageOf(error)}`);
      continue;
    }
    const verdictHolds = again.verdict === judgedVerdict(result);
    if (verdictHolds && again.expected === result.expected && again.actual === result.actual) {
      held += 1;
      continue;
    }
    const what = !verdictHolds ? `its verdict is ${again.verdict}, results.json says ${result.verdict}` : again.expected !== result.expected ? 'its expectation differs' : 'what it found differs';
    report.problems.push(`${resultName(result)}: judged again from the observations, ${what} (now: "${again.actual}"; results.json: "${result.actual}")`);
  }
  report.held.push(`verdicts: ${held} result(s) judged again from the observations by the same functions, each as results.json has it`);
  if (unjudged.length > 0) report.unchecked.push(`verdicts decided by the procedure, with no verdict function to run again (${unjudged.length}): ${unjudged.join(', ')}`);
  if (unwritten.length > 0) report.unchecked.push(`verdicts whose input is not written down (${unwritten.length}): ${unwritten.join(', ')}`);
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
  if (results) await checkVerdicts(runDir, results, report);
  return report;
}
