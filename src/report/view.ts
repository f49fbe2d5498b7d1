/**
 * The HTML report's view model: everything the template shows, computed here so the template
 * stays declarative. Pure: results + the observations digest in, plain data (and SVG) out.
 */
import { allChecks, reportOf } from '../checks/catalogue.ts';
import type { CheckId } from '../catalogue/types.ts';
import type { RunResults, ValidResults } from '../results/types.ts';
import { latencyChart } from './charts/latency.ts';
import { revocationChartData } from './charts/revocation.ts';
import { formatMs, type Svg } from './charts/svg.ts';
import { timelineChart } from './charts/timeline.ts';
import { checkGroups, verdictView, type CheckGroupView, type VerdictView } from './details.ts';
import { buildMatrix, resultAnchor, worstVerdict } from './matrix.ts';
import type { LatencySummary, ObservationDigest } from './observation-digest.ts';
import { profileCards, type ProfileCardView } from './profile-view.ts';
import { declaredLimitRows, type DeclaredLimitRow } from './declared-limits.ts';
import { declaredDialectText } from './header-dialect.ts';
import { footprintView, type FootprintView } from './footprint.ts';
import { openResults, type OpenResultsView } from './open-results.ts';
import { slaViews, type EvidenceFile, type SlaView } from './sla.ts';

/** Checks that answer "does every tier get exactly the quotas it is sold?" (their modules say so). */
const TIER_LIMIT_CHECKS: readonly CheckId[] = allChecks()
  .filter((c) => reportOf(c.id).answersTierLimits === true)
  .map((c) => c.id);

export interface ReportView {
  readonly title: string;
  readonly runId: string;
  readonly verdict: VerdictView;
  readonly headline: string;
  readonly counts: readonly { readonly verdict: VerdictView; readonly count: number }[];
  /** `long`: a value that may wrap; the others stay whole on their line. */
  readonly facts: readonly {
    readonly label: string;
    readonly value: string;
    readonly warn?: boolean;
    readonly long?: boolean;
  }[];
  readonly interrupted: boolean;
  readonly faults: readonly string[];
  /** Conformant variants the embedded target showed (none: the default limiter). */
  readonly variants: readonly string[];
  readonly answers: readonly {
    readonly question: string;
    readonly verdict: VerdictView | null;
    readonly detail: string;
    readonly chips: readonly {
      readonly label: string;
      readonly verdict: VerdictView | null;
      readonly href: string | null;
    }[];
  }[];
  /** What to do: every result that did not pass (null when all passed). */
  readonly openResults: OpenResultsView | null;
  /** How the server limits: one card per limiter profile (none when the run learned none). */
  readonly profiles: readonly ProfileCardView[];
  /** Figures the config declared for organizations, beside the Limits the server announced (none declared: empty). */
  readonly declaredLimits: readonly (DeclaredLimitRow & { readonly differs: boolean })[];
  /** What the run wrote to the deployment, and what it created and left behind; null for runs that do not say (k6, older results). */
  readonly footprint: FootprintView | null;
  /** The SLA evidence page, one per REVOKE-LATENCY result that ran. */
  readonly sla: readonly SlaView[];
  readonly matrix: {
    readonly columns: readonly string[];
    readonly rows: readonly {
      readonly id: string;
      readonly title: string;
      readonly spec: string;
      readonly href: string;
      readonly cells: readonly {
        readonly verdict: VerdictView | null;
        readonly href: string | null;
        readonly tip: string;
        readonly more: number;
      }[];
    }[];
  };
  readonly timeline: Svg | null;
  readonly latency: Svg | null;
  readonly latencyRows: readonly {
    readonly check: string;
    readonly count: number;
    readonly p50: string;
    readonly p90: string;
    readonly p99: string;
    readonly max: string;
  }[];
  readonly observationsNote: string | null;
  readonly groups: readonly CheckGroupView[];
  readonly methodology: readonly { readonly topic: string; readonly text: string }[];
  readonly assumptions: readonly {
    readonly id: string;
    readonly anchor: string;
    readonly statement: string;
    readonly gap: string;
    readonly usedBy: readonly string[];
  }[];
  readonly generatedBy: string;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

const utc = (iso: string): string =>
  Number.isNaN(Date.parse(iso)) ? iso : `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** "round trips 81 ms median (p90 93 ms, spread 19 ms, 412 measured); timers late 3 ms; margins: …" */
function networkText({ figures: f, margins: m }: NonNullable<RunResults['network']>): string {
  if (f.samples === 0) return 'no round trip measured: every margin at its floor';
  const trips = `round trips ${formatMs(f.medianMs)} median (p90 ${formatMs(f.p90Ms)}, spread ${formatMs(f.spreadMs)}, ${f.samples} measured)`;
  const margins = `window end ${formatMs(m.windowEndMs)}, opener lead ${formatMs(m.openerLeadMs)}, last read ${formatMs(m.lastReadClearanceMs)} before an end`;
  return `${trips}; timers late ${formatMs(f.timerLateMs)}; margins: ${margins}`;
}

/** The header dialect judged, where a declaration departs from §8's: on the first screen, beside the contract. */
function headerFacts(results: RunResults): ReportView['facts'] {
  const text = declaredDialectText(results.headers);
  return text === null ? [] : [{ label: 'Rate-limit headers', value: text, warn: true, long: true }];
}

function facts(results: RunResults): ReportView['facts'] {
  const t = results.target;
  const clock = results.clock;
  return [
    {
      label: 'Target',
      value: `${t.kind === 'embedded' ? 'embedded reference target' : 'external deployment'}, ${t.edges.length} edge${t.edges.length === 1 ? '' : 's'}`,
    },
    { label: 'Edges', value: t.edges.join(', ') || '—', long: true },
    { label: 'Tiers', value: results.tiers.join(', ') || '—' },
    { label: 'Started', value: utc(results.startedAt) },
    { label: 'Duration', value: formatDuration(results.durationMs) },
    { label: 'Window', value: `${results.windowSeconds} s` },
    {
      label: 'Quota windows',
      value: `${results.windows.used} used, ${results.windows.needed} needed at minimum`,
    },
    {
      label: 'Server clock',
      value: clock
        ? `${clock.offsetMs >= 0 ? '+' : '−'}${formatMs(Math.abs(clock.offsetMs))} ± ${formatMs(clock.uncertaintyMs)} vs this machine (${clock.samples} samples)`
        : 'not estimated',
      warn: clock === null,
    },
    ...(results.network ? [{ label: 'Network', value: networkText(results.network), long: true }] : []),
    { label: 'Contract', value: `${results.contract.name} v${results.contract.version}` },
    ...headerFacts(results),
    {
      label: 'Tool',
      value: `${results.tool.name} ${results.tool.version}${results.tool.revision ? ` (${results.tool.revision.slice(0, 12)})` : ''}`,
    },
    ...(results.k6 ? [{ label: 'Load driven by', value: `k6 v${results.k6.version}` }] : []),
    ...(results.observations.bodies === 'kept'
      ? [
          {
            label: 'Response bodies',
            value:
              "kept whole (--keep-bodies): the run folder holds what the deployment's data reads returned, customer data included",
            warn: true,
            long: true,
          },
        ]
      : results.observations.bodies === 'shape'
        ? [
            {
              label: 'Response bodies',
              value:
                'data reads kept as their shape only (top-level keys and types); error bodies and the scope list whole',
              long: true,
            },
          ]
        : []),
  ];
}

function answers(results: ValidResults): ReportView['answers'] {
  const counts = results.counts;
  const gate = {
    question: 'Gate: may this build ship?',
    verdict: verdictView(results.verdict),
    detail: `${counts.pass} passed, ${counts.fail} failed, ${counts.inconclusive} inconclusive, ${counts.skipped} skipped`,
    chips: [],
  };
  const limitChecks = results.checks.filter((r) => (TIER_LIMIT_CHECKS as readonly string[]).includes(r.id));
  const tierChips = results.tiers.map((tier) => {
    const mine = limitChecks.filter((r) => r.tier === tier);
    const worst = worstVerdict(mine.map((r) => r.verdict));
    const bad = mine.find((r) => r.verdict === worst);
    return { label: tier, verdict: worst ? verdictView(worst) : null, href: bad ? `#${resultAnchor(bad)}` : null };
  });
  const tierWorst = worstVerdict(limitChecks.map((r) => r.verdict));
  const limits = {
    question: 'Tier limits: does every tier get exactly its quotas?',
    verdict: tierWorst ? verdictView(tierWorst) : null,
    detail:
      limitChecks.length > 0
        ? `Judged by ${TIER_LIMIT_CHECKS.filter((id) => limitChecks.some((r) => r.id === id)).join(', ')}, per tier:`
        : 'not measured in this run',
    chips: tierChips,
  };
  const revocations = results.checks.filter((r) => r.id === 'REVOKE-LATENCY');
  const revWorst = worstVerdict(revocations.map((r) => r.verdict));
  let revDetail = 'not measured in this run';
  const trials = revocations.flatMap((r) => revocationChartData(r)?.trials ?? []);
  if (trials.length > 0) {
    const edges = new Set(trials.map((t) => t.edge)).size;
    const runs = new Set(trials.map((t) => t.trial)).size;
    const never = trials.some((t) => t.upperMs === null);
    const worst = Math.max(...trials.map((t) => t.upperMs ?? 0));
    revDetail = `worst upper bound ${never ? 'unbounded (an edge never rejected)' : formatMs(worst)} over ${runs} trial${runs === 1 ? '' : 's'} on ${edges} edge${edges === 1 ? '' : 's'}`;
  } else if (revocations[0]) {
    revDetail = revocations[0].actual;
  }
  const revocation = {
    question: 'Revocation SLA: is a revoked key refused everywhere in under 3 s?',
    verdict: revWorst ? verdictView(revWorst) : null,
    detail: revDetail,
    chips: revocations.map((r) => ({
      label: r.tier ?? 'all',
      verdict: verdictView(r.verdict),
      href: `#${resultAnchor(r)}`,
    })),
  };
  return [gate, limits, revocation];
}

function matrixView(results: RunResults): ReportView['matrix'] {
  const matrix = buildMatrix(results);
  return {
    columns: matrix.columns,
    rows: matrix.rows.map((row) => ({
      id: row.id,
      title: row.title,
      spec: row.spec,
      href: `#check-${row.id}`,
      cells: row.cells.map((cell) => ({
        verdict: cell.worst ? verdictView(cell.worst.verdict) : null,
        href: cell.worst ? `#${resultAnchor(cell.worst)}` : null,
        tip:
          cell.results.length === 0
            ? 'not run for this tier'
            : cell.results.map((r) => `${r.variant || r.id}: ${r.verdict}`).join('; '),
        more: Math.max(0, cell.results.length - 1),
      })),
    })),
  };
}

/** How the report's own figures are computed, after the run's methodology. */
const REPORT_METHODOLOGY = [
  {
    topic: 'Latency percentiles (report)',
    text: 'Per check, from the observations file: latency = response-headers time − (intended send time, for open-model drivers, else actual send time), on the monotonic clock; percentiles from an HDR histogram at 3 significant digits (µs resolution).',
  },
  {
    topic: 'Responses over time (report)',
    text: 'Every observation, counted in the bar of its send time (monotonic, from the start of the run) and stacked by status class; "no response" is a timeout, reset or refused connection.',
  },
] as const;

function latencyRows(rows: readonly LatencySummary[]): ReportView['latencyRows'] {
  return rows.map((r) => ({
    check: r.check,
    count: r.count,
    p50: formatMs(r.p50),
    p90: formatMs(r.p90),
    p99: formatMs(r.p99),
    max: formatMs(r.max),
  }));
}

/** `files`: the run folder's evidence files and their SHA-256 (the SLA evidence page lists them). */
export function buildReportView(
  results: ValidResults,
  digest: ObservationDigest,
  files: readonly EvidenceFile[] = [],
): ReportView {
  const matrix = matrixView(results);
  const order = matrix.rows.map((r) => r.id);
  const latency = [...digest.latency].sort(
    (a, b) =>
      (order.indexOf(a.check) + 1 || 999) - (order.indexOf(b.check) + 1 || 999) || a.check.localeCompare(b.check),
  );
  const verdict = verdictView(results.verdict);
  const headline: Record<RunResults['verdict'], string> = {
    pass: 'Every check that ran passed.',
    fail: `${results.counts.fail} check result${results.counts.fail === 1 ? '' : 's'} failed.`,
    inconclusive: `Nothing failed, but ${results.counts.inconclusive} result${results.counts.inconclusive === 1 ? ' is' : 's are'} inconclusive: not a pass.`,
  };
  let observationsNote: string | null = null;
  if (!digest.available)
    observationsNote =
      'the observations file was not available when this report was rendered: the charts drawn from it and the evidence tables are missing.';
  else if (digest.malformedLines > 0)
    observationsNote = `${digest.malformedLines} line(s) of the observations file could not be read and were left out.`;
  return {
    title: `tiergate ${results.verdict.toUpperCase()}: ${results.runId}`,
    runId: results.runId,
    verdict,
    headline: headline[results.verdict],
    counts: (['pass', 'fail', 'inconclusive', 'skipped'] as const).map((v) => ({
      verdict: verdictView(v),
      count: results.counts[v],
    })),
    facts: facts(results),
    interrupted: results.interrupted,
    faults: results.target.faults,
    variants: results.target.variants ?? [],
    answers: answers(results),
    openResults: openResults(results),
    profiles: profileCards(results.profiles, digest),
    declaredLimits: declaredLimitRows(results, digest).map((row) => ({ ...row, differs: row.agrees === false })),
    footprint: footprintView(results.footprint),
    sla: slaViews(results, files),
    matrix,
    timeline: timelineChart(digest.timeline, digest.bucketMs, 'Responses over time by status'),
    latency: latencyChart(latency, 'Latency percentiles per check'),
    latencyRows: latencyRows(latency),
    observationsNote,
    groups: checkGroups(order, results.checks, results.assumptions, digest, results.tiers),
    methodology: [...results.methodology, ...REPORT_METHODOLOGY],
    assumptions: results.assumptions.map((a) => ({
      id: a.id,
      anchor: `assumption-${a.id}`,
      statement: a.statement,
      gap: a.gap,
      usedBy: [...new Set(results.checks.filter((r) => r.assumptions.includes(a.id)).map((r) => r.id))],
    })),
    generatedBy: `${results.tool.name} ${results.tool.version}${results.tool.revision ? ` (${results.tool.revision.slice(0, 12)})` : ''}`,
  };
}
