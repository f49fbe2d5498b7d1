/**
 * The report's "SLA evidence" section: a page an auditor can file for the revocation promise (§5.9,
 * §8.3). The claim, the verdict, where the clock starts, the method (the run's own methodology text),
 * what the trials prove, per edge the bounds, every trial's bracket, the SHA-256 of the evidence
 * files, and how to check the folder with `tiergate verify`. Nothing in it needs a script or a
 * click: it prints as it reads.
 */
import type { CheckResult } from '../catalogue/types.ts';
import type { ValidResults } from '../results/types.ts';
import { verdictView, type VerdictView } from './details.ts';
import { resultAnchor } from './matrix.ts';
import { revocationChartData } from './charts/revocation.ts';
import { CLOCK_NOTE_START } from '../verdicts/support/revocation-method.ts';

/** An evidence file of the run folder and its SHA-256, as manifest.json lists it. */
export interface EvidenceFile {
  readonly name: string;
  readonly sha256: string;
}

export interface SlaEdgeRow {
  readonly edge: string;
  readonly brackets: number;
  readonly worstUpper: string;
  readonly worstLower: string;
  readonly within: string;
}

export interface SlaTrialRow {
  readonly trial: number;
  readonly edge: string;
  readonly lower: string;
  readonly upper: string;
  readonly within: boolean;
}

export interface SlaView {
  readonly tier: string;
  readonly anchor: string;
  readonly claim: string;
  readonly verdict: VerdictView;
  readonly expected: string;
  readonly actual: string;
  readonly method: readonly { readonly topic: string; readonly text: string }[];
  /** Where the SLA clock starts in these trials, and what the revoke call's own time does to the bounds. */
  readonly clock: string | null;
  readonly proves: string | null;
  readonly edges: readonly SlaEdgeRow[];
  readonly trials: readonly SlaTrialRow[];
  readonly run: readonly { readonly label: string; readonly value: string }[];
  readonly files: readonly EvidenceFile[];
  readonly verify: string;
}

type Bracket = {
  readonly trial: number;
  readonly edge: string;
  readonly lowerMs: number | null;
  readonly upperMs: number | null;
};

const msText = (v: number | null) =>
  v === null ? 'none seen' : v < 1000 ? `${v.toFixed(1)} ms` : `${(v / 1000).toFixed(3)} s`;
/** The methodology an SLA page carries: how the trials measure and what they prove (and, merged from vantage points, how those were placed). */
export const SLA_METHOD_TOPICS = ['Revocation latency', 'Revocation confidence', 'Server clock', 'Vantage points'];

function edgeRows(brackets: readonly Bracket[], slaMs: number): SlaEdgeRow[] {
  const edges = [...new Set(brackets.map((b) => b.edge))].sort();
  return edges.map((edge) => {
    const own = brackets.filter((b) => b.edge === edge);
    const uppers = own.map((b) => b.upperMs);
    const lowers = own.flatMap((b) => (b.lowerMs === null ? [] : [b.lowerMs]));
    const within = own.filter((b) => b.upperMs !== null && b.upperMs < slaMs).length;
    return {
      edge,
      brackets: own.length,
      worstUpper: uppers.includes(null) ? 'none seen (no rejection)' : msText(Math.max(...(uppers as number[]))),
      worstLower: lowers.length === 0 ? 'none seen' : msText(Math.max(...lowers)),
      within: `${within} of ${own.length}`,
    };
  });
}

/** What REVOKE-LATENCY wrote of where its trials' clock starts (in its notes). */
function clockOf(result: CheckResult): string | null {
  const note = result.notes.find((n) => n.startsWith(CLOCK_NOTE_START));
  if (note === undefined) return null;
  const text = note.slice(CLOCK_NOTE_START.length);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The sentence REVOKE-LATENCY wrote of what its trials prove (its data's confidence, in its notes). */
const provesNote = (result: CheckResult): string | null =>
  result.notes.find((n) => n.includes('Clopper–Pearson')) ?? null;

export function slaViews(results: ValidResults, files: readonly EvidenceFile[]): SlaView[] {
  return results.checks
    .filter((r) => r.id === 'REVOKE-LATENCY' && r.verdict !== 'skipped')
    .map((result) => {
      const data = revocationChartData(result);
      const slaMs = data?.slaMs ?? 3000;
      const brackets: readonly Bracket[] = data?.trials ?? [];
      return {
        tier: result.tier ?? 'all',
        anchor: `sla-${resultAnchor(result)}`,
        claim: `A revoked API key stops working on every edge node in under ${slaMs / 1000} s (spec §5.9, §8.3).`,
        verdict: verdictView(result.verdict),
        expected: result.expected,
        actual: result.actual,
        method: results.methodology.filter((m) => SLA_METHOD_TOPICS.includes(m.topic)),
        clock: clockOf(result),
        proves: provesNote(result),
        edges: edgeRows(brackets, slaMs),
        trials: [...brackets]
          .sort((a, b) => a.trial - b.trial || a.edge.localeCompare(b.edge))
          .map((b) => ({
            trial: b.trial,
            edge: b.edge,
            lower: msText(b.lowerMs),
            upper: msText(b.upperMs),
            within: b.upperMs !== null && b.upperMs < slaMs,
          })),
        run: [
          { label: 'Run', value: results.runId },
          { label: 'Target', value: results.target.edges.join(', ') },
          { label: 'Started', value: results.startedAt },
          { label: 'Finished', value: results.finishedAt },
          // Merged from vantage points: where each one's clock stood against the run's.
          ...result.notes
            .filter((n) => n.startsWith('vantage '))
            .map((n) => ({ label: 'Vantage point', value: n.slice('vantage '.length) })),
          {
            label: 'Tool',
            value: `${results.tool.name} ${results.tool.version}${results.tool.revision ? ` (revision ${results.tool.revision})` : ''}`,
          },
        ],
        files,
        // The folder's place and the signer's key are the reader's to name: the report knows neither.
        verify: `tiergate verify <the folder of run ${results.runId}> [--public-key <the signer's public key, for a signed run>]`,
      };
    });
}
