/**
 * A declared header dialect, said where a reader looks first: one line in the report's header facts
 * (the first screen), the terminal summary and the job summary, naming the dialect judged and the
 * departure from §8's names; nothing where §8's triple was judged, declared or not.
 */
import { describe, expect, it } from 'vitest';
import { declaredDialectText } from '../../src/report/header-dialect.ts';
import { emptyDigest } from '../../src/report/observation-digest.ts';
import { plain } from '../../src/report/palette.ts';
import { renderHtml } from '../../src/report/render.ts';
import { stepSummary } from '../../src/report/step-summary.ts';
import { terminalSummary } from '../../src/report/terminal-summary.ts';
import { buildReportView } from '../../src/report/view.ts';
import type { HeaderDialects, ValidResults } from '../../src/results/types.ts';
import { sampleResults } from '../helpers/sample-results.ts';

const IETF: HeaderDialects = { declared: 'ietf', spec: 'x-ratelimit', policies: {} };
const LINE = "ietf judged: the deployment departs from §8's X-RateLimit-* header names by declaration";
const withHeaders = (headers: HeaderDialects | undefined): ValidResults => ({ ...sampleResults(), headers });

describe('the declared header dialect in one line', () => {
  it('names the dialect judged and the departure, with the policies named by class in class order', () => {
    expect(declaredDialectText(IETF)).toBe(LINE);
    const named = { ...IETF, policies: { ingest: 'uploads', read: 'permin' } };
    expect(declaredDialectText(named)).toBe(`${LINE}; policies by name: read "permin", ingest "uploads"`);
  });

  it("is nothing where §8's triple was judged: none declared, x-ratelimit declared, or results from before", () => {
    expect(declaredDialectText({ ...IETF, declared: null })).toBeNull();
    expect(declaredDialectText({ ...IETF, declared: 'x-ratelimit' })).toBeNull();
    expect(declaredDialectText(undefined)).toBeNull();
  });
});

describe('the report, the terminal and the job summary', () => {
  it("the report's header facts say it, marked, beside the contract", () => {
    const facts = buildReportView(withHeaders(IETF), emptyDigest(1000)).facts;
    const contract = facts.findIndex((f) => f.label === 'Contract');
    expect(facts[contract + 1]).toEqual({ label: 'Rate-limit headers', value: LINE, warn: true, long: true });
    const html = renderHtml(withHeaders(IETF), emptyDigest(1000));
    const header = html.slice(html.indexOf('<header'), html.indexOf('</header>'));
    expect(header).toContain('<dt>Rate-limit headers</dt><dd>ietf judged: the deployment departs from §8&#x27;s');
  });

  it('the report has no such fact where nothing departs from §8', () => {
    for (const headers of [undefined, { ...IETF, declared: null }]) {
      const facts = buildReportView(withHeaders(headers), emptyDigest(1000)).facts;
      expect(facts.map((f) => f.label)).not.toContain('Rate-limit headers');
    }
  });

  it('the terminal and the job summary add the line before the matrix, and only when declared', () => {
    const terminal = terminalSummary(withHeaders(IETF), '/r', { paint: plain, cwd: '/' }).split('\n');
    const line = terminal.indexOf(`Rate-limit headers: ${LINE}`);
    expect(line).toBeGreaterThan(0);
    expect(line).toBeLessThan(terminal.findIndex((l) => l.startsWith('check ')));
    const summary = stepSummary(withHeaders(IETF), '/r', '/').split('\n');
    expect(summary).toContain(`**Rate-limit headers:** ${LINE.replace(/\*/g, '\\*')}`);
    for (const headers of [undefined, { ...IETF, declared: null }]) {
      expect(terminalSummary(withHeaders(headers), '/r', { paint: plain, cwd: '/' })).not.toContain('Rate-limit');
      expect(stepSummary(withHeaders(headers), '/r', '/')).not.toContain('Rate-limit');
    }
  });
});
