/**
 * Figures the config declared, shown beside what the server announced: the Limits gathered from
 * observations.ndjson per organization and class, the report's table, and the one line the terminal
 * and the job summary add.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { declaredLimitRows, declaredLimitsText } from '../../src/report/declared-limits.ts';
import { digestObservations, emptyDigest, type ObservationDigest } from '../../src/report/observation-digest.ts';
import { digestFor, renderHtml } from '../../src/report/render.ts';
import { plain } from '../../src/report/palette.ts';
import { stepSummary } from '../../src/report/step-summary.ts';
import { terminalSummary } from '../../src/report/terminal-summary.ts';
import { OBSERVATIONS_FILE } from '../../src/measure/observation-file.ts';
import type { ValidResults } from '../../src/results/types.ts';
import { SAMPLE_PROFILE, sampleResults, writeSampleObservations } from '../helpers/sample-results.ts';

const DECLARED: ValidResults['declaredLimits'] = [
  { org: 'enterprise-a', tier: 'enterprise', limits: { read: 10_000, ingest: 2000, concurrency: 250 } },
  { org: 'professional-a', tier: 'professional', limits: { read: 300 } },
];

let dir: string | null = null;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

async function sampleRunDir(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'tiergate-declared-'));
  await writeSampleObservations(dir);
  return dir;
}

const withAnnounced = (announced: ObservationDigest['announced']): ObservationDigest => ({
  ...emptyDigest(1000),
  available: true,
  announced,
});

describe('the Limits announced to an organization', () => {
  it("are gathered per class from its admitted and 429 answers, a 401's anonymous Limit left out", async () => {
    const runDir = await sampleRunDir();
    const digest = await digestObservations(
      join(runDir, OBSERVATIONS_FILE),
      new Set(),
      185_000,
      new Set(['professional-a', 'starter-a']),
    );
    const of = (org: string) =>
      digest.announced
        .filter((a) => a.org === org)
        .map(({ quotaClass, limit, count }) => ({ quotaClass, limit, count }));
    // professional-a: 300 reads admitted and one 429, every one announcing 300.
    expect(of('professional-a')).toEqual([{ quotaClass: 'read', limit: 300, count: 301 }]);
    // starter-a: its quota check's 61 reads and the discovery's 19 counted reads (its 401 and 403 probes announce none of its own), and one upload.
    expect(of('starter-a')).toEqual([
      { quotaClass: 'read', limit: 60, count: 80 },
      { quotaClass: 'ingest', limit: 10, count: 1 },
    ]);
    expect(of('starter-revocation')).toEqual([]);
  });
});

describe('declaredLimitRows', () => {
  it('puts each declared figure beside the Limits announced for its class, saying whether they agree', () => {
    const digest = withAnnounced([
      { org: 'enterprise-a', quotaClass: 'read', limit: 2500, count: 40 },
      { org: 'enterprise-a', quotaClass: 'read', limit: 10_000, count: 3 },
      { org: 'enterprise-a', quotaClass: 'ingest', limit: 2000, count: 2001 },
    ]);
    expect(declaredLimitRows({ declaredLimits: DECLARED, profiles: [] }, digest)).toEqual([
      {
        tier: 'professional',
        org: 'professional-a',
        figure: 'read',
        declared: 300,
        announced: 'none seen',
        agrees: null,
      },
      {
        tier: 'enterprise',
        org: 'enterprise-a',
        figure: 'read',
        declared: 10_000,
        announced: '2500 (40 answers), 10000 (3 answers)',
        agrees: false,
      },
      {
        tier: 'enterprise',
        org: 'enterprise-a',
        figure: 'ingest',
        declared: 2000,
        announced: '2000 (2,001 answers)',
        agrees: true,
      },
      {
        tier: 'enterprise',
        org: 'enterprise-a',
        figure: 'concurrency',
        declared: 250,
        announced: 'no header announces it (CONCURRENCY-CAP measures it)',
        agrees: null,
      },
    ]);
  });

  it("takes the limiter profile's Limit where the observations are not available and the profile was learned on the organization", () => {
    const rows = declaredLimitRows(
      { declaredLimits: [{ org: 'starter-a', tier: 'starter', limits: { read: 60 } }], profiles: [SAMPLE_PROFILE] },
      emptyDigest(1000),
    );
    expect(rows).toEqual([
      {
        tier: 'starter',
        org: 'starter-a',
        figure: 'read',
        declared: 60,
        announced: '60 (limiter profile)',
        agrees: true,
      },
    ]);
    const elsewhere = declaredLimitRows(
      { declaredLimits: [{ org: 'starter-b', tier: 'starter', limits: { read: 60 } }], profiles: [SAMPLE_PROFILE] },
      emptyDigest(1000),
    );
    expect(elsewhere[0]!.announced).toBe('not known (the observations file was not available)');
  });
});

describe('the report, the terminal and the job summary', () => {
  it('the report shows a table of declared figures beside what the server announced, listed in the contents', async () => {
    const runDir = await sampleRunDir();
    const results = sampleResults({ declaredLimits: DECLARED });
    const html = renderHtml(results, await digestFor(results, runDir));
    expect(html).toContain('<a href="#declared-limits">Declared limits</a>');
    const start = html.indexOf('<section id="declared-limits">');
    expect(start).toBeGreaterThan(html.indexOf('<section id="limiter">'));
    expect(start).toBeLessThan(html.indexOf('<section id="charts">'));
    const rows = [
      ...html
        .slice(start, html.indexOf('</section>', start))
        .matchAll(
          /<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="num">([^<]*)<\/td><td>(.*?)<\/td><\/tr>/g,
        ),
    ].map((m) => m.slice(1));
    expect(rows).toEqual([
      ['professional', 'professional-a', 'read', '300', '300 (301 answers)'],
      ['enterprise', 'enterprise-a', 'read', '10000', 'none seen'],
      ['enterprise', 'enterprise-a', 'ingest', '2000', 'none seen'],
      ['enterprise', 'enterprise-a', 'concurrency', '250', 'no header announces it (CONCURRENCY-CAP measures it)'],
    ]);
    const differing = renderHtml(
      { ...results, declaredLimits: [{ org: 'professional-a', tier: 'professional', limits: { read: 301 } }] },
      await digestFor(results, runDir),
    );
    expect(differing).toContain('<td>300 (301 answers) <span class="tag tag-differs">differs</span></td>');
  });

  it('the report has no such section when nothing was declared', () => {
    const html = renderHtml(sampleResults(), emptyDigest(1000));
    expect(html).not.toContain('id="declared-limits"');
    expect(html).not.toContain('href="#declared-limits"');
  });

  it('the terminal and the job summary add one line naming the declared figures', () => {
    const results = sampleResults({ declaredLimits: DECLARED });
    const line = 'enterprise-a read 10000, ingest 2000, concurrency 250; professional-a read 300';
    expect(declaredLimitsText(results.declaredLimits)).toBe(line);
    expect(terminalSummary(results, '/r', { paint: plain, cwd: '/' }).split('\n')).toContain(
      `Declared limits, judged exactly: ${line}`,
    );
    expect(stepSummary(results, '/r', '/').split('\n')).toContain(`**Declared limits, judged exactly:** ${line}`);
    expect(terminalSummary(sampleResults(), '/r', { paint: plain, cwd: '/' })).not.toContain('Declared limits');
    expect(declaredLimitsText([])).toBeNull();
  });
});
