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
import { createPublicKey, type KeyObject } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countVerdicts, overallVerdict, type CheckResult, type Finding } from '../catalogue/types.ts';
import {
  fileDifferences,
  MANIFEST_FILE,
  manifestSchema,
  SIGNATURE_FILE,
  signatureHolds,
  type Manifest,
} from '../results/manifest.ts';
import { loadResults } from '../results/load.ts';
import type { ValidResults } from '../results/types.ts';
import { REPORT_FILES, renderedReports } from '../report/render.ts';
import { messageOf } from '../util/errors.ts';
import { folderFiles } from './seal.ts';
import { toolInfo } from './run-id.ts';
import { recruitingApi } from '../contract/recruiting-api.ts';
import { readJudgements, readObservations } from '../suite/judgement-file.ts';
import { JUDGEMENTS_FILE, withSharedArgs, type JudgementRecord } from '../suite/judgements.ts';
import { decodeArgs, referenced, judgedThenProcedure, type ObservationSource } from '../verdicts/replay.ts';
import type { Reason } from '../catalogue/reasons/index.ts';
import { isNotReplayed, isReplayable, mayDecide, NOT_REPLAYED, replay } from '../checks/verdict-table.ts';

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

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

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
  return parsed.success
    ? { manifest: parsed.data }
    : {
        problem: `${MANIFEST_FILE}: not a tiergate manifest (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`,
      };
}

async function checkSignature(
  runDir: string,
  text: string,
  manifest: Manifest,
  options: VerifyOptions,
  report: Lines,
): Promise<void> {
  const signature = await readText(join(runDir, SIGNATURE_FILE));
  if (options.publicKey === null) {
    if (signature === null) report.unchecked.push('signature: the run was not signed (no manifest.sig)');
    else checkNamedKey(text, signature, manifest, report);
    return;
  }
  if (signature === null) report.problems.push(`${SIGNATURE_FILE}: missing, and --public-key asks for a signed run`);
  else if (!signatureHolds(text, signature, options.publicKey))
    report.problems.push(`${SIGNATURE_FILE}: not a signature of manifest.json by the key --public-key names`);
  else report.held.push('signature: manifest.json is signed by the key --public-key names');
}

/** Without --public-key: the signature against the key the manifest names, which says only that the two agree. */
function checkNamedKey(text: string, signature: string, manifest: Manifest, report: Lines): void {
  let named: KeyObject | null = null;
  try {
    named = manifest.publicKey === null ? null : createPublicKey(manifest.publicKey);
  } catch {
    named = null;
  }
  if (named === null)
    report.problems.push(`${SIGNATURE_FILE}: there, but the manifest names no public key it could be checked with`);
  else if (!signatureHolds(text, signature, named))
    report.problems.push(`${SIGNATURE_FILE}: not a signature of manifest.json by the key the manifest names`);
  else
    report.unchecked.push(
      'signature: holds for the key the manifest names; give --public-key to check that key is the one you trust',
    );
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
  if (overall !== results.verdict)
    report.problems.push(`results.json: verdict is ${results.verdict}, but its checks make it ${overall}`);
  if (countsDiffer.length > 0)
    report.problems.push(`results.json: counts of ${countsDiffer.join(', ')} are not its checks' counts`);
  if (overall === results.verdict && countsDiffer.length === 0)
    report.held.push(
      `results.json: valid, and its verdict (${overall}) and counts follow from its ${results.checks.length} checks`,
    );
}

/** Why a report may render otherwise: another tiergate made it. */
async function otherVersion(results: ValidResults): Promise<string> {
  const mine = await toolInfo();
  const same =
    mine.version === results.tool.version &&
    (mine.revision === null || results.tool.revision === null || mine.revision === results.tool.revision);
  const theirs = `${results.tool.version}${results.tool.revision ? ` (${results.tool.revision})` : ''}`;
  return same
    ? ' (edited since)'
    : ` (made by tiergate ${theirs}, this is ${mine.version}${mine.revision ? ` (${mine.revision})` : ''}: verify with that version)`;
}

async function checkDerived(runDir: string, results: ValidResults, report: Lines): Promise<void> {
  const rendered = await renderedReports(results, runDir);
  for (const [name, text] of [
    [REPORT_FILES.html, rendered.html],
    [REPORT_FILES.junit, rendered.junit],
  ] as const) {
    const there = await readText(join(runDir, name));
    if (there === null) continue; // a missing file is the manifest's to name
    if (there === text) report.held.push(`${name}: exactly what results.json and the observations render`);
    else
      report.problems.push(`${name}: not what results.json and the observations render${await otherVersion(results)}`);
  }
}

/** A result's name, or a judgement's (read from the file as written: its variant any string). */
const resultName = (r: { readonly id: string; readonly tier: string | null; readonly variant: string }) =>
  `${r.id}${r.variant ? `/${r.variant}` : ''} [${r.tier ?? 'all'}]`;
const linkKey = (r: {
  readonly check?: string;
  readonly id?: string;
  readonly tier: string | null;
  readonly variant: string;
  readonly org: string | null;
}) => `${r.check ?? r.id}|${r.tier}|${r.variant}|${r.org}`;

/** The verdict the result was judged: an interrupted run's inconclusive result names it in its reason. */
function judgedVerdict(result: CheckResult, interrupted: boolean): string {
  const cut = interrupted ? result.reasons.find((r) => r.code === 'interrupted') : undefined;
  return cut?.code === 'interrupted' && cut.wouldHaveBeen !== '' ? cut.wouldHaveBeen : result.verdict;
}

/** A result judged by k6 from its own aggregates (`k6 ingest`, `run --engine k6`): no judgement of ours to hold. */
const judgedByK6 = (r: CheckResult) => r.id === 'LOAD-THRESHOLDS' && r.variant === 'k6';

/** Judges every result again from the observations, by the same function, and compares; a verify that cannot read its inputs says so as a problem. */
async function checkVerdicts(runDir: string, results: ValidResults, report: Lines): Promise<void> {
  try {
    await judgeAgain(runDir, results, report);
  } catch (error) {
    report.problems.push(`verdicts: cannot be judged again: ${messageOf(error)}`);
  }
}

async function judgeAgain(runDir: string, results: ValidResults, report: Lines): Promise<void> {
  const read = await readJudgements(join(runDir, JUDGEMENTS_FILE), report.problems);
  if (read === null) {
    if (results.checks.every(judgedByK6))
      report.unchecked.push(
        `verdicts: judged by k6 from its own aggregates, which the folder does not hold: not judged again`,
      );
    else report.problems.push(`${JUDGEMENTS_FILE}: missing (every harness run writes one)`);
    return;
  }
  const { records, problems } = withSharedArgs(read);
  report.problems.push(...problems);
  const observationsFile = join(runDir, results.observations.file);
  if (!(await exists(observationsFile))) {
    report.problems.push(`verdicts: not judged again: ${results.observations.file} is missing`);
    return;
  }
  const source = await readObservations(observationsFile, referenced(records.flatMap((r) => r.args ?? [])));
  if (source.malformed > 0)
    report.problems.push(`${results.observations.file}: ${source.malformed} line(s) are not JSON`);
  const byLink = new Map<string, JudgementRecord>();
  for (const record of records) {
    if (!record.link) continue;
    if (byLink.has(linkKey(record.link)))
      report.problems.push(
        `${JUDGEMENTS_FILE}: two judgements for ${resultName({ id: record.link.check, ...record.link })}`,
      );
    byLink.set(linkKey(record.link), record);
  }
  const outcome = { held: 0, notReplayed: [] as string[] };
  for (const result of results.checks) {
    const record = byLink.get(linkKey(result));
    byLink.delete(linkKey(result));
    if (!record) {
      if (!judgedByK6(result)) report.problems.push(`${resultName(result)}: no judgement is recorded for it`);
      continue;
    }
    judgeOne(result, record, source, results.interrupted, report, outcome);
  }
  for (const record of byLink.values())
    report.problems.push(
      `${JUDGEMENTS_FILE}: a judgement for ${resultName({ id: record.link!.check, ...record.link! })}, which results.json does not have`,
    );
  report.held.push(
    `verdicts: ${outcome.held} result(s) judged again from the observations by the same functions, each as results.json has it`,
  );
  if (outcome.notReplayed.length > 0)
    report.unchecked.push(
      `verdicts not judged again (${outcome.notReplayed.length}): ${outcome.notReplayed.join('; ')}`,
    );
}

function judgeOne(
  result: CheckResult,
  record: JudgementRecord,
  source: ObservationSource,
  interrupted: boolean,
  report: Lines,
  outcome: { held: number; notReplayed: string[] },
): void {
  const name = resultName(result);
  const verdict = judgedVerdict(result, interrupted);
  if (!mayDecide(record.fn, result.id, verdict as CheckResult['verdict'])) {
    report.problems.push(`${name}: its judgement (${record.fn}) cannot decide a ${verdict} ${result.id}`);
    return;
  }
  // Compared by verdict and reasons (codes and figures), not by their words.
  // An interrupted run adds a reason naming what the result would have been; the judgement did not.
  const interruptedOnly = (reasons: readonly Reason[]) =>
    reasons.filter((r) => !(r.code === 'interrupted' && r.wouldHaveBeen !== ''));
  if (
    record.found.verdict !== verdict ||
    !judgedThenProcedure(record.found.reasons ?? [], interruptedOnly(result.reasons))
  ) {
    report.problems.push(`${name}: its judgement recorded another finding than results.json has`);
    return;
  }
  if (record.args === null) {
    if (isNotReplayed(record.fn)) outcome.notReplayed.push(`${name}: ${NOT_REPLAYED[record.fn]}`);
    else report.problems.push(`${name}: its judgement (${record.fn}) has no input, though a run always writes one`);
    return;
  }
  let again: Finding;
  try {
    if (!isReplayable(record.fn)) throw new Error(`${record.fn} is not a verdict function this tiergate has`);
    again = replay(record.fn, decodeArgs(record.args, source, recruitingApi));
  } catch (error) {
    report.problems.push(`${name}: cannot be judged again: ${messageOf(error)}`);
    return;
  }
  const verdictHolds = again.verdict === verdict;
  const reasonsHold = judgedThenProcedure(again.reasons ?? [], interruptedOnly(result.reasons));
  const dataHolds = JSON.stringify(again.data ?? null) === JSON.stringify(result.data ?? null);
  if (verdictHolds && reasonsHold && dataHolds) {
    outcome.held += 1;
    return;
  }
  const codes = (reasons: readonly Reason[]) => reasons.map((r) => r.code).join(', ') || 'none';
  const what = !verdictHolds
    ? `its verdict is ${again.verdict}, results.json says ${result.verdict}`
    : !reasonsHold
      ? `its reasons differ (now: ${codes(again.reasons ?? [])}; results.json: ${codes(interruptedOnly(result.reasons))})`
      : 'its figures (data) differ';
  report.problems.push(`${name}: judged again from the observations, ${what}`);
}

export async function verifyRun(runDir: string, options: VerifyOptions): Promise<VerifyReport> {
  const report: Lines = { held: [], problems: [], unchecked: [] };
  const text = await readText(join(runDir, MANIFEST_FILE));
  if (text === null)
    report.problems.push(`${MANIFEST_FILE}: missing (a run folder written by tiergate 0.1 or later has one)`);
  else {
    const parsed = parsedManifest(text);
    if ('problem' in parsed) report.problems.push(parsed.problem);
    else {
      await reported(report, 'files', async () => {
        const differences = fileDifferences(parsed.manifest.files, await folderFiles(runDir));
        report.problems.push(...differences);
        if (differences.length === 0)
          report.held.push(
            `files: the ${parsed.manifest.files.length} the manifest lists, each with its SHA-256, and no other`,
          );
      });
      await reported(report, 'signature', () => checkSignature(runDir, text, parsed.manifest, options, report));
    }
  }
  let results: ValidResults | null = null;
  try {
    results = await loadResults(join(runDir, REPORT_FILES.results));
  } catch (error) {
    report.problems.push(messageOf(error));
  }
  if (results && !/^(?!\.\.?$)[A-Za-z0-9._-]+$/.test(results.observations.file)) {
    report.problems.push(`results.json: observations.file "${results.observations.file}" is not a file of this folder`);
    results = null;
  }
  if (results) {
    const valid = results;
    checkSummary(valid, report);
    await reported(report, 'reports', () => checkDerived(runDir, valid, report));
    await checkVerdicts(runDir, valid, report);
  }
  return report;
}

/** Runs one part of the check; what it cannot read is a problem named by the part, never a crash. */
async function reported(report: Lines, part: string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    report.problems.push(`${part}: cannot be checked: ${messageOf(error)}`);
  }
}
