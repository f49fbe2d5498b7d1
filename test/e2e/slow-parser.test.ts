/**
 * A parser too slow for the window: the ingest checks whose uploads cannot all fit one window are
 * named before any quota is spent, with the figures, and reported inconclusive with them; none of
 * their uploads is sent. (A parser as slow as the window allows is held to every check: the variant
 * matrix's synchronous-bulk case.)
 */
import { describe, expect, it } from 'vitest';
import { runSuite } from '../../src/run/run.ts';
import type { RunEvent } from '../../src/results/events.ts';
import { captureIo } from '../helpers/capture-io.ts';
import { shortRun, tempReportsDir } from '../helpers/run-options.ts';
import { runObservations } from '../helpers/run-files.ts';

describe('a parser too slow for the window', () => {
  it('is named up front, and its ingest checks are not run', async () => {
    const { io } = captureIo();
    const events: RunEvent[] = [];
    const options = shortRun(tempReportsDir(), {
      tiers: ['starter'],
      parseMs: 1500,
      checks: ['QUOTA-INGEST', 'CONCURRENCY-CAP', 'QUOTA-READ'],
      listeners: [(e) => events.push(e)],
    });
    const outcome = await runSuite(options, io);
    const results = outcome.results!;
    // Said before any check ran: one line per ingest task, with its figures.
    const start = events.findIndex((e) => e.type === 'run-start');
    const firstResult = events.findIndex((e) => e.type === 'check-result');
    const warned = events
      .slice(start, firstResult)
      .filter((e): e is Extract<RunEvent, { type: 'warning' }> => e.type === 'warning')
      .map((e) => e.message);
    expect(warned.map((m) => m.split(' ')[0])).toEqual(['concurrency', 'ingest-bulk', 'ingest-single']);
    for (const line of warned)
      expect(line).toMatch(
        /cannot be run: \d+ upload times one after another .* at 1\.5s an upload, over 95% of the 2s window \(it fits up to \d+ms an upload\)/,
      );
    // Reported inconclusive with that reason; the reads still judged.
    const ingest = results.checks.filter((c) => c.id !== 'QUOTA-READ');
    expect(ingest.map((c) => [c.id, c.variant, c.verdict])).toEqual(
      expect.arrayContaining([
        ['QUOTA-INGEST', 'single', 'inconclusive'],
        ['QUOTA-INGEST', 'bulk', 'inconclusive'],
        ['CONCURRENCY-CAP', '', 'inconclusive'],
      ]),
    );
    for (const c of ingest) expect(c.reasons.map((r) => r.code)).toEqual(['uploads-do-not-fit-window']);
    expect(results.checks.filter((c) => c.id === 'QUOTA-READ').every((c) => c.verdict === 'pass')).toBe(true);
    // Not one upload of theirs was sent.
    const sent = runObservations<{ check: string }>(outcome.runDir!);
    expect(sent.filter((o) => o.check === 'QUOTA-INGEST' || o.check === 'CONCURRENCY-CAP')).toEqual([]);
  });
});
