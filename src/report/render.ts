/**
 * Writes a run's reports: results.json (validated against its schema), junit.xml and one
 * self-contained index.html; and re-renders them from a saved results.json (`tiergate report`).
 * Every string written passes through `redactKeys` last, so no full key reaches a file even if one
 * slipped into a result's text.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Handlebars from 'handlebars';
import { assertValidResults, loadResults } from '../results/load.ts';
import type { RunResults, ValidResults } from '../results/types.ts';
import { shownEvidence } from './details.ts';
import { renderJunit } from './junit.ts';
import { digestObservations, type ObservationDigest } from './observation-digest.ts';
import { profileEvidence } from './profile-view.ts';
import { redactKeys } from '../contract/keys.ts';
import { REPORT_CSS } from './styles.ts';
import { REPORT_SCRIPT, REPORT_TEMPLATE } from './template.ts';
import { buildReportView } from './view.ts';
import type { EvidenceFile } from './sla.ts';
import { sha256Of } from '../results/manifest.ts';
import { REVOCATION_CSV } from '../revocation/csv.ts';

export { pointLatest, type LatestPointer } from './latest.ts';

export const REPORT_FILES = { results: 'results.json', junit: 'junit.xml', html: 'index.html' } as const;

/** Absolute-or-as-given paths of the files a render wrote. */
export interface ReportFiles {
  readonly dir: string;
  readonly results: string;
  readonly junit: string;
  readonly html: string;
}

// An isolated handlebars environment, compiled once: only the built-in block helpers (no helper or
// partial can be registered from data), HTML-escaping on, and no prototype access at runtime.
const handlebars = Handlebars.create();
const template = handlebars.compile(REPORT_TEMPLATE, { knownHelpersOnly: true, noEscape: false, preventIndent: true });
const RUNTIME = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false } as const;

/**
 * The report as one HTML string: inline CSS, script and SVG, no URL of any kind. Handlebars escapes
 * every value except the stylesheet, the script and the SVG charts (built escaped by charts/svg.ts).
 */
export function renderHtml(
  results: ValidResults,
  digest: ObservationDigest,
  files: readonly EvidenceFile[] = [],
): string {
  const view = buildReportView(results, digest, files);
  return redactKeys(template({ ...view, css: REPORT_CSS, script: REPORT_SCRIPT }, RUNTIME));
}

/** Streams the run's observations file (when present) for the evidence rows (checks' and profiles'), charts and the Limits announced to organizations that declared their own. */
export async function digestFor(results: RunResults, dir: string): Promise<ObservationDigest> {
  const wanted = new Set([
    ...results.checks.flatMap((r) => shownEvidence(r.evidence)),
    ...profileEvidence(results.profiles),
  ]);
  const declaring = new Set(results.declaredLimits.map((d) => d.org));
  return digestObservations(resolve(dir, results.observations.file), wanted, results.durationMs, declaring);
}

/** Write to a temporary name, then rename: a reader never sees half a report. */
async function writeWhole(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, text, 'utf8');
  await rename(temp, file);
}

const writeRedacted = (file: string, text: string) => writeWhole(file, redactKeys(text));

/** junit.xml's and index.html's text for a run whose observations are in `readDir`, as written (keys redacted). */
export async function renderedReports(
  results: ValidResults,
  readDir: string,
): Promise<{ readonly junit: string; readonly html: string }> {
  // renderHtml redacts already; writeRendered writes these as they are.
  return {
    junit: redactKeys(renderJunit(results)),
    html: renderHtml(results, await digestFor(results, readDir), await evidenceFiles(results, readDir)),
  };
}

/** The evidence files beside the report (results, observations, revocation.csv) and their SHA-256: the ones there. */
async function evidenceFiles(results: RunResults, dir: string): Promise<EvidenceFile[]> {
  const files: EvidenceFile[] = [];
  for (const name of [REPORT_FILES.results, results.observations.file, REVOCATION_CSV]) {
    try {
      files.push({ name, sha256: sha256Of(await readFile(join(dir, name))) });
    } catch {
      // Not there (a run without revocation, results rendered elsewhere): not listed.
    }
  }
  return files;
}

async function writeRendered(
  results: ValidResults,
  readDir: string,
  outDir: string,
): Promise<Pick<ReportFiles, 'junit' | 'html'>> {
  await mkdir(outDir, { recursive: true });
  const files = { junit: join(outDir, REPORT_FILES.junit), html: join(outDir, REPORT_FILES.html) };
  const rendered = await renderedReports(results, readDir);
  await writeWhole(files.junit, rendered.junit);
  await writeWhole(files.html, rendered.html);
  return files;
}

/**
 * Writes results.json, junit.xml and index.html into `runDir` (created if needed). The results are
 * validated against the results schema first: a mismatch is a tiergate bug and throws.
 */
export async function writeReports(results: RunResults, runDir: string): Promise<ReportFiles> {
  const valid = assertValidResults(results);
  await mkdir(runDir, { recursive: true });
  const resultsFile = join(runDir, REPORT_FILES.results);
  await writeRedacted(resultsFile, `${JSON.stringify(valid, null, 2)}\n`);
  return { dir: runDir, results: resultsFile, ...(await writeRendered(valid, runDir, runDir)) };
}

export interface RenderFromResultsOptions {
  /** Where to write index.html and junit.xml; default: beside the results file. */
  readonly outDir?: string;
}

/**
 * `tiergate report <results.json>`: reads and validates a saved run (UsageError TG_RESULTS_FILE when
 * missing or invalid), then re-renders index.html and junit.xml beside it or into `outDir`. The
 * observations are read from beside the results file. results.json itself is left as it is.
 */
export async function renderFromResultsFile(
  file: string,
  options: RenderFromResultsOptions = {},
): Promise<ReportFiles> {
  const results = await loadResults(file);
  const readDir = dirname(file);
  const outDir = options.outDir ?? readDir;
  return { dir: outDir, results: file, ...(await writeRendered(results, readDir, outDir)) };
}
