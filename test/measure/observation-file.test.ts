/** The observations file: written compressed as it streams, read back whole, and read up to its cut when cut short. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { observationLines, observationSink } from '../../src/measure/observation-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'tiergate-observation-file-'));
const lines = Array.from({ length: 5000 }, (_, i) =>
  JSON.stringify({ id: i + 1, check: 'QUOTA-READ', phase: 'sequential', status: i % 7 === 0 ? 429 : 200 }),
);

async function collect(file: string): Promise<string[]> {
  const read: string[] = [];
  for await (const line of observationLines(file)) read.push(line);
  return read;
}

describe('the observations file', () => {
  it('.gz: gzip that gunzip reads, much smaller than the text, read back line for line', async () => {
    const file = join(dir, 'observations.ndjson.gz');
    const sink = observationSink(file);
    for (const line of lines) sink.write(`${line}\n`);
    await sink.end();
    const text = lines.map((l) => `${l}\n`).join('');
    expect(gunzipSync(readFileSync(file)).toString('utf8')).toBe(text);
    expect(statSync(file).size).toBeLessThan(text.length / 10);
    expect(await collect(file)).toEqual(lines);
  });

  it('plain NDJSON (older runs) reads the same', async () => {
    const file = join(dir, 'observations.ndjson');
    const sink = observationSink(file);
    for (const line of lines) sink.write(`${line}\n`);
    await sink.end();
    expect(readFileSync(file, 'utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
    expect(await collect(file)).toEqual(lines);
  });

  it('cut short (a run killed mid-write): the lines before the cut are read, and no error', async () => {
    const whole = readFileSync(join(dir, 'observations.ndjson.gz'));
    const cut = join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const read = await collect(cut);
    expect(read.length).toBeGreaterThan(100);
    expect(read.length).toBeLessThan(lines.length);
    // Every line but possibly the last (cut mid-line) is one that was written, in order.
    expect(read.slice(0, -1)).toEqual(lines.slice(0, read.length - 1));
  });
});
