/**
 * The variant matrix: behaviours the spec allows that the default reference target does not show
 * (windows from the first request, HEAD counted, class windows apart, 429s and errors counted), alone
 * and combined as express-rate-limit behaves. Every check passes (a variant keeps the spec), and the
 * limiter profile names what the variant shows.
 */
import { describe, expect, it } from 'vitest';
import { variantCatalogue, type VariantName } from '../../src/reference-server/variants.ts';
import { runSuite } from '../../src/run/run.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { VARIANT_PROFILES, profileComparison } from './limiter-profiles.ts';

/** express-rate-limit's MemoryStore in front of everything: all of the counting variants at once. */
const EXPRESS_LIKE: readonly VariantName[] = ['first-request-windows', 'head-counts', 'counts-rejected', 'counts-errors'];

const cases: [string, readonly VariantName[]][] = [...variantCatalogue.map((v) => [v.name, [v.name]] as [string, VariantName[]]), ['express-like', EXPRESS_LIKE]];

describe.concurrent('variant matrix (starter tier)', () => {
  it.each(cases)('%s', async (_label, variants) => {
    const { io } = captureIo();
    const outcome = await runSuite(shortRun(tempReportsDir(), { tiers: ['starter'], variants }), io);
    const results = outcome.results!;
    const wrong = results.checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.id}${c.variant ? `/${c.variant}` : ''} ${c.verdict}: ${c.actual}`);
    expect(wrong).toEqual([]);
    // A HEAD that counts keeps the spec; the check that tests the assumption says it broke.
    const head = results.checks.find((c) => c.id === 'HEAD-BOOTSTRAP')!;
    expect(head.notes.some((n) => n.startsWith('assumption, not spec'))).toBe(variants.includes('head-counts'));
    expect(results.profiles).toHaveLength(1);
    const shown = Object.assign({}, ...variants.map((v) => VARIANT_PROFILES[v]));
    const comparison = profileComparison(results.profiles[0]!, shown);
    expect(comparison.actual).toEqual(comparison.expected);
  }, 90_000);
});
