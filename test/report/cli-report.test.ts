import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { EXIT } from '../../src/util/errors.ts';
import { writeSampleRun, type SampleRun } from './fixtures.ts';
import { memoryIo } from './memory-io.ts';

describe('tiergate report <results.json> [--out DIR]', () => {
  let run: SampleRun | null = null;
  afterEach(async () => {
    await run?.cleanup();
    run = null;
  });

  it('re-renders the report from saved results, relative to the working directory', async () => {
    run = await writeSampleRun();
    const io = memoryIo({ cwd: run.root });
    const code = await main(['report', 'reports/20260302-100000-5a1e/results.json', '--out', 'again'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(EXIT.pass);
    expect((await readdir(join(run.root, 'again'))).sort()).toEqual(['index.html', 'junit.xml']);
    expect(io.out()).toBe('wrote again/index.html and again/junit.xml\n');
  });

  it('says which file is wrong and exits 2', async () => {
    run = await writeSampleRun({ observations: false });
    const io = memoryIo({ cwd: run.root });
    const code = await main(['report', 'reports/20260302-100000-5a1e/junit.xml'], io);
    expect(code).toBe(EXIT.usage);
    expect(io.err()).toMatch(/^tiergate: .*reports\/20260302-100000-5a1e\/junit\.xml: not JSON/);
  });
});
