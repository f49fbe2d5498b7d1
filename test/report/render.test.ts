import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/util/errors.ts';
import { because, reasonDefinition } from '../../src/catalogue/reasons/index.ts';
import { emptyDigest } from '../../src/report/observation-digest.ts';
import { digestFor, pointLatest, renderFromResultsFile, renderHtml, writeReports } from '../../src/report/render.ts';
import { resultsSchema } from '../../src/results/schema.ts';
import type { Footprint, ValidResults } from '../../src/results/types.ts';
import { SAMPLE_PROFILE, sampleResults } from '../helpers/sample-results.ts';
import { LEAKED_KEY, LEAKED_KEY_REDACTED, writeSampleRun, type SampleRun } from './fixtures.ts';

/** Every attribute that makes a browser fetch something, with its value. */
const FETCHING_ATTRIBUTE =
  /\s(src|href|srcset|action|formaction|poster|data|xlink:href|background|ping)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi;

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // stat() follows the latest -> <run-id> symlink, so latest/ is searched too.
    if ((await stat(path)).isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** The HTML of `<section id="…">`, up to the next section. */
function sectionOf(html: string, id: string): string {
  const start = html.indexOf(`<section id="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThan(0);
  const end = html.indexOf('<section id=', start + 1);
  return html.slice(start, end < 0 ? undefined : end);
}

/** Each answer row of the limiter section: its label, value, whether it was left open, and its HTML. */
function findingRows(section: string) {
  return [
    ...section.matchAll(
      /<tr class="finding( undecided)?">\s*<th scope="row">([^<]*)<\/th>\s*<td class="value">([^<]*)<\/td>([\s\S]*?)<\/td>\s*<\/tr>\s*(?=<tr class="finding|<\/tbody>)/g,
    ),
  ].map((m) => ({
    undecided: m[1] !== undefined,
    label: m[2]!,
    value: m[3]!,
    html: m[4]!,
  }));
}

describe('writeReports', () => {
  let run: SampleRun | null = null;
  afterEach(async () => {
    await run?.cleanup();
    run = null;
  });

  it('writes results.json (valid, pretty), junit.xml and index.html into the run directory', async () => {
    run = await writeSampleRun();
    expect((await readdir(run.runDir)).sort()).toEqual([
      'index.html',
      'junit.xml',
      'observations.ndjson.gz',
      'results.json',
    ]);
    const text = await readFile(run.files.results, 'utf8');
    expect(text.startsWith('{\n  "schema": "tiergate/results@2",')).toBe(true);
    const parsed = resultsSchema.safeParse(JSON.parse(text));
    expect(parsed.success).toBe(true);
    expect(parsed.data?.checks).toHaveLength(run.results.checks.length);
    expect(parsed.data?.counts).toEqual(run.results.counts);
  });

  it('refuses results that do not match the schema (a tiergate bug), writing nothing', async () => {
    run = await writeSampleRun();
    const broken = { ...sampleResults(), verdict: 'skipped' } as unknown as Parameters<typeof renderHtml>[0];
    const dir = join(run.root, 'broken');
    await expect(writeReports(broken, dir)).rejects.toThrow(/verdict/);
    await expect(stat(dir)).rejects.toThrow();
  });

  it('makes one self-contained HTML file: no URL is ever fetched', async () => {
    run = await writeSampleRun();
    const html = await readFile(run.files.html, 'utf8');
    const fetched = [...html.matchAll(FETCHING_ATTRIBUTE)].map((m) => m[3] ?? m[4] ?? m[5] ?? '');
    expect(fetched.length).toBeGreaterThan(0);
    for (const value of fetched) expect(value.startsWith('#') || value.startsWith('data:'), value).toBe(true);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/@import|@font-face/i);
    expect(html).not.toMatch(/<(img|iframe|object|embed|video|audio|source|base)\b/i);
    expect(html).not.toMatch(/<script[^>]*\ssrc/i);
    expect(html).not.toMatch(/<link(?![^>]*href="data:)[^>]*>/i);
    // The Content-Security-Policy blocks any load that might slip in later.
    expect(html).toContain(`content="default-src 'none';`);
  });

  it('shows the matrix (every check × tier) and every chart, drawn from data', async () => {
    run = await writeSampleRun();
    const html = await readFile(run.files.html, 'utf8');
    const ids = [...new Set(run.results.checks.map((c) => c.id))];
    const columns = 4; // three tiers and 'all' (AUTH-KEY-FORMAT is not per tier)
    expect(html.match(/<td class="cell">/g)).toHaveLength(ids.length * columns);
    expect(html).toMatch(/<a class="cell-link v-fail" href="#r-QUOTA-READ-starter-sequential"/);
    // QUOTA-READ starter and professional, QUOTA-INGEST, and HDR-REMAINING's bare series.
    expect(html.match(/class="chart quota-chart"/g)).toHaveLength(4);
    expect(html.match(/class="chart revocation-trials-chart"/g)).toHaveLength(1);
    expect(html.match(/class="chart revocation-cdf-chart"/g)).toHaveLength(1);
    expect(html.match(/class="chart timeline-chart"/g)).toHaveLength(1);
    expect(html.match(/class="chart latency-chart"/g)).toHaveLength(1);
    expect(html.match(/class="chart concurrency-chart"/g)).toHaveLength(1);
    expect(html.match(/data-band="extra-window"/g)).toHaveLength(1);
    expect(html.match(/data-trial="/g)).toHaveLength(60);
    expect(html).toContain('first 429: #60 (early)');
    // Evidence rows come from observations.ndjson.
    expect(html).toMatch(/<tr class="s-rate-limited"><td class="num">60<\/td>/);
    expect(html).not.toContain('the observations file was not available');
  });

  it('answers first: the gate, the answers and the matrix, what to do, then the profile, the writes and the evidence', () => {
    const footprint: Footprint = {
      writes: 'own',
      written: [{ tier: 'starter', endpoint: 'POST /recruiter/jobs/create', sent: 1, admitted: 1 }],
      announced: [],
      created: [],
      keys: { provisioned: 0, revoked: 0 },
    };
    const declaredLimits: ValidResults['declaredLimits'] = [
      { org: 'starter-a', tier: 'starter', limits: { read: 60 } },
    ];
    const html = renderHtml({ ...sampleResults({ declaredLimits }), footprint }, emptyDigest(1000));
    const order = ['summary', 'matrix', 'what-to-do', 'limiter', 'declared-limits', 'footprint', 'charts', 'details'];
    const at = order.map((id) => html.indexOf(`<section id="${id}"`));
    expect(at.every((i) => i > html.indexOf('<header class="run-header'))).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // The contents list them in the same order.
    const toc = html.slice(html.indexOf('<nav class="toc"'), html.indexOf('</nav>'));
    const listed = [...toc.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(listed.filter((id) => order.includes(id))).toEqual(order);
  });

  it('says what to do for every result that did not pass: one entry each, worst first, skipped apart', () => {
    const results = sampleResults();
    const section = sectionOf(renderHtml(results, emptyDigest(1000)), 'what-to-do');
    const entries = [...section.matchAll(/<li class="open-result">([\s\S]*?)<\/li>/g)].map((m) => ({
      verdict: /<span class="badge badge-small v-(\w+)">/.exec(m[1]!)![1],
      name: /<a href="([^"]+)"><code>([^<]*)<\/code><\/a>/.exec(m[1]!)!.slice(1),
      expectedActual: m[1]!.includes('<dl class="expected-actual">'),
      note: m[1]!.includes('<p class="note">'),
    }));
    expect(entries.map((e) => [e.verdict, ...e.name])).toEqual([
      ['fail', '#r-QUOTA-READ-starter-sequential', 'QUOTA-READ [starter] sequential'],
      ['inconclusive', '#r-HDR-LIMIT-enterprise', 'HDR-LIMIT [enterprise]'],
      ['inconclusive', '#r-HDR-RESET-professional', 'HDR-RESET [professional]'],
      ['inconclusive', '#r-QUOTA-READ-enterprise-sequential', 'QUOTA-READ [enterprise] sequential'],
      ['skipped', '#r-ROTATION-starter', 'ROTATION [starter]'],
      ['skipped', '#r-LOAD-THRESHOLDS-enterprise', 'LOAD-THRESHOLDS [enterprise]'],
    ]);
    // A result that ran shows what was expected and seen; one that did not, only why.
    expect(entries.map((e) => e.expectedActual)).toEqual([true, true, true, true, false, false]);
    expect(entries.map((e) => e.note)).toEqual([false, true, true, true, true, true]);
    // The skipped ones sit in a list of their own, folded.
    expect(section.slice(section.indexOf('<details class="skipped-list">')).match(/class="open-result"/g)).toHaveLength(
      2,
    );
    // Every link leads to a result's evidence in the report.
    const html = renderHtml(results, emptyDigest(1000));
    for (const entry of entries) expect(html).toContain(`id="${entry.name[0]!.slice(1)}"`);
  });

  it("gives each open result's reason codes with what to change, as tiergate explain does", () => {
    const base = sampleResults();
    const stuck = base.checks.findIndex((r) => r.verdict === 'inconclusive');
    const checks = base.checks.map((r, i) =>
      i === stuck ? { ...r, reasons: [because('no-fresh-window', { detail: 'no window within 11 s' })] } : r,
    );
    const section = sectionOf(renderHtml({ ...base, checks }, emptyDigest(1000)), 'what-to-do');
    const advice = [...section.matchAll(/<div class="advice">([\s\S]*?)<\/div>/g)].map((m) => m[1]!);
    expect(advice).toHaveLength(1);
    expect(advice[0]).toContain('<code>tiergate explain no-fresh-window</code>');
    // Each way out is an item, its config fields set as code.
    const items = [...advice[0]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    expect(items).toHaveLength(reasonDefinition('no-fresh-window').change.length);
    expect(items[0]).toContain('<code>orgs</code>');
  });

  it('leaves out what to do when every result passed', () => {
    const results = sampleResults();
    const passed = { ...results, checks: results.checks.filter((r) => r.verdict === 'pass') };
    const html = renderHtml(passed, emptyDigest(1000));
    expect(html).not.toContain('id="what-to-do"');
    expect(html).not.toContain('#what-to-do');
  });

  it('renders without observations.ndjson, saying what is missing', async () => {
    run = await writeSampleRun({ observations: false });
    const html = await readFile(run.files.html, 'utf8');
    expect(html).toContain('the observations file was not available');
    expect(html).toContain('class="chart quota-chart"');
    expect(html).not.toContain('class="chart timeline-chart"');
    // The profile's answers still name their deciding observations.
    expect(sectionOf(html, 'limiter')).toContain('the deciding observations are ids 453, 454.');
  });

  it('shows how the server limits: a card per profile, every answer with its value, how and evidence', async () => {
    run = await writeSampleRun();
    const html = await readFile(run.files.html, 'utf8');
    expect(html).toContain('<a href="#limiter">How it limits</a>');

    const section = sectionOf(html, 'limiter');
    expect(section).toContain('<h2>How this server limits</h2>');
    expect(section.match(/<article class="profile-card"/g)).toHaveLength(1);
    expect(section).toContain('id="profile-starter-starter-a"');
    expect(section).toContain('learned on starter-a in 4.2 s, 23 requests; window 60 s');
    expect(section).toContain('<span class="tag tag-unknown">2 unknown</span>');
    const rows = findingRows(section);
    expect(rows.map((r) => [r.label, r.value])).toEqual([
      ['rate-limit headers', 'present'],
      ['read Limit', '60'],
      ['read Reset', 'epoch-seconds'],
      ['read Reset within a window', 'holds still'],
      ['read windows', 'fixed, start at the first counted request'],
      ['ingest Limit', '10'],
      ['ingest Reset', 'epoch-seconds'],
      ['ingest Reset within a window', 'unknown'],
      ['ingest windows', 'fixed, aligned to the clock'],
      ['HEAD counted', 'yes'],
      ['404 counted', 'no'],
      ['403 counted', 'no'],
      ['401 counted', 'no'],
      ['429 counted', 'unknown'],
      ['read endpoints', 'one shared counter'],
      ['read vs ingest', 'independent counters and windows'],
      ['beyond the cap', 'refused with 429'],
    ]);
    // An answer: its sentence, and its deciding observations as a check's evidence rows (from observations.ndjson).
    const head = rows.find((r) => r.label === 'HEAD counted')!;
    expect(head.undecided).toBe(false);
    expect(head.html).toContain('<p class="how">Remaining fell from 59 to 58 across the HEAD</p>');
    expect(head.html).toContain('<summary>observations #453, #454</summary>');
    expect(head.html).toContain('<caption>Deciding observations (2)</caption>');
    expect(head.html).toMatch(
      /<tr class="s-ok"><td class="num">454<\/td>.*<code>HEAD \/recruiter\/bootstrap<\/code>.*<td class="num">58<\/td>/,
    );
    // Left open: "unknown", the reason, no evidence.
    const rejected = rows.find((r) => r.label === '429 counted')!;
    expect(rejected.undecided).toBe(true);
    expect(rejected.html).toContain(
      'the discovery stopped before the read quota ran out: no 429 was seen to count or not',
    );
    expect(rejected.html).not.toContain('<details');
    expect(rows.filter((r) => r.undecided).map((r) => r.label)).toEqual([
      'ingest Reset within a window',
      '429 counted',
    ]);
  });

  it('shows an evidence id that is not in the observations file as such, and escapes what a profile says', async () => {
    run = await writeSampleRun();
    const profile = {
      ...SAMPLE_PROFILE,
      tier: 'professional' as const,
      org: 'professional-a',
      headers: { value: true, how: '<b>present</b> on every response', evidence: [454, 99_999] },
    };
    const results = { ...sampleResults(), profiles: [SAMPLE_PROFILE, profile] };
    const section = sectionOf(renderHtml(results, await digestFor(results, run.runDir)), 'limiter');
    expect(section.match(/<article class="profile-card"/g)).toHaveLength(2);
    const headers = findingRows(section.slice(section.indexOf('id="profile-professional-professional-a"')))[0]!;
    expect(headers.html).toContain('&lt;b&gt;present&lt;/b&gt; on every response');
    expect(headers.html).toMatch(/<td class="num">454<\/td>/);
    expect(headers.html).toMatch(/<tr class="s-missing"><td class="num">99999<\/td>.*not in the observations file/);
  });

  it("names the embedded target's faults and conformant variants in banners, and neither when it has none", () => {
    const banners = (html: string) =>
      [...html.matchAll(/<div class="banner banner-info"><strong>([^<]*)<\/strong> ([\s\S]*?)<\/div>/g)].map((m) => ({
        title: m[1]!,
        body: m[2]!,
      }));
    const base = sampleResults();
    expect(banners(renderHtml(base, emptyDigest(1000)))).toEqual([]);

    const target = {
      ...base.target,
      faults: ['reset-drifts' as const],
      variants: ['first-request-windows' as const, 'head-counts' as const],
    };
    const shown = banners(renderHtml({ ...base, target }, emptyDigest(1000)));
    expect(shown.map((b) => b.title)).toEqual([
      'Faults injected into the embedded target:',
      'Conformant variants of the embedded target:',
    ]);
    expect(shown[0]!.body).toMatch(/^<code>reset-drifts<\/code>\. Failures are expected/);
    expect(shown[1]!.body).toMatch(
      /^<code>first-request-windows<\/code>, <code>head-counts<\/code>\. Each keeps every promise of the spec/,
    );

    // Variants alone: their banner, and no fault banner.
    const variantsOnly = banners(
      renderHtml({ ...base, target: { ...base.target, variants: ['counts-errors'] } }, emptyDigest(1000)),
    );
    expect(variantsOnly.map((b) => b.title)).toEqual(['Conformant variants of the embedded target:']);
  });

  it('leaves the section out when the run learned no profile', () => {
    const html = renderHtml(sampleResults({ profiles: [] }), emptyDigest(1000));
    expect(html).not.toContain('id="limiter"');
    expect(html).not.toContain('<h2>How this server limits</h2>');
    expect(html).not.toContain('#limiter');
    expect(html).toContain('<section id="matrix">');
  });

  it('redacts a full key in a result from every file it writes, and from latest/', async () => {
    run = await writeSampleRun();
    const outDir = join(run.root, 'reports');
    await pointLatest(outDir, run.runDir);
    const files = await filesUnder(outDir);
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text.includes(LEAKED_KEY), `${file} holds the full key`).toBe(false);
    }
    for (const file of [run.files.results, run.files.junit, run.files.html]) {
      expect(await readFile(file, 'utf8'), file).toContain(LEAKED_KEY_REDACTED);
    }
  });

  it('escapes every value from the results: markup in a result stays text', () => {
    const results = sampleResults();
    const hostile = {
      ...results,
      checks: results.checks.map((c, i) =>
        i === 0 ? { ...c, actual: '<script>alert(1)</script>', notes: ['<img src=x onerror=alert(2)>'] } : c,
      ),
    };
    const html = renderHtml(hostile, emptyDigest(1000));
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(2)&gt;');
    expect(html).not.toMatch(/<img/);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});

describe('renderFromResultsFile', () => {
  let run: SampleRun | null = null;
  afterEach(async () => {
    await run?.cleanup();
    run = null;
  });

  it('re-renders index.html and junit.xml beside the results, or into outDir', async () => {
    run = await writeSampleRun();
    const first = await readFile(run.files.html, 'utf8');
    const beside = await renderFromResultsFile(run.files.results);
    expect(beside.html).toBe(run.files.html);
    expect(await readFile(beside.html, 'utf8')).toBe(first);

    const outDir = join(run.root, 'elsewhere');
    const moved = await renderFromResultsFile(run.files.results, { outDir });
    expect((await readdir(outDir)).sort()).toEqual(['index.html', 'junit.xml']);
    // Observations are still read from beside results.json: the evidence rows are there.
    expect(await readFile(moved.html, 'utf8')).toBe(first);
    expect(await readFile(moved.junit, 'utf8')).toBe(await readFile(run.files.junit, 'utf8'));
  });

  it('rejects a missing or invalid results file with UsageError TG_RESULTS_FILE', async () => {
    run = await writeSampleRun({ observations: false });
    for (const file of [join(run.root, 'nope.json'), run.files.junit]) {
      const error = await renderFromResultsFile(file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).code).toBe('TG_RESULTS_FILE');
      expect((error as UsageError).message).toContain(file);
    }
  });
});

describe('the SLA evidence page', () => {
  it('says where the clock starts, from what REVOKE-LATENCY noted of its trials', () => {
    const section = sectionOf(renderHtml(sampleResults(), emptyDigest(1000)), 'sla');
    expect(section).toContain('<dt>Where the clock starts</dt>');
    expect(section).toMatch(
      /<dd class="sla-clock">Every bound counts from when the revoke call was sent, on a connection already open \(no handshake inside it\)\. The revocation cannot take effect before the server has received the call/,
    );
  });
});
