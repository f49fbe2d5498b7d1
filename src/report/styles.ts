/**
 * The report's stylesheet, inlined into index.html. System fonts only (no @font-face, no url()):
 * the file must render the same offline, printed to PDF, and in a browser that blocks every request.
 * Verdict colours are dark enough for 4.5:1 text contrast on their tints; the symbol and the word
 * always carry the verdict too.
 */
export const REPORT_CSS = `
:root {
  --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa; --bg: #ffffff; --link: #0b57b0;
  --pass: #0a6e47; --pass-bg: #e3f4ec; --fail: #b3261e; --fail-bg: #fcebea;
  --inconclusive: #8a5300; --inconclusive-bg: #fff3d6; --skipped: #5b6169; --skipped-bg: #eef0f2;
  --none: #8c959f;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; scroll-padding-top: 3rem; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", Arial, sans-serif; color: var(--fg); background: var(--bg); }
code { font-family: var(--mono); font-size: 0.92em; }
a { color: var(--link); }
h1, h2, h3 { line-height: 1.25; }
h2 { font-size: 1.3rem; margin: 2.2rem 0 0.8rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 0 0 0.6rem; }
.wrap { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
.muted { color: var(--muted); }
.small { font-size: 0.85em; }
.small code { font-size: 1em; }

/* Header: the gate verdict at a glance and the run's facts, compact, so the matrix fits the first screen. */
.run-header { background: var(--soft); border-bottom: 1px solid var(--line); border-top: 5px solid var(--none); padding: 8px 0 6px; }
.run-header.verdict-pass { border-top-color: var(--pass); }
.run-header.verdict-fail { border-top-color: var(--fail); }
.run-header.verdict-inconclusive { border-top-color: var(--inconclusive); }
.header-top { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 4px 24px; }
.gate { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; }
.gate .headline { font-size: 1rem; font-weight: 600; margin: 0; }
.counts { list-style: none; padding: 0; margin: 0; display: flex; flex-wrap: wrap; gap: 2px 14px; }
.count strong { font-size: 1.05rem; }
.run-header h1 { font-size: 15px; font-weight: 600; margin: 0; overflow-wrap: anywhere; }
/* The run's facts flow as text across the page's width: the fewest lines for the most facts. */
.run-facts { margin: 6px 0 0; font-size: 12.5px; line-height: 17px; }
.run-facts .fact, .run-facts dt, .run-facts dd { display: inline; }
.run-facts .fact { margin-right: 16px; }
.run-facts dt { font-size: 0.82em; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); white-space: nowrap; }
.run-facts dd { margin: 0 0 0 5px; white-space: nowrap; }
.run-facts .long dd { white-space: normal; overflow-wrap: anywhere; }
.run-facts .warn dd { color: var(--inconclusive); font-weight: 600; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px 20px; margin: 0; }
.facts div { min-width: 0; }
.facts dt { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }

.toc { position: sticky; top: 0; z-index: 5; background: rgba(255, 255, 255, 0.97); border-bottom: 1px solid var(--line); font-size: 14px; line-height: 20px; }
.toc .wrap { display: flex; flex-wrap: wrap; gap: 2px 20px; padding-top: 4px; padding-bottom: 4px; }
.toc a { text-decoration: none; }
.toc a:hover { text-decoration: underline; }

/* Verdicts: word + symbol + colour. */
.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-weight: 700; color: #fff; background: var(--none); white-space: nowrap; }
.badge-big { font-size: 1.25rem; padding: 1px 14px; text-transform: uppercase; letter-spacing: 0.03em; }
.badge-small { font-size: 0.78rem; padding: 1px 8px; min-width: 7.5em; text-align: center; }
.badge.v-pass { background: var(--pass); }
.badge.v-fail { background: var(--fail); }
.badge.v-inconclusive { background: var(--inconclusive); }
.badge.v-skipped { background: var(--skipped); }
.badge.v-none { background: var(--skipped-bg); color: var(--skipped); }
.v-text-pass { color: var(--pass); } .v-text-fail { color: var(--fail); }
.v-text-inconclusive { color: var(--inconclusive); } .v-text-skipped { color: var(--skipped); }

.banner { padding: 10px 14px; border-radius: 6px; margin: 16px 0; border-left: 5px solid; }
.banner-warn { background: var(--inconclusive-bg); border-color: var(--inconclusive); }
.banner-info { background: #e8f1fb; border-color: var(--link); }

/* The three questions; the tier limits' answer, with a chip per tier, gets the widest card. */
.answers { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 5fr) minmax(0, 4fr); gap: 12px; margin-top: 10px; }
.answer { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px 8px; }
.answer-head { display: flex; align-items: baseline; justify-content: space-between; gap: 8px; }
.answer-head .badge { min-width: 0; flex: none; }
.answer h2 { font-size: 14.5px; line-height: 20px; border: 0; margin: 0; padding: 0; }
.answer p { margin: 3px 0 0; font-size: 13px; line-height: 18px; }
.chips { display: flex; flex-wrap: wrap; gap: 4px 6px; }
.chip { display: inline-block; border-radius: 4px; padding: 0 8px; font-size: 0.8rem; text-decoration: none; border: 1px solid currentColor; }
.chip.v-pass { color: var(--pass); background: var(--pass-bg); }
.chip.v-fail { color: var(--fail); background: var(--fail-bg); }
.chip.v-inconclusive { color: var(--inconclusive); background: var(--inconclusive-bg); }
.chip.v-skipped, .chip.v-none { color: var(--skipped); background: var(--skipped-bg); }

/* Tables. */
table { border-collapse: collapse; }
.compact { width: 100%; font-size: 0.9rem; }
.compact th, .compact td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid var(--line); }
.compact thead th { background: var(--soft); font-weight: 600; white-space: nowrap; }
.compact td { overflow-wrap: anywhere; }
.compact td code { overflow-wrap: normal; }
.numbers td:not(:first-child), .numbers th:not(:first-child), td.num { text-align: right; font-variant-numeric: tabular-nums; }

/* A section's heading with its one-line explanation beside it. */
.section-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 16px; margin: 8px 0 4px; padding-bottom: 2px; border-bottom: 1px solid var(--line); }
.section-head h2 { font-size: 1.1rem; margin: 0; padding: 0; border: 0; }
.section-head p { margin: 0; }

/* Requirement matrix: a row a line high, striped rather than ruled, so a full run's fits the first screen under the answers. */
.matrix { width: 100%; font-size: 13px; line-height: 16px; }
.matrix th, .matrix td { padding: 1px 8px; text-align: left; vertical-align: middle; }
/* Sticks under the contents bar, 29px high: a 20px line, 8px of padding, a 1px border. */
.matrix thead th { background: var(--soft); border-bottom: 1px solid var(--line); position: sticky; top: 29px; z-index: 1; padding-top: 2px; padding-bottom: 2px; }
.matrix tbody tr:nth-child(even) { background: #f8f9fa; }
.matrix tbody tr:hover { background: #eef1f4; }
.matrix th[scope=row] { font-weight: normal; }
.matrix th[scope=row] a { font-weight: 600; text-decoration: none; }
/* A line-height of its own, so the monospace font's metrics do not heighten the row. */
.matrix th[scope=row] code { white-space: nowrap; line-height: 1; }
.matrix .spec { color: var(--muted); white-space: nowrap; }
.matrix .tier, .matrix .cell { text-align: center; width: 13%; }
/* An outline, not a border: a row stays one line high. */
.cell-link { display: block; border-radius: 3px; padding: 0 6px; font-weight: 600; text-decoration: none; white-space: nowrap; }
.cell-link:hover, .cell-link:focus-visible { outline: 1px solid currentColor; outline-offset: -1px; }
.cell-link.v-pass { color: var(--pass); background: var(--pass-bg); }
.cell-link.v-fail { color: var(--fail); background: var(--fail-bg); }
.cell-link.v-inconclusive { color: var(--inconclusive); background: var(--inconclusive-bg); }
.cell-link.v-skipped { color: var(--skipped); background: var(--skipped-bg); }
.cell-link .more { font-weight: normal; font-size: 0.8em; }
.cell-none { color: var(--none); }

/* What to do: one card per open result. */
.open-results { list-style: none; padding: 0; margin: 10px 0; display: grid; gap: 8px; }
.open-result { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; }
.open-result h3 { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; margin: 0 0 6px; }
.open-result .expected-actual { margin: 0; }
.open-result .note { margin: 6px 0 0; font-size: 0.9rem; color: var(--muted); }
.open-result .advice { margin: 6px 0 0; font-size: 0.9rem; }
.open-result .advice p { margin: 0; }
.open-result .advice ul { margin: 2px 0 0; padding-left: 1.3em; }
.skipped-list { margin: 12px 0; }
.skipped-list summary { cursor: pointer; color: var(--muted); }

/* Limiter profiles: one card per profile, an answer per row. */
.profile-card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
.profile-card h3 { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; }
.profile-card h3 .muted { font-weight: normal; }
/* Fixed columns: an opened evidence table scrolls within its cell instead of widening the card. */
.profile-findings { table-layout: fixed; }
.profile-findings thead th:nth-child(1) { width: 16%; }
.profile-findings thead th:nth-child(2) { width: 20%; }
.profile-findings th[scope=row], .profile-findings td.value { font-weight: 600; overflow-wrap: normal; }
.profile-findings tr.undecided td.value { color: var(--inconclusive); }
.profile-findings .how { margin: 0; }
.profile-evidence { margin-top: 4px; }
.profile-evidence summary { cursor: pointer; color: var(--muted); font-size: 0.85rem; }
.tag-unknown { background: var(--inconclusive-bg); color: var(--inconclusive); }
.tag-differs { background: var(--fail-bg); color: var(--fail); }

/* Charts. */
.chart-figure { margin: 16px 0; }
.chart-figure figcaption { color: var(--muted); font-size: 0.88rem; max-width: 760px; }
.chart { display: block; width: 100%; max-width: 760px; height: auto; font-family: inherit; }
.chart .grid { stroke: #e6e9ed; stroke-width: 1; }
.chart .axis { stroke: #8c959f; stroke-width: 1; }
.chart .tick { font-size: 11px; fill: #4b535c; }
.chart .axis-label { font-size: 11.5px; fill: #2d333a; }
.chart text.legend { font-size: 11px; fill: #2d333a; }
.chart .row-label { font-size: 11px; fill: #2d333a; font-family: var(--mono); }
.chart .annotation { font-size: 11.5px; font-weight: 600; fill: #2d333a; paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.chart .annotation.threshold, .chart .annotation.bad { fill: #b00020; }
.chart .series-line { fill: none; stroke: #9aa3ad; stroke-width: 1; }
.chart .range { stroke: #b8c0c8; stroke-width: 2; }
.latency-table { max-width: 760px; }

/* Check details. */
details.check { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0; background: var(--bg); }
details.check > summary { cursor: pointer; padding: 10px 14px; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; list-style: none; }
details.check > summary::-webkit-details-marker { display: none; }
details.check > summary::before { content: "▸"; color: var(--muted); width: 1em; }
details.check[open] > summary::before { content: "▾"; }
details.check[open] > summary { border-bottom: 1px solid var(--line); background: var(--soft); border-radius: 8px 8px 0 0; }
.check-id { font-weight: 700; }
.spec-ref { color: var(--muted); font-size: 0.88rem; margin-left: auto; }
.check-body { padding: 4px 16px 12px; }
.requirement { margin: 12px 0; padding: 8px 14px; border-left: 4px solid var(--line); background: var(--soft); font-style: italic; }
.basis { font-size: 0.9rem; }
.tag { display: inline-block; font-size: 0.75rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.03em; padding: 1px 6px; border-radius: 3px; margin-right: 4px; }
.tag-spec { background: #e8f1fb; color: #0b4a8f; }
.tag-assumption { background: var(--inconclusive-bg); color: var(--inconclusive); }
.result { border-top: 1px dashed var(--line); padding-top: 12px; margin-top: 12px; }
.result h3 { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; }
.result h3 .muted { font-weight: normal; }
.expected-actual { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; margin: 0 0 10px; }
.expected-actual > div { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; min-width: 0; }
.expected-actual dt { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.expected-actual dd { margin: 0; overflow-wrap: anywhere; }
.actual.v-border-fail { border-color: var(--fail); background: var(--fail-bg); }
.actual.v-border-inconclusive { border-color: var(--inconclusive); background: var(--inconclusive-bg); }
.actual.v-border-pass { border-color: var(--pass); }
.notes { margin: 6px 0 10px; padding-left: 1.3em; font-size: 0.92rem; }
.figures { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 0.9rem; }
.figure .muted { margin-right: 4px; }
.evidence { display: block; overflow-x: auto; font-size: 0.84rem; margin-top: 8px; }
.evidence caption { text-align: left; font-weight: 600; padding: 4px 0; }
.evidence td, .evidence th { white-space: nowrap; }
.evidence td .muted { font-size: 0.9em; }
.evidence tr.gap td { text-align: center; color: var(--muted); font-style: italic; background: var(--soft); }
.evidence tr.s-rate-limited td.status { color: var(--inconclusive); font-weight: 700; }
.evidence tr.s-server-error td.status, .evidence tr.s-no-response td.status { color: var(--fail); font-weight: 700; }
.evidence tr.s-missing td { color: var(--muted); font-style: italic; }
.flash { animation: flash 1.6s ease-out; }
@keyframes flash { from { box-shadow: 0 0 0 4px #f6c343; } to { box-shadow: 0 0 0 4px transparent; } }

/* Methodology and assumptions. */
.prose-list dt { font-weight: 700; margin-top: 12px; }
.prose-list dd { margin: 2px 0 0; max-width: 80ch; }
.assumption { border-left: 4px solid var(--inconclusive); padding: 4px 14px; margin: 12px 0; }
.assumption h3 { margin: 4px 0; }
.assumption p { margin: 4px 0; max-width: 90ch; }
footer { padding: 28px 24px 40px; }

.sla-page { border-top: 1px solid var(--line); padding-top: 8px; }
.sla-claim { font-size: 1.15em; font-weight: 600; }
.sla-files .hash { word-break: break-all; font-size: 0.85em; }

@media (max-width: 900px) {
  .answers, .expected-actual { grid-template-columns: minmax(0, 1fr); }
  .spec-ref { margin-left: 0; }
}
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 11pt; }
  .toc { display: none; }
  .matrix thead th { position: static; }
  .wrap { max-width: none; padding: 0; }
  details.check > summary, .chart-figure, tr, .answer, .open-result, .expected-actual, .profile-card h3 { break-inside: avoid; }
  /* Paper cannot scroll: evidence tables fit the page width instead. */
  .evidence { display: table; width: 100%; font-size: 8pt; }
  .evidence td, .evidence th { white-space: normal; padding: 3px 4px; }
  details.check > summary::before { content: none; }
  a { color: inherit; text-decoration: none; }
  /* The SLA evidence: each verdict starts a page of its own, and nothing in it needs a click. */
  .sla-page { break-before: page; border-top: none; }
  .sla-page h4, .sla-run, .sla-files { break-after: avoid; break-inside: avoid; }
  .sla-trials, .sla-edges { width: 100%; font-size: 8pt; }
  .sla-files .hash { font-size: 7pt; }
}
`;
