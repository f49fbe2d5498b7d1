import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/util/errors.ts';
import { loadResults } from '../../src/results/load.ts';
import { resultsJsonSchemaText, resultsSchema } from '../../src/results/schema.ts';
import { SAMPLE_PROFILE, sampleResults } from '../helpers/sample-results.ts';
import { writeSampleRun, type SampleRun } from '../report/fixtures.ts';

describe('results.json schema', () => {
  it('the committed schemas/results.schema.json is the one the zod schema generates', async () => {
    const committed = await readFile(new URL('../../schemas/results.schema.json', import.meta.url), 'utf8');
    // If this fails: npm run generate
    expect(committed).toBe(resultsJsonSchemaText());
  });

  it('the sample run is valid results', () => {
    expect(resultsSchema.safeParse(sampleResults()).success).toBe(true);
  });
});

describe('loadResults', () => {
  let run: SampleRun | null = null;
  afterEach(async () => {
    await run?.cleanup();
    run = null;
  });

  const codeOf = async (file: string) => {
    const error = await loadResults(file).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    const usage = error as UsageError;
    expect(usage.message).toContain(file);
    return usage.code;
  };

  it('reads back what writeReports wrote', async () => {
    run = await writeSampleRun();
    const loaded = await loadResults(run.files.results);
    expect(loaded.runId).toBe(run.results.runId);
    expect(loaded.checks).toHaveLength(run.results.checks.length);
  });

  it('reads back the limiter profiles, and results written before profiles existed as having none', async () => {
    run = await writeSampleRun({ observations: false });
    expect((await loadResults(run.files.results)).profiles).toEqual([SAMPLE_PROFILE]);
    const old = join(run.root, 'old.json');
    const { profiles: _dropped, ...before } = JSON.parse(await readFile(run.files.results, 'utf8')) as Record<
      string,
      unknown
    >;
    await writeFile(old, JSON.stringify(before));
    const loaded = await loadResults(old);
    expect(loaded.profiles).toEqual([]);
    expect(loaded.checks).toHaveLength(run.results.checks.length);
  });

  it('reads back declared limits, and results written before them as having none', async () => {
    run = await writeSampleRun({ observations: false });
    const declared = { org: 'enterprise-a', tier: 'enterprise', limits: { read: 10_000, concurrency: 250 } };
    const written = JSON.parse(await readFile(run.files.results, 'utf8')) as Record<string, unknown>;
    const withLimits = join(run.root, 'declared.json');
    await writeFile(withLimits, JSON.stringify({ ...written, declaredLimits: [declared] }));
    expect((await loadResults(withLimits)).declaredLimits).toEqual([declared]);
    const { declaredLimits: _dropped, ...before } = written;
    const old = join(run.root, 'old.json');
    await writeFile(old, JSON.stringify(before));
    expect((await loadResults(old)).declaredLimits).toEqual([]);
  });

  it('reads back the header dialect judged, declared or not, and results written before it without one', async () => {
    run = await writeSampleRun({ observations: false });
    const written = JSON.parse(await readFile(run.files.results, 'utf8')) as Record<string, unknown>;
    const declared = { declared: 'ietf', spec: 'x-ratelimit', policies: { read: 'permin', ingest: 'uploads' } };
    const undeclared = { declared: null, spec: 'x-ratelimit', policies: {} };
    for (const headers of [declared, undeclared]) {
      const file = join(run.root, 'headers.json');
      await writeFile(file, JSON.stringify({ ...written, schema: 'tiergate/results@2', headers }));
      expect((await loadResults(file)).headers).toEqual(headers);
    }
    const { headers: _dropped, ...before } = written;
    const old = join(run.root, 'old.json');
    await writeFile(old, JSON.stringify(before));
    expect((await loadResults(old)).headers).toBeUndefined();
    // A dialect tiergate does not know, or another spec, is not results@2 as written.
    for (const headers of [
      { ...declared, declared: 'ietf-draft-12' },
      { ...undeclared, spec: 'ietf' },
    ])
      expect(resultsSchema.safeParse({ ...written, headers }).success).toBe(false);
  });

  it('names the file and the problem: missing, not JSON, invalid, another format', async () => {
    run = await writeSampleRun({ observations: false });
    expect(await codeOf(join(run.root, 'missing.json'))).toBe('TG_RESULTS_FILE');
    expect(await codeOf(run.root)).toBe('TG_RESULTS_FILE');

    const notJson = join(run.root, 'not-json.json');
    await writeFile(notJson, '{"schema": "tiergate/results@2",');
    expect(await codeOf(notJson)).toBe('TG_RESULTS_FILE');

    const invalid = join(run.root, 'invalid.json');
    const results = JSON.parse(await readFile(run.files.results, 'utf8')) as { checks: { verdict: string }[] };
    results.checks[3]!.verdict = 'maybe';
    await writeFile(invalid, JSON.stringify(results));
    await expect(loadResults(invalid)).rejects.toThrow(/checks\[3\]\.verdict/);

    const badProfile = join(run.root, 'bad-profile.json');
    const withProfile = JSON.parse(await readFile(run.files.results, 'utf8')) as {
      profiles: { counts: { head: { value: unknown } } }[];
    };
    withProfile.profiles[0]!.counts.head.value = 'sometimes';
    await writeFile(badProfile, JSON.stringify(withProfile));
    await expect(loadResults(badProfile)).rejects.toThrow(/profiles\[0\]\.counts\.head\.value/);

    // The data a chart reads is checked against its verdict's type; the rest of `data` is kept as written.
    const badData = join(run.root, 'bad-data.json');
    const withData = JSON.parse(await readFile(run.files.results, 'utf8')) as {
      checks: { id: string; data?: { series?: { n: unknown }[]; note?: string } }[];
    };
    const quota = withData.checks.findIndex((c) => c.id === 'QUOTA-READ' && c.data !== undefined);
    withData.checks[quota]!.data!.note = 'a field no reader knows';
    await writeFile(badData, JSON.stringify(withData));
    expect((await loadResults(badData)).checks[quota]!.data).toMatchObject({ note: 'a field no reader knows' });
    withData.checks[quota]!.data!.series![0]!.n = 'first';
    await writeFile(badData, JSON.stringify(withData));
    await expect(loadResults(badData)).rejects.toThrow(new RegExp(`checks\\[${quota}\\]\\.data\\.series\\[0\\]\\.n`));

    const other = join(run.root, 'other.json');
    await writeFile(other, JSON.stringify({ ...results, schema: 'tiergate/results@2' }));
    await expect(loadResults(other)).rejects.toThrow(/tiergate\/results@2/);
  });
});
