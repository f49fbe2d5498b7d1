/**
 * The report's handlebars template. Everything is escaped by handlebars except `{{{…}}}`, which is
 * used only for the stylesheet, the script and SVG built (and escaped) by charts/svg.ts.
 */

/** The deciding observations of a check result or a profile's answer (details.ts `EvidenceView`). */
const EVIDENCE_TABLE = `{{#if evidence.length}}
        <table class="compact evidence">
          <caption>Deciding observations ({{evidenceCount}})</caption>
          <thead><tr><th>#</th><th>Time (UTC)</th><th>Edge</th><th>Request</th><th>Status</th><th>Limit</th><th>Remaining</th><th>Reset</th><th>Retry-After</th></tr></thead>
          <tbody>
          {{#each evidence}}
            {{#if gap}}<tr class="gap"><td colspan="9">… {{gap}} more observations …</td></tr>{{/if}}
            <tr class="s-{{statusClass}}"><td class="num">{{id}}</td><td>{{time}} <span class="muted">{{offset}}</span></td><td>{{edge}}</td><td><code>{{request}}</code>{{#if phase}} <span class="muted small">{{phase}}</span>{{/if}}</td><td class="status">{{status}}</td><td class="num">{{limit}}</td><td class="num">{{remaining}}</td><td class="num">{{reset}}</td><td class="num">{{retryAfter}}</td></tr>
          {{/each}}
          </tbody>
        </table>
        {{/if}}`;

/** One open result of "What to do" (open-results.ts `OpenResultView`): a unit, linked to its evidence. */
/** Text with its code spans (open-results.ts TextPart). */
const TEXT_PARTS = '{{#if code}}<code>{{text}}</code>{{else}}{{text}}{{/if}}';

const OPEN_RESULT = `<li class="open-result">
      <h3><span class="badge badge-small v-{{verdict.verdict}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</span> <a href="{{href}}"><code>{{name}}</code></a></h3>
      {{#if expected}}<dl class="expected-actual">
        <div><dt>Expected</dt><dd>{{expected}}</dd></div>
        <div class="actual v-border-{{verdict.verdict}}"><dt>Actual</dt><dd>{{actual}}</dd></div>
      </dl>{{/if}}
      {{#if note}}<p class="note">{{note}}</p>{{/if}}
      {{#each advice}}<div class="advice">
        <p><code>{{code}}</code>: {{#each means}}${TEXT_PARTS}{{/each}} <span class="muted">(<code>tiergate explain {{code}}</code>)</span></p>
        <ul>{{#each change}}<li>{{#each this}}${TEXT_PARTS}{{/each}}</li>{{/each}}</ul>
      </div>{{/each}}
    </li>`;

export const REPORT_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<link rel="icon" href="data:,">
<title>{{title}}</title>
<style>{{{css}}}</style>
</head>
<body>
<header class="run-header verdict-{{verdict.verdict}}">
  <div class="wrap">
    <div class="header-top">
      <div class="gate">
        <div class="badge badge-big v-{{verdict.verdict}}" role="status"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</div>
        <p class="headline">{{headline}}</p>
        <ul class="counts">
          {{#each counts}}<li class="count v-text-{{verdict.verdict}}"><strong>{{count}}</strong> {{verdict.label}}</li>{{/each}}
        </ul>
      </div>
      <h1>tiergate run <code>{{runId}}</code></h1>
    </div>
    <dl class="run-facts">
      {{#each facts}}<div class="fact{{#if warn}} warn{{/if}}{{#if long}} long{{/if}}"><dt>{{label}}</dt><dd>{{value}}</dd></div> {{/each}}
    </dl>
  </div>
</header>
<nav class="toc" aria-label="Sections"><div class="wrap">
  <a href="#summary">Summary</a><a href="#matrix">Requirement matrix</a>{{#if openResults}}<a href="#what-to-do">What to do</a>{{/if}}{{#if profiles.length}}<a href="#limiter">How it limits</a>{{/if}}{{#if declaredLimits.length}}<a href="#declared-limits">Declared limits</a>{{/if}}{{#if footprint}}<a href="#footprint">Writes</a>{{/if}}<a href="#charts">Traffic</a><a href="#details">Checks</a><a href="#methodology">Methodology</a><a href="#assumptions">Assumptions</a>{{#if sla.length}}<a href="#sla">SLA evidence</a>{{/if}}
</div></nav>
<main class="wrap">
{{#if interrupted}}<div class="banner banner-warn" role="alert"><strong>Interrupted.</strong> The run was stopped before it finished: this report shows only the checks that completed.</div>{{/if}}
{{#if faults.length}}<div class="banner banner-info"><strong>Faults injected into the embedded target:</strong> {{#each faults}}<code>{{this}}</code>{{#unless @last}}, {{/unless}}{{/each}}. Failures are expected: this run demonstrates that the harness catches them.</div>{{/if}}
{{#if variants.length}}<div class="banner banner-info"><strong>Conformant variants of the embedded target:</strong> {{#each variants}}<code>{{this}}</code>{{#unless @last}}, {{/unless}}{{/each}}. Each keeps every promise of the spec and differs only where the spec is silent (an assumption of the harness): every check should pass, and the reasons of a pass that rests on an assumption ("assumption, not spec") name what the variant changed.</div>{{/if}}

<section id="summary" class="answers">
  {{#each answers}}
  <article class="answer">
    <div class="answer-head">
      <h2>{{question}}</h2>
      {{#if verdict}}<span class="badge badge-small v-{{verdict.verdict}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</span>{{else}}<span class="badge badge-small v-none">not measured</span>{{/if}}
    </div>
    <p>{{detail}}</p>
    {{#if chips.length}}<p class="chips">{{#each chips}}{{#if href}}<a class="chip v-{{#if verdict}}{{verdict.verdict}}{{else}}none{{/if}}" href="{{href}}">{{else}}<span class="chip v-none">{{/if}}{{label}}: {{#if verdict}}{{verdict.label}}{{else}}—{{/if}}{{#if href}}</a>{{else}}</span>{{/if}} {{/each}}</p>{{/if}}
  </article>
  {{/each}}
</section>

<section id="matrix">
  <div class="section-head">
    <h2>Requirement matrix</h2>
    <p class="muted small">Each cell is the worst verdict of the check for that tier (a check may run in several variants); click it for the evidence.</p>
  </div>
  <table class="matrix">
    <thead><tr><th scope="col">Check</th><th scope="col" class="spec">Spec</th>{{#each matrix.columns}}<th scope="col" class="tier">{{this}}</th>{{/each}}</tr></thead>
    <tbody>
    {{#each matrix.rows}}
      <tr>
        <th scope="row"><a href="{{href}}"><code>{{id}}</code></a> <span class="muted">{{title}}</span></th>
        <td class="spec">{{spec}}</td>
        {{#each cells}}<td class="cell">{{#if verdict}}<a class="cell-link v-{{verdict.verdict}}" href="{{href}}" title="{{tip}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}{{#if more}}<span class="more"> +{{more}}</span>{{/if}}</a>{{else}}<span class="cell-none" title="{{tip}}">—</span>{{/if}}</td>{{/each}}
      </tr>
    {{/each}}
    </tbody>
  </table>
</section>

{{#if openResults}}
<section id="what-to-do">
  <h2>What to do</h2>
  <p class="muted">Every result that did not pass, worst first: what was expected and what was seen. Each links to its evidence.</p>
  {{#if openResults.attention.length}}<ol class="open-results">
    {{#each openResults.attention}}${OPEN_RESULT}{{/each}}
  </ol>{{/if}}
  {{#if openResults.skipped.length}}
  <details class="skipped-list">
    <summary>{{openResults.skipped.length}} skipped (not run, with the reason)</summary>
    <ol class="open-results">
      {{#each openResults.skipped}}${OPEN_RESULT}{{/each}}
    </ol>
  </details>
  {{/if}}
</section>
{{/if}}

{{#if profiles.length}}
<section id="limiter">
  <h2>How this server limits</h2>
  <p class="muted">Learned from the server's own answers before the checks judged it, one profile per tier: where the spec is silent, the checks measure under the behaviour seen here. Each answer cites the observations that decided it; an answer left unknown says why.</p>
  {{#each profiles}}
  <article class="profile-card" id="{{anchor}}">
    <h3>{{tier}} <span class="muted small">learned on {{org}} in {{duration}}, {{requests}}; window {{window}}</span>{{#if unknown}} <span class="tag tag-unknown">{{unknown}} unknown</span>{{/if}}</h3>
    <table class="compact profile-findings">
      <thead><tr><th scope="col">Question</th><th scope="col">Learned</th><th scope="col">How it was decided</th></tr></thead>
      <tbody>
      {{#each findings}}
        <tr class="finding{{#unless decided}} undecided{{/unless}}">
          <th scope="row">{{label}}</th>
          <td class="value">{{value}}</td>
          <td>{{#if how}}<p class="how">{{how}}</p>{{/if}}
        {{#if evidence.length}}<details class="profile-evidence"><summary>observations {{ids}}</summary>
        ${EVIDENCE_TABLE}
        </details>{{/if}}
        {{#if evidenceNote}}<p class="muted small">{{evidenceNote}}</p>{{/if}}</td>
        </tr>
      {{/each}}
      </tbody>
    </table>
  </article>
  {{/each}}
</section>
{{/if}}

{{#if declaredLimits.length}}
<section id="declared-limits">
  <h2>Declared limits</h2>
  <p class="muted">Figures the config declares for an organization (<code>orgs[].limits</code>): its contract, so the checks judge it exactly against them, and HDR-LIMIT fails an announced X-RateLimit-Limit that differs. Beside each, the Limits the server announced on that organization's admitted and 429 answers for the class.</p>
  <table class="compact declared-limits">
    <thead><tr><th scope="col">Tier</th><th scope="col">Organization</th><th scope="col">Figure</th><th scope="col">Declared</th><th scope="col">Server announced</th></tr></thead>
    <tbody>
    {{#each declaredLimits}}
      <tr><td>{{tier}}</td><td>{{org}}</td><td>{{figure}}</td><td class="num">{{declared}}</td><td>{{announced}}{{#if differs}} <span class="tag tag-differs">differs</span>{{/if}}</td></tr>
    {{/each}}
    </tbody>
  </table>
</section>
{{/if}}

{{#if footprint}}
<section id="footprint">
  <h2>What the run wrote</h2>
  <p class="muted">{{footprint.policy}} {{footprint.keys}}</p>
  {{#if footprint.announced.length}}
  <table class="compact footprint-announced">
    <caption>Announced before the run, beside what was done</caption>
    <thead><tr><th scope="col">Tier</th><th scope="col">Organization</th><th scope="col">What</th><th scope="col">Announced before the run</th><th scope="col">Done (2xx)</th><th scope="col"></th></tr></thead>
    <tbody>
    {{#each footprint.announced}}
      <tr><td>{{tier}}</td><td>{{org}}</td><td>{{what}}</td><td class="num">{{announced}}</td><td class="num">{{done}}</td><td class="{{#if within}}pass{{else}}fail{{/if}}">{{judgement}}</td></tr>
    {{/each}}
    </tbody>
  </table>
  {{/if}}
  {{#if footprint.written.length}}
  <table class="compact footprint">
    <caption>Writes sent, per tier and endpoint</caption>
    <thead><tr><th scope="col">Tier</th><th scope="col">Endpoint</th><th scope="col">Writes sent</th><th scope="col">Admitted (2xx)</th></tr></thead>
    <tbody>
    {{#each footprint.written}}
      <tr><td>{{tier}}</td><td><code>{{endpoint}}</code></td><td class="num">{{sent}}</td><td class="num">{{admitted}}</td></tr>
    {{/each}}
    </tbody>
  </table>
  {{/if}}
  {{#if footprint.created.length}}
  <ul class="footprint-created">
    {{#each footprint.created}}<li>{{text}}</li>{{/each}}
  </ul>
  {{/if}}
</section>
{{/if}}

<section id="charts">
  <h2>Traffic</h2>
  {{#if observationsNote}}<p class="banner banner-warn">{{observationsNote}}</p>{{/if}}
  {{#if timeline}}<figure class="chart-figure">{{{timeline}}}<figcaption>Every response of the run by status class. 429s come from the quota checks; 401s from the auth checks and from revocation probes once a key is revoked; 403s from the scope checks.</figcaption></figure>{{/if}}
  {{#if latency}}
  <figure class="chart-figure">{{{latency}}}<figcaption>Latency percentiles per check (log scale): p50, p90, p99 and the maximum.</figcaption></figure>
  <table class="compact numbers latency-table">
      <thead><tr><th>Check</th><th>responses</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr></thead>
    <tbody>{{#each latencyRows}}<tr><td><code>{{check}}</code></td><td>{{count}}</td><td>{{p50}}</td><td>{{p90}}</td><td>{{p99}}</td><td>{{max}}</td></tr>{{/each}}</tbody>
  </table>
  {{/if}}
</section>

<section id="details">
  <h2>Checks</h2>
  {{#each groups}}
  <details class="check" id="{{anchor}}"{{#if open}} open{{/if}}>
    <summary>
      <span class="badge badge-small v-{{verdict.verdict}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</span>
      <code class="check-id">{{id}}</code> <span class="check-title">{{title}}</span> <span class="spec-ref">{{spec}}</span>
    </summary>
    <div class="check-body">
      <blockquote class="requirement">{{requirement}}</blockquote>
      <p class="basis">
        {{#if assumptions.length}}<span class="tag tag-assumption">rests on assumptions</span>
          {{#each assumptions}}<a href="#{{anchor}}" title="{{statement}}"><code>{{id}}</code></a>{{#unless @last}}, {{/unless}}{{/each}}: where the spec is silent, the harness's named assumption decides.
        {{else}}<span class="tag tag-spec">spec</span> rests on the spec alone ({{spec}}).{{/if}}
      </p>
      {{#each results}}
      <section class="result" id="{{anchor}}">
        <h3><span class="badge badge-small v-{{verdict.verdict}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</span> {{tier}}{{#if variant}} · {{variant}}{{/if}}{{#if org}} <span class="muted small">org {{org}}</span>{{/if}} <span class="muted small">{{startedAt}} · {{duration}}</span></h3>
        <dl class="expected-actual">
          <div><dt>Expected</dt><dd>{{expected}}</dd></div>
          <div class="actual v-border-{{verdict.verdict}}"><dt>Actual</dt><dd>{{actual}}</dd></div>
        </dl>
        {{#if notes.length}}<ul class="notes">{{#each notes}}<li>{{this}}</li>{{/each}}</ul>{{/if}}
        {{#if figures.length}}<p class="figures">{{#each figures}}<span class="figure"><span class="muted">{{name}}</span> {{value}}</span>{{/each}}</p>{{/if}}
        {{#each charts}}<figure class="chart-figure">{{{svg}}}<figcaption>{{caption}}</figcaption></figure>{{/each}}
        {{#if evidenceNote}}<p class="muted small">{{evidenceNote}}</p>{{/if}}
        ${EVIDENCE_TABLE}
      </section>
      {{/each}}
    </div>
  </details>
  {{/each}}
</section>

<section id="methodology">
  <h2>Methodology</h2>
  <dl class="prose-list">
    {{#each methodology}}<dt>{{topic}}</dt><dd>{{text}}</dd>{{/each}}
  </dl>
</section>

{{#if sla.length}}
<section id="sla">
  <h2>SLA evidence: key revocation</h2>
  {{#each sla}}
  <article class="sla-page" id="{{anchor}}">
    <h3>Claim ({{tier}})</h3>
    <p class="sla-claim">{{claim}}</p>
    <p><span class="badge v-{{verdict.verdict}}"><span aria-hidden="true">{{verdict.symbol}}</span> {{verdict.label}}</span></p>
    <dl class="prose-list">
      <dt>Expected</dt><dd>{{expected}}</dd>
      <dt>Observed</dt><dd>{{actual}}</dd>
      {{#if clock}}<dt>Where the clock starts</dt><dd class="sla-clock">{{clock}}</dd>{{/if}}
      {{#if proves}}<dt>What the trials prove</dt><dd class="sla-proves">{{proves}}</dd>{{/if}}
    </dl>
    <h4>Method</h4>
    <dl class="prose-list sla-method">
      {{#each method}}<dt>{{topic}}</dt><dd>{{text}}</dd>{{/each}}
    </dl>
    <h4>Bounds per edge</h4>
    <table class="compact sla-edges">
      <thead><tr><th scope="col">Edge</th><th scope="col">Trials</th><th scope="col">Within the SLA</th><th scope="col">Slowest upper bound</th><th scope="col">Latest lower bound</th></tr></thead>
      <tbody>{{#each edges}}<tr><td>{{edge}}</td><td class="num">{{brackets}}</td><td class="num">{{within}}</td><td class="num">{{worstUpper}}</td><td class="num">{{worstLower}}</td></tr>{{/each}}</tbody>
    </table>
    <h4>Every trial</h4>
    <table class="compact sla-trials">
      <thead><tr><th scope="col">Trial</th><th scope="col">Edge</th><th scope="col">Still admitted at (lower bound)</th><th scope="col">Rejecting by (upper bound)</th><th scope="col">Within</th></tr></thead>
      <tbody>{{#each trials}}<tr><td class="num">{{trial}}</td><td>{{edge}}</td><td class="num">{{lower}}</td><td class="num">{{upper}}</td><td>{{#if within}}yes{{else}}no{{/if}}</td></tr>{{/each}}</tbody>
    </table>
    <h4>The run, and how to check it</h4>
    <dl class="facts sla-run">{{#each run}}<div><dt>{{label}}</dt><dd>{{value}}</dd></div>{{/each}}</dl>
    {{#if files.length}}
    <table class="compact sla-files">
      <thead><tr><th scope="col">Evidence file</th><th scope="col">SHA-256</th></tr></thead>
      <tbody>{{#each files}}<tr><td><code>{{name}}</code></td><td><code class="hash">{{sha256}}</code></td></tr>{{/each}}</tbody>
    </table>
    {{/if}}
    <p>The run folder's <code>manifest.json</code> lists these files with the same SHA-256 (and this report's own), signed in <code>manifest.sig</code> where the run had a signing key. Anyone can check the folder, with no network and no target: <code>{{verify}}</code> (exit 0: every check held).</p>
  </article>
  {{/each}}
</section>
{{/if}}

<section id="assumptions">
  <h2>Assumptions</h2>
  <p class="muted">Where the spec is silent, the harness states what it assumes. A check resting on an assumption tests the assumption, not the spec.</p>
  {{#each assumptions}}
  <article class="assumption" id="{{anchor}}">
    <h3><code>{{id}}</code></h3>
    <p>{{statement}}</p>
    <p class="gap"><span class="muted">Spec gap:</span> {{gap}}</p>
    {{#if usedBy.length}}<p class="muted small">Used by {{#each usedBy}}<code>{{this}}</code>{{#unless @last}}, {{/unless}}{{/each}}</p>{{/if}}
  </article>
  {{/each}}
</section>
</main>
<footer class="wrap muted small">Generated by {{generatedBy}}. This file is self-contained: it makes no network requests.</footer>
<script>{{{script}}}</script>
</body>
</html>
`;

/** Opens collapsed check details when a link targets them, and all of them for printing. */
export const REPORT_SCRIPT = `
(function () {
  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return;
    for (var el = target; el; el = el.parentElement) if (el.tagName === 'DETAILS') el.open = true;
    target.scrollIntoView({ block: 'start' });
    target.classList.add('flash');
    setTimeout(function () { target.classList.remove('flash'); }, 1600);
  }
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (!link) return;
    event.preventDefault();
    var hash = link.getAttribute('href');
    history.replaceState(null, '', hash);
    reveal(hash);
  });
  window.addEventListener('hashchange', function () { reveal(location.hash); });
  reveal(location.hash);
  var closed = [];
  window.addEventListener('beforeprint', function () {
    closed = Array.prototype.filter.call(document.querySelectorAll('details:not([open])'), function (d) { d.open = true; return true; });
  });
  window.addEventListener('afterprint', function () { closed.forEach(function (d) { d.open = false; }); closed = []; });
})();
`;
