/**
 * The variant matrix: behaviours the spec allows that the default reference target does not show
 * (windows from the first request, HEAD counted, class windows apart, 429s and errors counted, a cap
 * that queues, bulk uploads parsed before their answer), alone and combined as express-rate-limit behaves. Every check passes (a variant keeps
 * the spec), and the limiter profile names what the variant shows; the cap's answer is learned by
 * CONCURRENCY-CAP (what it teaches the profile, learnedConcurrency).
 */
import { describe, expect, it } from 'vitest';
import { variantCatalogue, type VariantName } from '../../src/reference-server/variants.ts';
import { runSuite } from '../../src/run/run.ts';
import { learnedConcurrency } from '../../src/verdicts/concurrency-cap.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { VARIANT_PROFILES, profileComparison } from './limiter-profiles.ts';

/** express-rate-limit's MemoryStore in front of everything: all of the counting variants at once. */
const EXPRESS_LIKE: readonly VariantName[] = [
  'first-request-windows',
  'head-counts',
  'counts-rejected',
  'counts-errors',
];

const cases: [string, readonly VariantName[]][] = [
  ...variantCatalogue.map((v) => [v.name, [v.name]] as [string, VariantName[]]),
  ['express-like', EXPRESS_LIKE],
];

/**
 * Bulk uploads that take a parse time too, near the slowest parser the 2 s window allows the starter
 * tier (its single uploads need 5 upload times: at most 380 ms each): both kinds of upload slow, every
 * ingest check still decided. 250 ms leaves room for a loaded machine's round trips (at 300 ms a
 * fresh-clone run measured 388.9 ms an upload, and the single-upload checks rightly did not run).
 */
const PARSE_MS: Partial<Record<string, number>> = { 'synchronous-bulk': 250 };

describe.concurrent('variant matrix (starter tier)', () => {
  it.each(cases)(
    '%s',
    async (label, variants) => {
      const { io } = captureIo();
      const outcome = await runSuite(
        shortRun(tempReportsDir(), { tiers: ['starter'], variants, parseMs: PARSE_MS[label] }),
        io,
      );
      const results = outcome.results!;
      const wrong = results.checks
        .filter((c) => c.verdict !== 'pass')
        .map((c) => `${c.id}${c.variant ? `/${c.variant}` : ''} ${c.verdict}: ${c.actual}`);
      expect(wrong).toEqual([]);
      // A HEAD that counts keeps the spec; the check that tests the assumption says it broke.
      const head = results.checks.find((c) => c.id === 'HEAD-BOOTSTRAP')!;
      expect(head.reasons.some((r) => r.code === 'head-counts-as-read')).toBe(variants.includes('head-counts'));
      // A cap that queues keeps the spec too: held until a slot frees, against a control answered at once.
      const cap = results.checks.find((c) => c.id === 'CONCURRENCY-CAP')!;
      const queues = variants.includes('cap-queues');
      expect(cap.reasons.some((r) => r.code === 'cap-queues')).toBe(queues);
      expect(learnedConcurrency(cap).value).toEqual(queues ? { kind: 'queues' } : { kind: 'refuses', status: 429 });
      expect(results.profiles).toHaveLength(1);
      expect(results.profiles[0]!.concurrency.value).toEqual(learnedConcurrency(cap).value);
      const shown = Object.assign({}, ...variants.map((v) => VARIANT_PROFILES[v]));
      const comparison = profileComparison(results.profiles[0]!, shown);
      expect(comparison.learned).toEqual(comparison.wanted);
    },
    90_000,
  );
});
