/**
 * Opens a generated report in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core; never `playwright install`): no console errors, no request but the file itself,
 * the matrix and every chart drawn with data, a failing check's detail reachable from the matrix,
 * the limiter profile's answers with their evidence. Saves reports/screenshots/report.png,
 * failing-detail.png and limiter-profile.png for a person to look at.
 * At 1366 × 768, a full three-tier report shows the gate, the answers and the whole matrix on its
 * first screen (with a header dialect declared, the line saying so too), whose picture is
 * docs/images/report.png. To draw that picture again:
 *   TIERGATE_UPDATE_SCREENSHOT=1 npx vitest run test/report/browser.test.ts
 * Without Chromium: fails in CI (CI=true), skips with the reason elsewhere.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/catalogue/types.ts';
import { quotaChartData } from '../../src/report/charts/quota.ts';
import { fullRunResults, writeSampleRun, type SampleRun } from './fixtures.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOTS = new URL('../../reports/screenshots/', import.meta.url);
/** The first screen of the full three-tier report, as the README shows it. */
const FIRST_SCREEN_PNG = new URL('../../docs/images/report.png', import.meta.url);
const FIRST_SCREEN = { width: 1366, height: 768 } as const;
const available = existsSync(CHROMIUM);
// Scripts run in the page (as text: this project type-checks without the DOM library).
const OPEN_ALL = "document.querySelectorAll('details').forEach((d) => { d.open = true; })";
const CLOSE_ALL = "document.querySelectorAll('details').forEach((d) => { d.open = false; })";
const missing = `${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium), as .ci/run does`;

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);
afterAll(async () => {
  if (available) await browser.close();
});

describe('the HTML report in a browser', () => {
  let run: SampleRun;
  let page: Page;
  let fileUrl: string;
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  const blocked: string[] = [];

  beforeAll(async () => {
    if (!available) return;
    run = await writeSampleRun();
    fileUrl = pathToFileURL(run.files.html).href;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    // Every request is routed: the report file itself may load, anything else is refused and recorded.
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === fileUrl) return route.continue();
      blocked.push(url);
      return route.abort('blockedbyclient');
    });
    await page.goto(fileUrl, { waitUntil: 'load' });
  }, 60_000);

  afterAll(async () => {
    await run?.cleanup();
  });

  it('has Chromium to run with', (context) => {
    if (available) return;
    if (process.env.CI === 'true') expect.fail(missing);
    context.skip(missing);
  });

  it.runIf(available)('loads with no console error and no request but the file itself', async () => {
    await page.waitForLoadState('networkidle');
    expect(consoleErrors).toEqual([]);
    expect(blocked).toEqual([]);
    expect(requests).toEqual([fileUrl]);
    requests.length = 0;
  });

  it.runIf(available)('shows the gate verdict and the requirement matrix: every check × tier', async () => {
    await expect(page.locator('.run-header .badge-big').textContent()).resolves.toContain('fail');
    const ids = [...new Set(run.results.checks.map((c) => c.id))];
    const rows = page.locator('table.matrix tbody tr');
    expect(await rows.count()).toBe(ids.length);
    expect(await page.locator('table.matrix thead th.tier').allTextContents()).toEqual([
      'starter',
      'professional',
      'enterprise',
      'all',
    ]);
    expect(await page.locator('table.matrix a.cell-link').count()).toBe(
      new Set(run.results.checks.map((c) => `${c.id} ${c.tier ?? 'all'}`)).size,
    );
    expect(await page.locator('table.matrix a.cell-link.v-fail').count()).toBe(1);
  });

  it.runIf(available)('draws every chart, with data', async () => {
    const count = (selector: string) => page.locator(selector).count();
    expect(await count('svg.chart')).toBe(9);
    expect(await count('svg.timeline-chart rect[data-status]')).toBeGreaterThan(3);
    // QUOTA-READ, AUTH-MALFORMED, SCOPE-ENFORCED, REVOKE-LATENCY and the limiter discovery (PROFILE).
    expect(await count('svg.latency-chart g.latency-row')).toBe(5);
    const points = run.results.checks.reduce((n, c) => n + (quotaChartData(c)?.series.length ?? 0), 0);
    expect(points).toBe(61 + 301 + 12 + 301);
    expect(await count('svg.quota-chart [data-n]')).toBe(points);
    expect(await count('svg.revocation-trials-chart [data-trial]')).toBe(60);
    expect(await count('svg.revocation-cdf-chart path[data-edge]')).toBe(3);
    expect(await count('svg.concurrency-chart rect[data-role]')).toBe(7);
    // Every chart has a visible size once its details are open.
    await page.evaluate(OPEN_ALL);
    const boxes: { width: number; height: number }[] = await page
      .locator('svg.chart')
      .evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().toJSON()));
    for (const box of boxes) {
      expect(box.width).toBeGreaterThan(300);
      expect(box.height).toBeGreaterThan(100);
    }
  });

  it.runIf(available)('opens a failing check from its matrix cell, and saves screenshots', async () => {
    await page.reload({ waitUntil: 'load' });
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: new URL('report.png', SCREENSHOTS).pathname, fullPage: true });
    // A reader who collapsed everything, then clicks the red cell.
    await page.evaluate(CLOSE_ALL);

    const cell = page.locator('table.matrix a.cell-link.v-fail');
    const anchor = (await cell.getAttribute('href'))!.slice(1);
    expect(anchor).toBe('r-QUOTA-READ-starter-sequential');
    const detail = page.locator(`[id="${anchor}"]`);
    expect(await detail.isVisible()).toBe(false); // collapsed above
    await cell.click();
    await expect.poll(() => detail.evaluate((el) => el.closest('details')?.hasAttribute('open') === true)).toBe(true);
    expect(await detail.isVisible()).toBe(true);
    const top = await detail.evaluate((el) => el.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(900);
    const text = await detail.textContent();
    expect(text).toContain('429 1 request early (at request 60, Limit 60)');
    expect(await detail.locator('svg.quota-chart').count()).toBe(1);
    expect(await detail.locator('table.evidence tbody tr').count()).toBe(2);
    await page.evaluate("document.querySelectorAll('.flash').forEach((el) => el.classList.remove('flash'))");
    await detail.screenshot({ path: new URL('failing-detail.png', SCREENSHOTS).pathname });
    // Reloading and clicking fetched nothing either.
    expect(requests.every((url) => url === fileUrl)).toBe(true);
    expect(blocked).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it.runIf(available)('shows how the server limits: every answer, and its evidence one click away', async () => {
    await page.reload({ waitUntil: 'load' });
    const section = page.locator('section#limiter');
    expect(await section.locator('h2').textContent()).toBe('How this server limits');
    const card = section.locator('article.profile-card');
    expect(await card.count()).toBe(1);
    expect(await card.locator('tr.finding').count()).toBe(17);
    expect(await card.locator('tr.finding.undecided > th').allTextContents()).toEqual([
      'ingest Reset within a window',
      '429 counted',
    ]);
    // From the contents to the section.
    await page.locator('nav.toc a[href="#limiter"]').click();
    await expect.poll(() => section.evaluate((el) => Math.round(el.getBoundingClientRect().top))).toBeLessThan(200);
    // The evidence of an answer opens into the observation rows, as a check's does.
    const head = card.locator('tr.finding', { has: page.locator('th', { hasText: 'HEAD counted' }) });
    const evidence = head.locator('details.profile-evidence');
    expect(await evidence.locator('table.evidence').isVisible()).toBe(false);
    await evidence.locator('summary').click();
    expect(await evidence.locator('table.evidence tbody tr').count()).toBe(2);
    expect(await evidence.locator('table.evidence').isVisible()).toBe(true);
    await page.evaluate("document.querySelectorAll('.flash').forEach((el) => el.classList.remove('flash'))");
    await mkdir(SCREENSHOTS, { recursive: true });
    await card.screenshot({ path: new URL('limiter-profile.png', SCREENSHOTS).pathname });
    expect(requests.every((url) => url === fileUrl)).toBe(true);
    expect(blocked).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it.runIf(available)(
    'prints the SLA evidence: its own page, claim, method, bounds, every trial and the evidence hashes, nothing behind a click; to PDF',
    async () => {
      await page.emulateMedia({ media: 'print' });
      const sla = page.locator('#sla article.sla-page');
      expect(await sla.count()).toBe(1);
      // In the page (this project type-checks without the DOM library): the computed break before it.
      const breakBefore = await sla.evaluate(
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { breakBefore: string } }).getComputedStyle(el)
            .breakBefore,
      );
      expect(breakBefore).toBe('page');
      const text = (await sla.innerText()).replace(/\s+/g, ' ');
      expect(text).toContain('A revoked API key stops working on every edge node in under 3 s (spec §5.9, §8.3).');
      expect(text).toContain('Revocation latency');
      expect(text).toContain('lower bound = send time of the last admitted probe');
      // The sample's 20 trials on 3 edges: one row per edge, one per trial and edge, each visible on paper.
      expect(await sla.locator('table.sla-edges tbody tr').count()).toBe(3);
      expect(await sla.locator('table.sla-trials tbody tr').count()).toBe(60);
      expect(await sla.locator('details').count()).toBe(0);
      // The hash shown is the file's, computed here.
      const resultsHash = createHash('sha256').update(readFileSync(run.files.results)).digest('hex');
      expect(await sla.locator('table.sla-files').innerText()).toContain(resultsHash);
      expect(text).toContain(
        "tiergate verify <the folder of run 20260302-100000-5a1e> [--public-key <the signer's public key, for a signed run>]",
      );
      const pdf = await page.pdf({ format: 'A4', printBackground: true });
      await mkdir(SCREENSHOTS, { recursive: true });
      writeFileSync(new URL('sla-evidence.pdf', SCREENSHOTS), pdf);
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // The report, then the SLA page on pages of its own: more than one page.
      expect((pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length).toBeGreaterThan(1);
      await page.emulateMedia({ media: 'screen' });
    },
  );
});

/** A box of the page at its top, as the browser lays it out. */
interface Box {
  readonly top: number;
  readonly bottom: number;
}

/** PNG width and height, from the IHDR chunk that follows the 8-byte signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe.runIf(available)('the first screen of a full three-tier report, at 1366 × 768', () => {
  let run: SampleRun;
  let page: Page;
  const boxes = (selector: string): Promise<Box[]> =>
    page.locator(selector).evaluateAll((els) =>
      els.map((el) => {
        const { top, bottom } = el.getBoundingClientRect();
        return { top, bottom };
      }),
    );

  beforeAll(async () => {
    run = await writeSampleRun({ results: fullRunResults() });
    const context = await browser.newContext({ viewport: FIRST_SCREEN, deviceScaleFactor: 1 });
    page = await context.newPage();
    await page.goto(pathToFileURL(run.files.html).href, { waitUntil: 'load' });
  }, 60_000);

  afterAll(async () => {
    await page?.context().close();
    await run?.cleanup();
  });

  it('shows the gate, the three answers and every row of the requirement matrix', async () => {
    const rows = await boxes('table.matrix tbody tr');
    expect(rows).toHaveLength(CHECK_IDS.length);
    const shown = [
      ...(await boxes('.run-header .gate')),
      ...(await boxes('#summary .answer')),
      ...(await boxes('table.matrix thead tr')),
      ...rows,
    ];
    expect(shown).toHaveLength(1 + 3 + 1 + CHECK_IDS.length);
    for (const box of shown) {
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.bottom).toBeLessThanOrEqual(FIRST_SCREEN.height);
    }
  });

  it('with a header dialect declared, says so on that screen and still shows the whole matrix there', async () => {
    const declared = await writeSampleRun({
      results: {
        ...fullRunResults(),
        headers: { declared: 'ietf', spec: 'x-ratelimit', policies: { read: 'permin' } },
      },
    });
    const other = await page.context().newPage();
    try {
      await other.goto(pathToFileURL(declared.files.html).href, { waitUntil: 'load' });
      const fact = other.locator('.run-facts .fact.warn', { hasText: 'Rate-limit headers' });
      await expect(fact.textContent()).resolves.toContain('ietf judged');
      const shown = await other
        .locator(
          '.run-header .gate, #summary .answer, table.matrix thead tr, table.matrix tbody tr, .run-facts .fact.warn',
        )
        .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().bottom));
      expect(shown).toHaveLength(1 + 3 + 1 + CHECK_IDS.length + 1);
      for (const bottom of shown) expect(bottom).toBeLessThanOrEqual(FIRST_SCREEN.height);
    } finally {
      await other.close();
      await declared.cleanup();
    }
  });

  it('starts every profile table below the end of the matrix', async () => {
    const [matrix] = await boxes('table.matrix');
    const profiles = await boxes('#limiter table.profile-findings');
    expect(profiles.length).toBeGreaterThan(0);
    for (const table of profiles) expect(table.top).toBeGreaterThanOrEqual(matrix!.bottom);
  });

  it('keeps the picture of that screen in docs/images/report.png', async () => {
    if (process.env.TIERGATE_UPDATE_SCREENSHOT === '1') {
      await mkdir(new URL('.', FIRST_SCREEN_PNG), { recursive: true });
      await page.screenshot({ path: FIRST_SCREEN_PNG.pathname });
    }
    expect(existsSync(FIRST_SCREEN_PNG), 'docs/images/report.png: run the update command at the top').toBe(true);
    expect(pngSize(readFileSync(FIRST_SCREEN_PNG))).toEqual(FIRST_SCREEN);
  });
});
